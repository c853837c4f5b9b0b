#include "panels/panel_mask.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/edits.h"
#include "panels/document_banner.h"
#include "view/inspector_math.h"
#include "view/label_fit.h"
#include "view/stage_labels.h"
#include "widgets/control_marks.h"
#include "widgets/edit_error.h"
#include "widgets/heatmap.h"
#include "widgets/heatmap_text.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_mask {
namespace {

constexpr const char* kMaskSource = "mask";
constexpr Rgb8 kAllowedFill{214, 220, 228};  // light: allowed cells read as "open" on a projector

bool ColumnsLayout(const attnlab::Scenario& s) { return s.layout == attnlab::Layout::columns; }

bool IsPadding(const attnlab::Scenario& s, int key) {
  return std::find(s.mask.padding.begin(), s.mask.padding.end(), key) != s.mask.padding.end();
}

int CustomOff(const attnlab::Scenario& s) {
  if (!s.mask.cells) return 0;
  return static_cast<int>((s.mask.cells->array() == 0.0).count());
}

std::string Summary(const attnlab::Scenario& s) {
  if (s.mask.empty()) return "none: every query attends every key";
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : " + ") + part; };
  if (s.mask.causal) add("causal");
  if (s.mask.window > 0) add("window " + std::to_string(s.mask.window));
  if (s.mask.sinks > 0) add(std::to_string(s.mask.sinks) + (s.mask.sinks == 1 ? " sink" : " sinks"));
  if (!s.mask.padding.empty()) add("padding (" + std::to_string(s.mask.padding.size()) + ")");
  if (s.mask.cells) add("custom (" + std::to_string(CustomOff(s)) + " cells off)");
  return out;
}

// On the same line when an item `width` wide still fits there, else on the next: a narrow panel
// wraps its controls rather than cutting the last ones ("Cle", no Bake).
void SameLineIfFits(float width) {
  ImGui::SameLine();
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetCursorScreenPos().x + width > right) ImGui::NewLine();
}

float ButtonWidth(const char* label) {
  return ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2.0f;
}

// A sliding window: only keys fewer than w positions away (Mistral's, with causal beside it).
void WindowControl(AppState& state) {
  const attnlab::Scenario& s = state.document.GetScenario();
  bool on = s.mask.window > 0;
  if (ImGui::Checkbox("Window", &on)) {
    const int w = on ? std::max(1, std::min(3, s.n_z())) : 0;
    state.document.ApplyEdit(kMaskSource, [w](attnlab::Scenario& e) { attnlab::set_mask_window(e, w); });
  }
  MarkLastItem(state.on_control, "mask window");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Sliding window: query i may attend key j only when |p_i \xE2\x88\x92 c_j| < w");
  if (!on) return;
  SameLineIfFits(ImGui::GetFontSize() * 5.0f);
  int w = s.mask.window;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.0f);
  if (ImGui::InputInt("##window", &w, 1, 1) && w >= 1 && w != s.mask.window)
    state.document.ApplyEdit(kMaskSource, [w](attnlab::Scenario& e) { attnlab::set_mask_window(e, w); });
  MarkLastItem(state.on_control, "mask window width");
}

// Attention sinks (StreamingLLM): the first s keys stay visible whatever the window or the cells say.
void SinksControl(AppState& state) {
  const attnlab::Scenario& s = state.document.GetScenario();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Sinks");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Attention sinks: keys 0 .. s\xE2\x88\x92" "1 stay visible to every query causal allows,\n"
                      "whatever the window or the custom cells say (StreamingLLM)");
  ImGui::SameLine();
  int sinks = s.mask.sinks;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.0f);
  if (ImGui::InputInt("##sinks", &sinks, 1, 1) && sinks >= 0 && sinks != s.mask.sinks)
    state.document.ApplyEdit(kMaskSource, [sinks](attnlab::Scenario& e) { attnlab::set_mask_sinks(e, sinks); });
  MarkLastItem(state.on_control, "mask sinks");
}

