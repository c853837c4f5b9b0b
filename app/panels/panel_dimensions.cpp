#include "widgets/edit_error.h"
#include "panels/panel_dimensions.h"

#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "attnlab/scenario.h"
#include "widgets/theme.h"

namespace attnlab::app::DimensionsPanel {
namespace {

using attnlab::Matrix;
using attnlab::Vector;

// Matrices are resized in the rows convention (W is inputs x outputs) and stored back as they were.
Matrix ToRows(const Matrix& stored, attnlab::Layout l) {
  return l == attnlab::Layout::rows ? stored : Matrix(stored.transpose());
}
Matrix FromRows(const Matrix& rows, attnlab::Layout l) {
  return l == attnlab::Layout::rows ? rows : Matrix(rows.transpose());
}

// Distinct random streams per matrix, so grown W_q and W_k do not get the same numbers.
enum Stream : std::uint64_t { kX = 101, kZ, kWq, kWk, kWv, kBq, kBk, kBv, kWo, kBo };

Matrix Blank(long rows, long cols, const Fill& fill, std::uint64_t stream) {
  if (fill.random) return attnlab::random_matrix(int(rows), int(cols), fill.spec, stream);
  return Matrix::Zero(rows, cols);
}

/// rows x cols, keeping the top-left overlap of m.
Matrix Resized(const Matrix& m, long rows, long cols, const Fill& fill, std::uint64_t stream) {
  Matrix out = Blank(rows, cols, fill, stream);
  const long r = std::min(rows, long(m.rows())), c = std::min(cols, long(m.cols()));
  out.topLeftCorner(r, c) = m.topLeftCorner(r, c);
  return out;
}

/// Columns in H bands of old_w become H bands of new_w; each band keeps its own leading columns.
Matrix ResizedBands(const Matrix& m, int H, long old_w, long new_w, const Fill& fill,
                    std::uint64_t stream) {
  Matrix out = Blank(m.rows(), H * new_w, fill, stream);
  const long keep = std::min(old_w, new_w);
  for (int h = 0; h < H; ++h) out.middleCols(h * new_w, keep) = m.middleCols(h * old_w, keep);
  return out;
}

Matrix RowsOrIdentity(const std::optional<Matrix>& W, long in, attnlab::Layout l) {
  return W ? ToRows(*W, l) : Matrix(Matrix::Identity(in, in));
}

// The input side (rows, in the rows convention) of a projection grows or shrinks.
void ResizeInput(std::optional<Matrix>& W, long old_in, long new_in, attnlab::Layout l,
                 const Fill& fill, std::uint64_t stream) {
  const Matrix r = RowsOrIdentity(W, old_in, l);
  W = FromRows(Resized(r, new_in, r.cols(), fill, stream), l);
}

void ResizeOutput(std::optional<Matrix>& W, long in, int H, long old_w, long new_w,
                  attnlab::Layout l, const Fill& fill, std::uint64_t stream) {
  const Matrix r = RowsOrIdentity(W, in, l);
  W = FromRows(ResizedBands(r, H, old_w, new_w, fill, stream), l);
}

void ResizeBias(std::optional<Vector>& b, int H, long old_w, long new_w, const Fill& fill,
                std::uint64_t stream) {
  if (!b) return;
  const Matrix row = ResizedBands(Matrix(b->transpose()), H, old_w, new_w, fill, stream);
  b = Vector(row.row(0).transpose());
}

void CheckSize(const char* name, int value) {
  if (value < 1)
    throw attnlab::ScenarioError(std::string(name) + ": expected at least 1, got " + std::to_string(value));
}

// Projection widths as the core resolves them: explicit W's width, or the identity's.
long QkWidth(const attnlab::Projections& p, const attnlab::Scenario& s) {
  const auto width = [&](const Matrix& W) { return s.layout == attnlab::Layout::rows ? W.cols() : W.rows(); };
  return p.W_q ? width(*p.W_q) : p.W_k ? width(*p.W_k) : s.d_x();
}
long VWidth(const attnlab::Projections& p, const attnlab::Scenario& s) {
  const auto width = [&](const Matrix& W) { return s.layout == attnlab::Layout::rows ? W.cols() : W.rows(); };
  return p.W_v ? width(*p.W_v) : s.d_z();
}

std::vector<attnlab::Projections*> AllProjections(attnlab::Scenario& s) {
  std::vector<attnlab::Projections*> out;
  if (s.per_head())
    for (attnlab::Projections& p : s.heads) out.push_back(&p);
  else
    out.push_back(&s.full);
  return out;
}

}  // namespace

void SetModelWidth(attnlab::Scenario& s, int d_x, const Fill& fill) {
  CheckSize("d_model", d_x);
  const long old = s.d_x();
  if (d_x == old) return;
  const attnlab::Layout l = s.layout;
  const bool self = !s.cross_attention();
  long d_out = -1;
  if (s.W_o) d_out = l == attnlab::Layout::rows ? s.W_o->cols() : s.W_o->rows();
  for (attnlab::Projections* p : AllProjections(s)) {
    ResizeInput(p->W_q, old, d_x, l, fill, kWq);
    if (self) {
      ResizeInput(p->W_k, old, d_x, l, fill, kWk);
      ResizeInput(p->W_v, old, d_x, l, fill, kWv);
    }
  }
  s.X = FromRows(Resized(ToRows(s.X, l), s.n_x(), d_x, fill, kX), l);
  if (s.W_o && d_out == old) {  // the output projection maps back to d_model: it follows
    const Matrix r = ToRows(*s.W_o, l);
    s.W_o = FromRows(Resized(r, r.rows(), d_x, fill, kWo), l);
    ResizeBias(s.b_o, 1, old, d_x, fill, kBo);
  }
}

void SetContextWidth(attnlab::Scenario& s, int d_z, const Fill& fill) {
  CheckSize("d_z", d_z);
  if (!s.Z || d_z == s.d_z()) return;
  const long old = s.d_z();
  const attnlab::Layout l = s.layout;
  for (attnlab::Projections* p : AllProjections(s)) {
    ResizeInput(p->W_k, old, d_z, l, fill, kWk);
    ResizeInput(p->W_v, old, d_z, l, fill, kWv);
  }
  s.Z = FromRows(Resized(ToRows(*s.Z, l), s.n_z(), d_z, fill, kZ), l);
}

void SetKeyWidth(attnlab::Scenario& s, int d_k, const Fill& fill) {
  CheckSize("d_k", d_k);
  const attnlab::Layout l = s.layout;
  const int H = s.per_head() ? 1 : s.num_heads;  // per-head matrices are one band each
  for (attnlab::Projections* p : AllProjections(s)) {
    const long old = QkWidth(*p, s) / H;
    if (old == d_k) continue;
    ResizeOutput(p->W_q, s.d_x(), H, old, d_k, l, fill, kWq);
    ResizeOutput(p->W_k, s.d_z(), H, old, d_k, l, fill, kWk);
    ResizeBias(p->b_q, H, old, d_k, fill, kBq);
    ResizeBias(p->b_k, H, old, d_k, fill, kBk);
  }
}

void SetValueWidth(attnlab::Scenario& s, int d_v, const Fill& fill) {
  CheckSize("d_v", d_v);
  const attnlab::Layout l = s.layout;
  const int H = s.per_head() ? 1 : s.num_heads;
  long old = 0;
  for (attnlab::Projections* p : AllProjections(s)) {
    old = VWidth(*p, s) / H;
    if (old == d_v) continue;
    ResizeOutput(p->W_v, s.d_z(), H, old, d_v, l, fill, kWv);
    ResizeBias(p->b_v, H, old, d_v, fill, kBv);
  }
  if (s.W_o && old != d_v) {
    // W_o's inputs are the heads' concatenated outputs: H bands of d_v rows.
    const Matrix r = ToRows(*s.W_o, l);
    const Matrix t = ResizedBands(Matrix(r.transpose()), s.head_count(), old, d_v, fill, kWo);
    s.W_o = FromRows(Matrix(t.transpose()), l);
  }
}

namespace {

void RowLabel(const char* label, const char* tip) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  if (tip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
  ImGui::TableSetColumnIndex(1);
}

Fill CurrentFill(const AppState& state) { return {state.ui.grow_random, state.ui.random}; }

// One size control: +/- apply at once, typed numbers on Enter (never a half-typed "1" of "12").
void SizeControl(AppState& state, const char* label, const char* tip, int current,
                 void (*apply)(attnlab::Scenario&, int, const Fill&)) {
  RowLabel(label, tip);
  int value = current;
  ImGui::PushID(label);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
  if (ImGui::InputInt("##size", &value, 1, 1, ImGuiInputTextFlags_EnterReturnsTrue) && value != current) {
    const Fill fill = CurrentFill(state);
    state.document.ApplyEdit(label, [&](attnlab::Scenario& s) { apply(s, value, fill); });
  }
  ImGui::PopID();
  ShowEditError(state.document, label);
}

struct Widths {
  int d_k = 0, d_v = 0;
};

Widths CurrentWidths(AppState& state) {
  const attnlab::Trace& t = state.document.GetTrace();
  if (t.heads.empty()) return {};
  const bool rows = state.document.GetScenario().layout == attnlab::Layout::rows;
  const attnlab::HeadTrace& h = t.heads.front();
  return {int(rows ? h.Q.cols() : h.Q.rows()), int(rows ? h.V.cols() : h.V.rows())};
}

void SizeControls(AppState& state) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const Widths w = CurrentWidths(state);
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##sizes", 2, flags)) return;
  ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 5.2f);
  ImGui::TableSetupColumn("control", ImGuiTableColumnFlags_WidthStretch);
  SizeControl(state, "d_model", "width of X's embeddings (d_x)", s.d_x(), SetModelWidth);
  if (s.cross_attention())
    SizeControl(state, "d_z", "width of the context Z's embeddings", s.d_z(), SetContextWidth);
  SizeControl(state, "d_k", "query/key width of each head", w.d_k, SetKeyWidth);
  SizeControl(state, "d_v", "value width of each head", w.d_v, SetValueWidth);
  RowLabel("New cells", "what a matrix that grows is padded with");
  if (ImGui::RadioButton("zeros", !state.ui.grow_random)) state.ui.grow_random = false;
  ImGui::SameLine();
  if (ImGui::RadioButton("random", state.ui.grow_random)) state.ui.grow_random = true;
  ImGui::EndTable();
}

