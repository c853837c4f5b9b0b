#include "panels/panel_inputs.h"

#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/edits.h"
#include "attnlab/numbering.h"
#include "attnlab/scenario.h"
#include "panels/inputs_dimensions.h"
#include "panels/inputs_tokens.h"
#include "panels/panel_requests.h"
#include "session/trace_worker.h"
#include "view/sensitivity_map.h"
#include "widgets/edit_error.h"
#include "widgets/matrix_editor.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_inputs {
namespace {

using attnlab::Matrix;
using attnlab::Vector;

enum class Which { Q, K, V };

const char* Letter(Which w) { return w == Which::Q ? "q" : w == Which::K ? "k" : "v"; }

const std::optional<Matrix>& WOf(const attnlab::Projections& p, Which w) {
  return w == Which::Q ? p.W_q : w == Which::K ? p.W_k : p.W_v;
}
const std::optional<Vector>& BOf(const attnlab::Projections& p, Which w) {
  return w == Which::Q ? p.b_q : w == Which::K ? p.b_k : p.b_v;
}

// The key/value head query head `head` reads (grouped-query attention), else `head` itself.
int KvHeadOf(const attnlab::Scenario& s, int head) { return head / std::max(1, s.head_count() / s.kv_head_count()); }

// Whether W_k, W_v and their biases of a per-head scenario are a key/value head's (kv_heads).
bool SharedKv(const attnlab::Scenario& s, Which w) { return w != Which::Q && !s.kv_heads.empty(); }

// The projections being edited: the full matrices, head h's own (per-head mode) or, for keys and
// values shared through kv_heads, those of the key/value head it reads.
template <class Scenario>  // attnlab::Scenario, const or not
auto& ProjectionsOf(Scenario& s, int head, Which w) {
  if (!s.per_head()) return s.full;
  if (SharedKv(s, w)) return s.kv_heads[static_cast<std::size_t>(KvHeadOf(s, head))];
  return s.heads[static_cast<std::size_t>(head)];
}

// "", "heads[1]." or "kv_heads[0].": how messages and cell edits name the matrices edited.
std::string PrefixOf(const attnlab::Scenario& s, int head, Which w) {
  if (!s.per_head()) return "";
  if (SharedKv(s, w)) return "kv_heads[" + std::to_string(KvHeadOf(s, head)) + "].";
  return "heads[" + std::to_string(head) + "].";
}

// Full matrices: W_q holds H bands, W_k and W_v G (one per key/value head); the band shown selected
// is the selected head's.
int BandsOf(const attnlab::Scenario& s, Which w) { return w == Which::Q ? s.num_heads : s.kv_head_count(); }
int SelectedBand(const attnlab::Scenario& s, Which w, int selected_head) {
  return w == Which::Q ? selected_head : KvHeadOf(s, selected_head);
}

bool RowsLayout(const attnlab::Scenario& s) { return s.layout == attnlab::Layout::rows; }

// A bias is shown the way it is added: a row under Q = X W_q (rows), a column beside W_q X.
Matrix BiasAsShown(const Vector& b, bool rows) {
  return rows ? Matrix(b.transpose()) : Matrix(b);
}

std::vector<std::string> TokenLabels(const std::vector<std::string>& given, int n) {
  if (!given.empty()) return given;
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("#" + std::to_string(i));
  return out;
}

void Caption(const char* name, const Matrix* m, const char* shape_names, const char* formula) {
  const PinnedLeft pinned;  // over the grid while it scrolls sideways
  ImGui::PushFont(GetFonts().bold);
  ImGui::TextUnformatted(name);
  ImGui::PopFont();
  if (m) {
    ImGui::SameLine();
    ImGui::TextColored(DimTextColor(), "%d\xC3\x97%d  %s", int(m->rows()), int(m->cols()), shape_names);
  }
  if (formula) {
    ImGui::PushFont(GetFonts().mono);
    ImGui::TextColored(DimTextColor(), "%s", formula);
    ImGui::PopFont();
  }
}

// The gradients the editors are coloured by (Sensitivity panel, "Colour the Inputs by it"), or
// null when they show their values.
const SensitivityMap* ShownGradients(AppState& state) {
  const attnlab::Scenario& s = state.document.GetScenario();
  if (!state.ui.sensitivity_on_inputs || ComputeOffThread(s)) return nullptr;
  const SensitivityMap& map = state.sensitivity.Get(s, state.document.Version(), state.ui.sensitivity_target);
  return map.error.empty() ? &map : nullptr;
}

// While the editors are coloured by a gradient, one line says so and turns it off again.
void GradientBanner(AppState& state) {
  if (!state.ui.sensitivity_on_inputs) return;
  ImGui::AlignTextToFramePadding();
  const attnlab::Scenario& s = state.document.GetScenario();
  if (ComputeOffThread(s)) {
    ImGui::TextColored(DimTextColor(), "Too large for live gradients: the cells show their values.");
  } else if (const SensitivityMap& map = state.sensitivity.Get(s, state.document.Version(), state.ui.sensitivity_target);
             map.error.empty()) {
    ImGui::PushFont(GetFonts().bold);
    ImGui::Text("Colours: d %s / d cell", map.target.c_str());
    ImGui::PopFont();
  } else {
    ImGui::TextColored(ErrorTextColor(), "Sensitivity target: %s", map.error.c_str());
  }
  const char* off = "Colour by value";
  // Beside the line when it fits, under it otherwise (a narrow Inputs column in lecture mode).
  SameLineIfFits(ImGui::CalcTextSize(off).x + ImGui::GetStyle().FramePadding.x * 2.0f);
  if (ImGui::SmallButton(off)) state.ui.sensitivity_on_inputs = false;
  MarkLastItem(state.on_control, "inputs colour by value");
}

void Editor(AppState& state, MatrixEditorSpec spec) {
  spec.sweep_cell = [&state](const std::string& cell) {
    state.requests->Request(state, SweepRequest{cell});
  };
  if (const SensitivityMap* map = ShownGradients(state)) {
    spec.tint = GradientOf(*map, spec.source);
    spec.tint_of = map->target;
  }
  if (state.before_matrix_editor) state.before_matrix_editor(spec);
  MatrixEditor(state.document, state.ui.colormap, spec, state.on_control);
}

void EmbeddingEditor(AppState& state, MatrixEditorState& editor, bool context) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const bool rows = RowsLayout(s);
  const Matrix& m = context ? *s.Z : s.X;
  const std::vector<std::string> labels =
      TokenLabels(context ? s.context_tokens : s.tokens, context ? s.n_z() : s.n_x());
  Caption(context ? "Z" : "X", &m,
          context ? (rows ? "(n_z \xC3\x97 d_z)" : "(d_z \xC3\x97 n_z)")
                  : (rows ? "(n_x \xC3\x97 d_x)" : "(d_x \xC3\x97 n_x)"),
          rows ? "one row per token" : "one column per token");
  MatrixEditorSpec spec;
  spec.source = context ? "Z" : "X";
  spec.values = &m;
  (rows ? spec.row_labels : spec.col_labels) = &labels;
  spec.state = &editor;
  Editor(state, spec);
}