void CausalAndButtons(AppState& state) {
  const attnlab::Scenario& s = state.document.GetScenario();
  bool causal = s.mask.causal;
  if (ImGui::Checkbox("Causal", &causal))
    state.document.ApplyEdit(kMaskSource, [causal](attnlab::Scenario& e) { attnlab::set_causal(e, causal); });
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Query i may attend key j only when j \xE2\x89\xA4 i (by position)");
  ImGui::SameLine();
  WindowControl(state);
  SinksControl(state);  // a line of its own: beside causal and the window it is cut off at 1280 px
  SameLineIfFits(ButtonWidth("Clear"));
  ImGui::BeginDisabled(s.mask.empty());
  if (ImGui::Button("Clear"))
    state.document.ApplyEdit(kMaskSource, [](attnlab::Scenario& e) { attnlab::clear_mask(e); });
  ImGui::EndDisabled();
  MarkLastItem(state.on_control, "mask clear");
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Clear the mask: no causal, no padding, no custom cells");
  SameLineIfFits(ButtonWidth("Bake"));
  // Causal and padding folded into custom cells, so every cell becomes clickable.
  ImGui::BeginDisabled(!s.mask.causal && s.mask.padding.empty() && s.mask.window == 0 && s.mask.sinks == 0);
  if (ImGui::Button("Bake")) state.document.ApplyEdit(kMaskSource, [](attnlab::Scenario& e) { attnlab::bake_mask(e); });
  ImGui::EndDisabled();
  MarkLastItem(state.on_control, "mask bake");
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Bake causal, the window, the sinks and padding into custom cells you can click one by one");
}