void DistributionControl(AppState& state) {
  using Kind = attnlab::RandomSpec::Kind;
  attnlab::RandomSpec& r = state.ui.random;
  struct Choice {
    Kind kind;
    const char* label;
  };
  const Choice choices[] = {{Kind::randint, "integers (NumPy randint)"},
                            {Kind::normal, "normal N(\xCE\xBC, \xCF\x83)"},
                            {Kind::xavier, "Xavier uniform"}};
  const char* preview = choices[0].label;
  for (const Choice& c : choices)
    if (c.kind == r.kind) preview = c.label;
  RowLabel("Values", nullptr);
  ImGui::SetNextItemWidth(-1.0f);
  if (ImGui::BeginCombo("##dist", preview)) {
    for (const Choice& c : choices)
      if (ImGui::Selectable(c.label, c.kind == r.kind)) r.kind = c.kind;
    ImGui::EndCombo();
  }
  const float half = ImGui::GetFontSize() * 4.6f;
  if (r.kind == Kind::randint) {
    RowLabel("Range", "integers from low up to (not including) high, like randint(low, high)");
    ImGui::SetNextItemWidth(half);
    ImGui::InputInt("##low", &r.low, 0);
    ImGui::SameLine();
    ImGui::TextUnformatted("to");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(half);
    ImGui::InputInt("##high", &r.high, 0);
    r.high = std::max(r.high, r.low + 1);
  } else if (r.kind == Kind::normal) {
    RowLabel("\xCE\xBC, \xCF\x83", "mean and standard deviation");
    ImGui::SetNextItemWidth(half);
    ImGui::InputDouble("##mean", &r.mean, 0, 0, "%.3g");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(half);
    ImGui::InputDouble("##std", &r.stddev, 0, 0, "%.3g");
    r.stddev = std::clamp(r.stddev, 0.0, 1e3);
    r.mean = std::clamp(r.mean, -1e3, 1e3);
  }
}