// What the panel keeps between frames: the matrix editors' scrubbed or typed cell, the token
// label being typed, the Sizes tab's fill and randomize settings.
struct InputsState {
  MatrixEditorState editor;
  inputs_tokens::State tokens;
  inputs_dimensions::State sizes;
};

void TokensTab(AppState& state, InputsState& self) {
  inputs_tokens::Draw(state, self.tokens);
  ImGui::Separator();
  EmbeddingEditor(state, self.editor, false);
  if (state.document.GetScenario().cross_attention()) {
    ImGui::Spacing();
    EmbeddingEditor(state, self.editor, true);
  }
}

// Per-head mode: which head's matrices are edited follows the selected head.
void HeadChooser(AppState& state) {
  const int H = state.document.HeadCount();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Head");
  for (int h = 0; h < H; ++h) {
    ImGui::SameLine();
    char name[32];
    std::snprintf(name, sizeof name, "%s##head", attnlab::index_text(h).c_str());
    const bool selected = h == state.ui.selected_head;
    ImGui::PushStyleColor(ImGuiCol_Button, selected ? HeadColor(h) : HeadColor(h, 0.25f));
    ImGui::PushStyleColor(ImGuiCol_Text, selected ? IM_COL32(20, 20, 24, 255) : ImGui::GetColorU32(ImGuiCol_Text));
    if (ImGui::Button(name)) state.SelectHead(h);
    ImGui::PopStyleColor(2);
  }
}