void PaddingRow(AppState& state, const std::vector<std::string>& keys) {
  const attnlab::Scenario& s = state.document.GetScenario();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Padding keys:");
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  for (int j = 0; j < static_cast<int>(keys.size()); ++j) {
    const std::string label = keys[static_cast<std::size_t>(j)] + "##pad" + std::to_string(j);
    const float w = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
                    ImGui::CalcTextSize(keys[static_cast<std::size_t>(j)].c_str()).x;
    ImGui::SameLine();
    if (ImGui::GetCursorScreenPos().x + w > right) ImGui::NewLine();
    bool pad = IsPadding(s, j);
    if (ImGui::Checkbox(label.c_str(), &pad)) {
      state.document.ApplyEdit(kMaskSource, [j, pad](attnlab::Scenario& e) { attnlab::set_padding(e, j, pad); });
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("No query may attend key %d", j);
  }
}

struct Grid {
  int rows = 0, cols = 0;
  float cell = 0, label_w = 0, header_h = 0;
  float turned_h = 0;  // the column labels' height when turned a quarter (0: upright)
  ImVec2 origin;       // top-left of cell (0, 0)
};

float TextW(const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; }

// Every step-th column label shortened to `room`, or none when two of them would read alike.
std::vector<std::pair<int, std::string>> DistinctColumnLabels(const AxisLabels& labels, int cols,
                                                              int step, float room) {
  std::vector<std::string> every;
  for (int c = 0; c < cols; c += step) every.push_back(labels.cols[std::size_t(c)]);
  const std::vector<std::string> shown = ElideEach(every, room, TextW);
  if (!TellsApart(shown)) return {};
  std::vector<std::pair<int, std::string>> out;
  for (std::size_t k = 0; k < shown.size(); ++k) out.emplace_back(int(k) * step, shown[k]);
  return out;
}

// The labels drawn: every k-th when cells are small, shortened in the middle ("w…_1") so that
// labels with a common beginning stay apart.
DrawnLabels MaskLabels(const Grid& g, const AxisLabels& labels) {
  DrawnLabels out;
  if (g.turned_h > 0) {  // turned: every k-th whole (or shortened to the header's height)
    for (int c = 0; c < g.cols; c += LabelStride(ImGui::GetTextLineHeight(), g.cell))
      out.cols.emplace_back(c, ElideMiddle(labels.cols[std::size_t(c)], g.turned_h, TextW));
  }
  for (int step = 1; step <= g.cols && out.cols.empty(); ++step)
    out.cols = DistinctColumnLabels(labels, g.cols, step, step * g.cell - 2.0f);
  const int row_step = LabelStride(ImGui::GetTextLineHeight(), g.cell);
  for (int r = 0; r < g.rows; r += row_step)
    out.rows.emplace_back(r, ElideMiddle(labels.rows[std::size_t(r)], g.label_w - 6.0f, TextW));
  return out;
}

void DrawLabels(ImDrawList* dl, const Grid& g, const AxisLabels& labels, const DrawnLabels& drawn) {
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim = ImGui::ColorConvertFloat4ToU32(DimTextColor());
  const float lh = ImGui::GetTextLineHeight();
  // Centred on its column; one wider than its column (every k-th drawn) starts at its left edge.
  for (const auto& [c, t] : drawn.cols)
    if (g.turned_h > 0)
      AddVerticalText(dl, ImVec2(g.origin.x + c * g.cell + (g.cell - lh) * 0.5f, g.origin.y - 4.0f), text, t.c_str());
    else
      dl->AddText(ImVec2(g.origin.x + c * g.cell + std::max(0.0f, (g.cell - TextW(t)) * 0.5f),
                       g.origin.y - lh - 2.0f),
                text, t.c_str());
  for (const auto& [r, t] : drawn.rows)
    dl->AddText(
        ImVec2(g.origin.x - TextW(t) - 6.0f, g.origin.y + r * g.cell + (g.cell - lh) * 0.5f), text,
        t.c_str());
  // Axis names as the heatmaps have them: what runs down (left, above the row labels) and what
  // runs across (centred over the columns); the columns layout swaps them.
  const float grid_w = g.cell * g.cols;
  dl->AddText(ImVec2(g.origin.x + std::max(0.0f, (grid_w - TextW(labels.col_axis)) * 0.5f),
                     g.origin.y - g.header_h),
              dim, labels.col_axis);
  dl->AddText(ImVec2(g.origin.x - TextW(labels.row_axis) - 6.0f, g.origin.y - lh - 2.0f), dim,
              labels.row_axis);
}

// The whole label under the mouse on either axis.
void LabelTooltip(const Grid& g, const AxisLabels& labels) {
  const ImVec2 m = ImGui::GetIO().MousePos;
  const int c = int(std::floor((m.x - g.origin.x) / g.cell));
  const int r = int(std::floor((m.y - g.origin.y) / g.cell));
  if (m.x < g.origin.x && r >= 0 && r < g.rows)
    ImGui::SetTooltip("%s %d: %s", labels.row_axis, r, labels.rows[std::size_t(r)].c_str());
  else if (m.y < g.origin.y && c >= 0 && c < g.cols)
    ImGui::SetTooltip("%s %d: %s", labels.col_axis, c, labels.cols[std::size_t(c)].c_str());
}

// The letters in a forbidden cell: C causal, W window, P padding, X custom (a sink key: neither W
// nor X, it stays visible whatever they say).
std::string ReasonLetters(const attnlab::Scenario& s, int i, int j) {
  std::string out;
  const int p = s.position(i), c = s.context_position(j);
  const bool sink = s.mask.sink(j) && !IsPadding(s, j);
  if (s.mask.causal && c > p) out += "C";
  if (!sink && s.mask.window > 0 && std::abs(p - c) >= s.mask.window) out += "W";
  if (IsPadding(s, j)) out += "P";
  if (!sink && s.mask.cells) {
    const bool cols = ColumnsLayout(s);
    const attnlab::Matrix& m = *s.mask.cells;
    const int r = cols ? j : i, c = cols ? i : j;
    if (r < m.rows() && c < m.cols() && m(r, c) == 0.0) out += "X";
  }
  return out;
}

void DrawCells(ImDrawList* dl, const Grid& g, const attnlab::Scenario& s, int hover_r, int hover_c) {
  const bool cols = ColumnsLayout(s);
  ImFont* mono = GetFonts().mono ? GetFonts().mono : ImGui::GetFont();
  const bool letters = g.cell >= mono->FontSize * 1.6f;
  const float gap = g.cell >= 10.0f ? 1.0f : 0.0f;
  // Only the cells in view: at 2048 tokens the grid is 4M cells, a string each.
  const ImVec2 clip_min = dl->GetClipRectMin(), clip_max = dl->GetClipRectMax();
  const int r0 = std::max(0, int((clip_min.y - g.origin.y) / g.cell));
  const int r1 = std::min(g.rows, int((clip_max.y - g.origin.y) / g.cell) + 1);
  const int c0 = std::max(0, int((clip_min.x - g.origin.x) / g.cell));
  const int c1 = std::min(g.cols, int((clip_max.x - g.origin.x) / g.cell) + 1);
  for (int r = r0; r < r1; ++r)
    for (int c = c0; c < c1; ++c) {
      const int i = cols ? c : r, j = cols ? r : c;
      const std::string why = ReasonLetters(s, i, j);
      const ImVec2 a(g.origin.x + c * g.cell, g.origin.y + r * g.cell);
      const ImVec2 b(a.x + g.cell - gap, a.y + g.cell - gap);
      dl->AddRectFilled(a, b, ToU32(why.empty() ? kAllowedFill : kMaskedFill));
      if (!why.empty() && g.cell >= 8.0f) {
        // Diagonals x - y = d, as the Pipeline hatches its -inf cells.
        const float w = b.x - a.x, h = b.y - a.y;
        const float step = std::max(5.0f, std::floor(std::min(w, h) / 4.0f));
        for (float d = -h + step * 0.5f; d < w; d += step)
          dl->AddLine(ImVec2(a.x + std::max(0.0f, d), a.y + std::max(0.0f, -d)),
                      ImVec2(a.x + std::min(w, h + d), a.y + std::min(h, w - d)),
                      ToU32(kMaskedHatch), 1.0f);
      }
      if (!why.empty() && letters) {
        const ImVec2 ts = mono->CalcTextSizeA(mono->FontSize, FLT_MAX, 0.0f, why.c_str());
        dl->AddText(mono, mono->FontSize,
                    ImVec2(a.x + (g.cell - gap - ts.x) * 0.5f, a.y + (g.cell - gap - ts.y) * 0.5f),
                    IM_COL32(235, 235, 240, 255), why.c_str());
      }
      if (r == hover_r && c == hover_c) dl->AddRect(a, b, AccentColor(), 0.0f, 0, 2.0f);
    }
}

// Flips the custom cell at (r, c) (displayed = scenario layout), creating all-ones cells first.
void Toggle(AppState& state, int r, int c) {
  state.document.ApplyEdit(kMaskSource, [r, c](attnlab::Scenario& e) { attnlab::toggle_mask_cell(e, r, c); });
}

void RecordPlacement(AppState& state, const Grid& g, const AxisLabels& labels, DrawnLabels drawn) {
  if (!state.heatmaps || !state.heatmaps->on_drawn) return;
  HeatmapPlacement p = PlacementInCurrentWindow("mask", g.rows, g.cols, g.origin, g.cell,
                                                g.cell >= 10.0f ? 1.0f : 0.0f);
  p.row_labels = std::move(drawn.rows);
  p.col_labels = std::move(drawn.cols);
  p.row_axis = labels.row_axis;
  p.col_axis = labels.col_axis;
  state.heatmaps->on_drawn(p);
}

// The cell size for the room left by the labels: the axis name, then the column labels, upright
// where each fits its column, else turned a quarter (a word no wider than 5 em reads whole).
void FitCells(Grid& g, const AxisLabels& labels) {
  const float fs = ImGui::GetFontSize(), lh = ImGui::GetTextLineHeight();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const auto fit = [&] {
    const float room_w = avail.x - g.label_w - 4.0f;
    const float room_h = std::max(fs * 6.0f, avail.y - g.header_h - fs * 7.0f);  // text below
    g.cell = std::floor(std::clamp(std::min(room_w / g.cols, room_h / g.rows), 3.0f, fs * 2.4f));
  };
  g.header_h = 2.0f * lh + 6.0f;
  fit();
  float widest = 0;
  for (const std::string& l : labels.cols) widest = std::max(widest, TextW(l));
  if (widest <= g.cell - 2.0f) return;
  // Turned, every k-th is drawn (k from the cell): the header as tall as those, refitted twice as
  // the cell it leaves may change k (MaskLabels shortens any still taller to the header).
  for (int pass = 0; pass < 2; ++pass) {
    g.turned_h = DrawnLabelsExtent(labels.cols, LabelStride(lh, g.cell), fs * 5.0f, TextW);
    g.header_h = lh + g.turned_h + 8.0f;
    fit();
  }
}

void MaskGrid(AppState& state) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const bool cols = ColumnsLayout(s);
  Grid g;
  g.rows = cols ? s.n_z() : s.n_x();
  g.cols = cols ? s.n_x() : s.n_z();
  const AxisLabels labels = StageLabels(StageId::weights, s, g.rows, g.cols);
  const float fs = ImGui::GetFontSize();
  float widest = TextW(labels.row_axis);
  for (const std::string& l : labels.rows) widest = std::max(widest, std::min(TextW(l), fs * 5.0f));
  g.label_w = widest + 8.0f;
  FitCells(g, labels);
  const ImVec2 pos = ImGui::GetCursorScreenPos();
  g.origin = ImVec2(std::floor(pos.x + g.label_w), std::floor(pos.y + g.header_h));
  const ImVec2 size(g.label_w + g.cell * g.cols, g.header_h + g.cell * g.rows);
  ImGui::InvisibleButton("##maskgrid", size);
  MarkLastItem(state.on_control, "mask grid");  // its header's height, for window tests
  int hr = -1, hc = -1;
  if (ImGui::IsItemHovered()) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const int c = int(std::floor((m.x - g.origin.x) / g.cell));
    const int r = int(std::floor((m.y - g.origin.y) / g.cell));
    if (r >= 0 && c >= 0 && r < g.rows && c < g.cols) hr = r, hc = c;
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  DrawCells(dl, g, s, hr, hc);
  const DrawnLabels drawn = MaskLabels(g, labels);
  DrawLabels(dl, g, labels, drawn);
  RecordPlacement(state, g, labels, drawn);
  if (hr < 0) {
    if (ImGui::IsItemHovered()) LabelTooltip(g, labels);
    return;
  }
  const int i = cols ? hc : hr, j = cols ? hr : hc;
  const std::string why = MaskReason(s, i, j), sink = SinkReason(s, i, j);
  const std::string allowed = sink.empty() ? "allowed" : "allowed (" + sink + ")";
  const std::vector<std::string> q = QueryTokenLabels(s), k = KeyTokenLabels(s);
  ImGui::SetTooltip("query %s \xE2\x86\x92 key %s: %s\nclick to %s", q[std::size_t(i)].c_str(),
                    k[std::size_t(j)].c_str(), why.empty() ? allowed.c_str() : why.c_str(),
                    why.empty() ? "forbid it" : "toggle its custom cell");
  if (ImGui::IsItemClicked(ImGuiMouseButton_Left)) Toggle(state, hr, hc);
}