void RandomControls(AppState& state) {
  ImGui::PushFont(GetFonts().bold);
  ImGui::TextUnformatted("Random values");
  ImGui::PopFont();
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##random", 2, flags)) return;
  ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 5.2f);
  ImGui::TableSetupColumn("control", ImGuiTableColumnFlags_WidthStretch);
  DistributionControl(state);
  RowLabel("Seed", "same seed, same numbers on every machine");
  int seed = static_cast<int>(state.ui.random.seed);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
  if (ImGui::InputInt("##seed", &seed)) state.ui.random.seed = static_cast<std::uint64_t>(std::max(seed, 0));
  ImGui::EndTable();
  const attnlab::RandomSpec spec = state.ui.random;
  if (ImGui::Button("Randomize weights"))
    state.document.ApplyEdit("randomize", [spec](attnlab::Scenario& s) { attnlab::randomize_weights(s, spec); });
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("New values for every W and b present (identity W's stay identity)");
  ImGui::SameLine();
  if (ImGui::Button("Randomize X"))
    state.document.ApplyEdit("randomize", [spec](attnlab::Scenario& s) {
      s.X = attnlab::random_matrix(int(s.X.rows()), int(s.X.cols()), spec, kX);
      if (s.Z) s.Z = attnlab::random_matrix(int(s.Z->rows()), int(s.Z->cols()), spec, kZ);
    });
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("New embeddings for the tokens (and for Z)");
  ShowEditError(state.document, "randomize");
}

}  // namespace

void Draw(AppState& state) {
  SizeControls(state);
  ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
  ImGui::TextWrapped("Growing keeps every head's own columns; change the number of heads in "
                     "Scenario and watch the bands in W_q re-split.");
  ImGui::PopStyleColor();
  ImGui::Separator();
  RandomControls(state);
}

}  // namespace attnlab::app::DimensionsPanel