// A button that adds the omitted matrix `source` ("W_q", "heads[1].b_k", "W_o", ...).
void AddButton(AppState& state, const char* label, const std::string& source,
               attnlab::NewMatrix fill = attnlab::NewMatrix::identity) {
  if (ImGui::SmallButton(label))
    state.document.ApplyEdit(source.c_str(), [source, fill](attnlab::Scenario& s) { attnlab::add_matrix(s, source, fill); });
}

void AbsentWeight(AppState& state, const std::string& source, Which w) {
  ImGui::TextColored(DimTextColor(), "omitted: the identity (%s = %s)", w == Which::Q ? "Q" : w == Which::K ? "K" : "V",
                     w == Which::Q ? "X" : "Z");
  AddButton(state, "Add as identity", source);
  ImGui::SameLine();
  AddButton(state, "Add as zeros", source, attnlab::NewMatrix::zeros);
  ShowEditError(state.document, source.c_str());
}

// An omitted bias: its name, "omitted: zeros" and, when `addable`, a button that adds it.
void AbsentBias(AppState& state, const std::string& source, bool addable) {
  ImGui::PushFont(GetFonts().bold);
  ImGui::TextUnformatted(source.c_str());
  ImGui::PopFont();
  ImGui::SameLine();
  ImGui::TextColored(DimTextColor(), "omitted: zeros");
  ImGui::SameLine();
  if (!addable) return;
  AddButton(state, ("Add " + source).c_str(), source);
  ShowEditError(state.document, source.c_str());
}

void WeightEditor(AppState& state, MatrixEditorState& editor, Which w, int head) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const bool rows = RowsLayout(s), per_head = s.per_head();
  const attnlab::Projections& p = ProjectionsOf(s, head, w);
  const std::string prefix = PrefixOf(s, head, w);
  const std::string name = std::string("W_") + Letter(w);
  const std::string source = prefix + name;
  char formula[96];
  const char up = w == Which::Q ? 'Q' : w == Which::K ? 'K' : 'V';
  const char* input = w == Which::Q ? "X" : s.cross_attention() ? "Z" : "X";
  if (rows)
    std::snprintf(formula, sizeof formula, "%c = %s W_%s + b_%s", up, input, Letter(w), Letter(w));
  else
    std::snprintf(formula, sizeof formula, "%c = W_%s %s + b_%s", up, Letter(w), input, Letter(w));
  const bool grouped = w != Which::Q && s.grouped() && !per_head;  // G bands, not H
  const char* width = w == Which::V ? (per_head ? "d_v" : grouped ? "G\xC2\xB7" "d_v" : "H\xC2\xB7" "d_v")
                                    : (per_head ? "d_k" : grouped ? "G\xC2\xB7" "d_k" : "H\xC2\xB7" "d_k");
  const char* in_name = w == Which::Q ? "d_x" : "d_z";
  char shape[48];
  std::snprintf(shape, sizeof shape, rows ? "(%s \xC3\x97 %s)" : "(%s \xC3\x97 %s)", rows ? in_name : width,
                rows ? width : in_name);
  const std::optional<Matrix>& W = WOf(p, w);
  Caption(source.c_str(), W ? &*W : nullptr, shape, formula);
  if (!W) {
    AbsentWeight(state, source, w);
    return;
  }
  MatrixEditorSpec spec;
  spec.source = source;
  spec.values = &*W;
  if (!per_head) {
    const long total = rows ? W->cols() : W->rows();
    spec.band = static_cast<int>(total / std::max(1, BandsOf(s, w)));
    spec.band_on_cols = rows;
    spec.selected_band = SelectedBand(s, w, state.ui.selected_head);
  }
  spec.removable = true;
  spec.remove_tip = "Omit it: the identity takes its place (needs a square matrix)";
  spec.state = &editor;
  Editor(state, spec);
}