void Legend() {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float h = ImGui::GetTextLineHeight();
  auto swatch = [&](Rgb8 fill, const char* text) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(p, ImVec2(p.x + h, p.y + h), ToU32(fill));
    ImGui::Dummy(ImVec2(h, h));
    ImGui::SameLine();
    ImGui::TextUnformatted(text);
  };
  swatch(kAllowedFill, "allowed");
  ImGui::SameLine(0.0f, h);
  swatch(kMaskedFill, "forbidden (\xE2\x88\x92\xE2\x88\x9E)");
  ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
  ImGui::TextWrapped("C causal, W window, P padding, X custom cell. Click a cell to toggle its custom cell.");
  ImGui::PopStyleColor();
}

class MaskPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override;
};

}  // namespace

void MaskPanel::Draw(AppState& state) {
  DocumentBanner(state, "Mask");
  // The grid comes right after one row of controls so it stays put while the text below changes.
  CausalAndButtons(state);
  ShowEditError(state.document, kMaskSource);
  MaskGrid(state);
  ImGui::Spacing();
  Legend();
  PaddingRow(state, KeyTokenLabels(state.document.GetScenario()));
  ImGui::PushFont(GetFonts().bold);
  ImGui::TextUnformatted("Mask:");
  ImGui::PopFont();
  ImGui::SameLine();
  ImGui::TextWrapped("%s", Summary(state.document.GetScenario()).c_str());
}

std::unique_ptr<PanelContents> Make() { return std::make_unique<MaskPanel>(); }

}  // namespace attnlab::app::panel_mask