void BiasEditor(AppState& state, MatrixEditorState& editor, Which w, int head) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const bool rows = RowsLayout(s), per_head = s.per_head();
  const attnlab::Projections& p = ProjectionsOf(s, head, w);
  const std::string source = PrefixOf(s, head, w) + "b_" + Letter(w);
  const std::optional<Vector>& b = BOf(p, w);
  if (!b) {
    AbsentBias(state, source, !state.document.GetTrace().heads.empty());
    return;
  }
  const Matrix shown = BiasAsShown(*b, rows);
  Caption(source.c_str(), &shown, rows ? "(a row added to every token)" : "(a column added to every token)", nullptr);
  MatrixEditorSpec spec;
  spec.source = source;
  spec.values = &shown;
  if (!per_head) {
    spec.band = static_cast<int>(b->size() / std::max(1, BandsOf(s, w)));
    spec.band_on_cols = rows;
    spec.selected_band = SelectedBand(s, w, state.ui.selected_head);
  }
  spec.removable = true;
  spec.remove_tip = "Omit it: zeros";
  spec.state = &editor;
  Editor(state, spec);
}

void ProjectionTab(AppState& state, MatrixEditorState& editor, Which w) {
  const attnlab::Scenario& s = state.document.GetScenario();
  int head = 0;
  if (s.per_head()) {
    HeadChooser(state);
    head = std::min(state.ui.selected_head, s.head_count() - 1);
    if (SharedKv(s, w))
      ImGui::TextColored(DimTextColor(),
                         "Head %s reads key/value head %s (kv_heads[%d]), shared with its group.",
                         attnlab::index_text(head).c_str(),
                         attnlab::index_text(KvHeadOf(s, head)).c_str(), KvHeadOf(s, head));
  } else if (BandsOf(s, w) > 1) {
    ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
    if (w != Which::Q && s.grouped())
      ImGui::TextWrapped("%d key/value heads split W_%s; each band serves %d query heads.", BandsOf(s, w), Letter(w),
                         s.num_heads / BandsOf(s, w));
    else
      ImGui::TextWrapped("%d heads split W_%s: each takes the band in its colour.", s.num_heads, Letter(w));
    ImGui::PopStyleColor();
  }
  WeightEditor(state, editor, w, head);
  ImGui::Spacing();
  BiasEditor(state, editor, w, head);
}

void OutputTab(AppState& state, MatrixEditorState& editor) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const bool rows = RowsLayout(s);
  const int H = s.head_count();
  Caption("W_o", s.W_o ? &*s.W_o : nullptr, rows ? "(H\xC2\xB7" "d_v \xC3\x97 d_out)" : "(d_out \xC3\x97 H\xC2\xB7" "d_v)",
          rows ? "out = concat(Y_1..Y_H) W_o + b_o" : "out = W_o concat(Y_1..Y_H) + b_o");
  if (!s.W_o) {
    ImGui::TextColored(DimTextColor(), "omitted: the output is the concatenation itself");
    AddButton(state, "Add as identity", "W_o");
    ShowEditError(state.document, "W_o");
    return;
  }
  MatrixEditorSpec spec;
  spec.source = "W_o";
  spec.values = &*s.W_o;
  const long concat = rows ? s.W_o->rows() : s.W_o->cols();
  spec.band = static_cast<int>(concat / std::max(1, H));  // rows of W_o that read head h's output
  spec.band_on_cols = !rows;
  spec.selected_band = state.ui.selected_head;
  spec.removable = true;  // b_o goes with it
  spec.remove_tip = "Omit W_o (and b_o): the output is the concatenation";
  spec.state = &editor;
  Editor(state, spec);
  ImGui::Spacing();
  if (!s.b_o) {
    AbsentBias(state, "b_o", true);
    return;
  }
  const Matrix shown = BiasAsShown(*s.b_o, rows);
  Caption("b_o", &shown, "", nullptr);
  MatrixEditorSpec bias;
  bias.source = "b_o";
  bias.values = &shown;
  bias.removable = true;
  bias.remove_tip = "Omit it: zeros";
  bias.state = &editor;
  Editor(state, bias);
}

// The tab that holds the editor of `source` ("heads[1].W_q": per-head matrices share W_q's tab).
const char* TabFor(std::string source) {
  const std::size_t dot = source.find('.');
  if (dot != std::string::npos) source = source.substr(dot + 1);
  if (source == "X" || source == "Z") return "Tokens";
  if (source == "W_q" || source == "b_q") return "W_q";
  if (source == "W_k" || source == "b_k") return "W_k";
  if (source == "W_v" || source == "b_v") return "W_v";
  if (source == "W_o" || source == "b_o") return "W_o";
  return nullptr;
}

// Narrow tabs so that all six fit the left column: the tab bar is drawn with a small frame
// padding, each tab's contents with the normal style.
class NarrowTabs {
 public:
  NarrowTabs() : padding_(ImGui::GetStyle().FramePadding), inner_(ImGui::GetStyle().ItemInnerSpacing) {
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding,
                        ImVec2(std::floor(ImGui::GetFontSize() * 0.35f), padding_.y));
    ImGui::PushStyleVar(ImGuiStyleVar_ItemInnerSpacing, ImVec2(2.0f, inner_.y));
  }
  ~NarrowTabs() { ImGui::PopStyleVar(2); }
  bool Begin(const char* label, const char* wanted, const ControlMarks& marks) const {
    const bool select = wanted && std::string(label).rfind(wanted, 0) == 0;
    const bool open = ImGui::BeginTabItem(label, nullptr, select ? ImGuiTabItemFlags_SetSelected : 0);
    MarkLastItem(marks, (std::string("inputs tab ") + label).c_str());
    if (!open) return false;
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, padding_);
    ImGui::PushStyleVar(ImGuiStyleVar_ItemInnerSpacing, inner_);
    return true;
  }
  void End() const {
    ImGui::PopStyleVar(2);
    ImGui::EndTabItem();
  }

 private:
  ImVec2 padding_, inner_;
};

class InputsPanel final : public PanelContents, public Accepts<EditorRequest> {
 public:
  void Take(AppState&, const EditorRequest& request) override {
    if (const char* tab = TabFor(request.source)) wanted_tab_ = tab;
  }
  void Draw(AppState& state) override;

 private:
  InputsState self_;
  const char* wanted_tab_ = nullptr;  ///< a tab to bring to the front once (EditorRequest)
};

}  // namespace

void InputsPanel::Draw(AppState& state) {
  GradientBanner(state);
  const NarrowTabs tabs_style;
  struct MatrixTab {
    const char* label;
    void (*draw)(AppState&, InputsState&);
  };
  // Tokens and their embeddings share a tab: a token's label and its row of X belong together.
  const MatrixTab tabs[] = {
      {"Tokens", TokensTab},
      {"W_q", [](AppState& s, InputsState& i) { ProjectionTab(s, i.editor, Which::Q); }},
      {"W_k", [](AppState& s, InputsState& i) { ProjectionTab(s, i.editor, Which::K); }},
      {"W_v", [](AppState& s, InputsState& i) { ProjectionTab(s, i.editor, Which::V); }},
      {"W_o", [](AppState& s, InputsState& i) { OutputTab(s, i.editor); }},
  };
  std::vector<const char*> labels = {"Sizes"};
  for (const MatrixTab& t : tabs) labels.push_back(t.label);
  if (!ImGui::BeginTabBar("##inputs", WholeNameTabBarFlags(labels, false))) return;
  const char* wanted = std::exchange(wanted_tab_, nullptr);
  for (const MatrixTab& t : tabs) {
    if (!tabs_style.Begin(t.label, wanted, state.on_control)) continue;
    ImGui::BeginChild("##matrix", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    t.draw(state, self_);
    ImGui::EndChild();
    tabs_style.End();
  }
  if (tabs_style.Begin("Sizes", wanted, state.on_control)) {
    ImGui::BeginChild("##sizes");
    inputs_dimensions::Draw(state, self_.sizes);
    ImGui::EndChild();
    tabs_style.End();
  }
  ImGui::EndTabBar();
}

std::unique_ptr<PanelContents> Make() { return std::make_unique<InputsPanel>(); }

}  // namespace attnlab::app::panel_inputs
