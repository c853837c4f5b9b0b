#include "panels/heads_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "attnlab/numbering.h"
#include "view/label_fit.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_heads {

float LargestFittingCell(AppState& state, HeatmapSpec spec, ImVec2 room, float cap,
                         bool upright_cols) {
  auto fits = [&](float cell) {
    spec.cell = cell;
    if (upright_cols) spec.col_label_max = UprightLabelWidth(cell);
    const ImVec2 size = HeatmapSize(*state.heatmaps, spec);
    return size.x <= room.x && size.y <= room.y;
  };
  float lo = 2.0f, hi = std::max(2.0f, std::floor(cap));
  if (fits(hi)) return hi;
  while (hi - lo > 1.0f) {
    const float mid = std::floor((lo + hi) * 0.5f);
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

float UprightLabelWidth(float cell) { return std::max(1.0f, cell - 4.0f); }

float CellCap() { return std::round(ImGui::GetFontSize() * 5.0f); }

void ApplyLabels(HeatmapSpec& spec, const AxisLabels& labels, const LabelChoice& choice) {
  spec.labels = choice.labels;
  spec.label_max = choice.label_max;
  spec.row_axis = choice.axes ? labels.row_axis : nullptr;
  spec.col_axis = choice.axes ? labels.col_axis : nullptr;
  spec.col_label_max = choice.upright_cols ? UprightLabelWidth(spec.cell) : choice.col_max;
}

namespace {

// Whether labels shortened to `row_max` and `col_max` pixels still tell every token apart.
bool LabelsTellApart(const AxisLabels& labels, float row_max, float col_max) {
  const TextWidthFn width = [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; };
  return (row_max <= 0 || TellsApart(ElideEach(labels.rows, row_max, width))) &&
         (col_max <= 0 || TellsApart(ElideEach(labels.cols, col_max, width)));
}

// The large head of the focus layout (below): its numbers come first, then labels that leave
// them room, as the Pipeline draws them (keys turned when they are long) or shortened: of those,
// the one with the largest numbers, a more naming one winning unless a plainer one's cells are 15%
// larger. Where none leaves the numbers room, keys cut to their cells' width, upright (a short
// slot has one line for them); no labels only when even those leave none.
LabelChoice FitCellsForValues(AppState& state, HeatmapSpec& spec, const AxisLabels& labels,
                              ImVec2 room) {
  const float fs = ImGui::GetFontSize(), short_label = std::round(fs * 2.5f);
  const float tiny_label = std::round(fs * 1.8f);
  // Row labels cost the slot's width, which it often has to spare; column labels its height.
  const LabelChoice choices[] = {{true, 0, true},
                                 {true, 0, false, false, short_label},
                                 {true, 0, false, false, tiny_label},
                                 {true, short_label, false},
                                 {true, tiny_label, false},
                                 {true, 0, false, true}};
  LabelChoice best;
  float best_cell = 0;
  for (const LabelChoice& choice : choices) {
    if (!spec.labels || (choice.upright_cols && best_cell > 0)) break;  // many tokens: no labels
    const float col_max = choice.col_max > 0 ? choice.col_max : choice.label_max;
    if (!LabelsTellApart(labels, choice.label_max, choice.upright_cols ? 0 : col_max)) continue;
    ApplyLabels(spec, labels, choice);
    spec.cell = LargestFittingCell(state, spec, room, CellCap(), choice.upright_cols);
    ApplyLabels(spec, labels, choice);
    if (choice.upright_cols && !LabelsTellApart(labels, 0, spec.col_label_max)) continue;
    if (HeatmapShowsValues(*state.heatmaps, spec) && spec.cell > best_cell * 1.15f) {
      best = choice;
      best_cell = spec.cell;
    }
  }
  ApplyLabels(spec, labels, best);
  spec.cell = best_cell > 0 ? best_cell : LargestFittingCell(state, spec, room, CellCap());
  ApplyLabels(spec, labels, best);
  return best;
}

}  // namespace

HeatmapSpec SmallMultiple(AppState& state, const attnlab::Matrix& weights,
                          const attnlab::BoolArray& allowed, const AxisLabels& labels, int head,
                          const char* title) {
  HeatmapSpec spec;
  spec.title = title;
  spec.values = &weights;
  // While another head is shown ahead of its trace, `allowed` is that head's version's mask:
  // this head's older weights are drawn without it (their masked cells as the 0 they hold).
  const Document& doc = state.document;
  const bool other_ahead = doc.TraceVersion() != doc.WholeTraceVersion() &&
                           doc.HeadVersion(head) == doc.WholeTraceVersion();
  spec.allowed = other_ahead ? nullptr : &allowed;
  spec.scale = WeightsScale(state.ui.colormap);
  spec.decimals = state.ui.decimals;
  spec.legend = false;          // one shared legend below the grid
  spec.shape_in_title = false;  // the hint gives the shape once: narrow multiples keep their names
  spec.selected = head == state.ui.selected_head;
  spec.data_version = state.document.HeadVersion(head);  // the selected head may arrive first
  spec.stale = state.document.HeadStale(head);
  spec.stage = StageId::weights;
  spec.head = head;
  const int longest = int(std::max(weights.rows(), weights.cols()));
  spec.labels = longest <= 12;  // labels on tiny multiples would only be noise
  spec.row_labels = &labels.rows;
  spec.col_labels = &labels.cols;
  return spec;
}

float ThumbCell() { return std::max(6.0f, std::round(ImGui::GetFontSize() * 0.3f)); }

HeatmapSpec Thumbnail(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels, int h,
                      const char* title) {
  HeatmapSpec spec =
      SmallMultiple(state, trace.heads[std::size_t(h)].weights, trace.allowed, labels, h, title);
  spec.labels = false;
  spec.cell = ThumbCell();
  return spec;
}

void ThumbTitle(char (&title)[32], int h, int cols) {
  std::snprintf(title, sizeof title, "%s", attnlab::head_label(h).c_str());
  ImFont* bold = GetFonts().bold ? GetFonts().bold : ImGui::GetFont();
  if (bold->CalcTextSizeA(bold->FontSize, 1e9f, 0.0f, title).x > ThumbCell() * float(cols))
    std::snprintf(title, sizeof title, "%s", attnlab::short_head_label(h).c_str());
}

float TitleAndBoxWidth(const char* title) {
  ImFont* bold = GetFonts().bold ? GetFonts().bold : ImGui::GetFont();
  const float fs = ImGui::GetFontSize();  // the box: a frame without vertical padding, fs square
  return bold->CalcTextSizeA(bold->FontSize, 1e9f, 0.0f, title).x + fs * 0.6f + fs;
}

float PagerHeight() { return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemSpacing.y; }
float PagerWidth() { return ImGui::GetFrameHeight() * 2.0f + ImGui::GetStyle().ItemSpacing.x; }

HeatmapSpec LargeHead(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels, int h,
                      const char* title) {
  HeatmapSpec spec =
      SmallMultiple(state, trace.heads[std::size_t(h)].weights, trace.allowed, labels, h, title);
  spec.id = "focus";
  spec.selected = false;  // the only one this large
  return spec;
}

Focus ArrangeFocus(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels,
                   ImVec2 avail, bool right) {
  const int heads = int(trace.heads.size());
  const ImGuiStyle& style = ImGui::GetStyle();
  const float gap_x = style.ItemSpacing.x * 2.0f, gap_y = style.ItemSpacing.y;
  Focus f;
  f.strip_right = right;
  f.thumb_cell = ThumbCell();
  char title[32];
  ThumbTitle(title, heads - 1, int(trace.heads.front().weights.cols()));
  f.strip = heads > 1;
  f.thumb = f.strip
                ? HeatmapSize(*state.heatmaps, Thumbnail(state, trace, labels, heads - 1, title))
                : ImVec2(0, 0);
  f.thumb.x = f.strip ? std::max(f.thumb.x, TitleAndBoxWidth(title)) : 0.0f;
  const float height = avail.y;
  const auto fitting = [&](float length, float along, float gap) {
    return int(std::floor((length + gap) / (along + gap)));
  };
  f.per_page = !f.strip ? 1
               : right  ? fitting(height, f.thumb.y, gap_y)
                        : fitting(avail.x, f.thumb.x, gap_x);
  if (f.per_page < heads)  // the pager above a column of them, at the left of a row
    f.per_page = right ? fitting(height - PagerHeight(), f.thumb.y, gap_y)
                       : fitting(avail.x - PagerWidth() - gap_x, f.thumb.x, gap_x);
  const bool pager = f.per_page < heads;
  const float strip_w = std::max(f.thumb.x, pager ? PagerWidth() : 0.0f);
  const ImVec2 room = !f.strip ? avail
                      : right  ? ImVec2(avail.x - strip_w - gap_x, height)
                               : ImVec2(avail.x, height - f.thumb.y - gap_y);
  if (f.per_page < 1 || room.x < 8.0f || room.y < 8.0f) return f;  // no large head: no numbers
  const int h = std::clamp(state.ui.selected_head, 0, heads - 1);
  HeatmapSpec big = LargeHead(state, trace, labels, h, "head 8");
  f.labels = FitCellsForValues(state, big, labels, room);
  f.cell = big.cell;
  f.values = HeatmapShowsValues(*state.heatmaps, big);
  return f;
}

Focus ChooseFocus(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels,
                  ImVec2 avail) {
  const Focus right = ArrangeFocus(state, trace, labels, avail, true);
  const Focus below = ArrangeFocus(state, trace, labels, avail, false);
  if (right.values != below.values) return right.values ? right : below;
  if (right.labels.labels != below.labels.labels) return right.labels.labels ? right : below;
  return right.cell >= below.cell ? right : below;
}

float FullSizeValueCell(int decimals) {
  const ImFont* mono = GetFonts().mono ? GetFonts().mono : ImGui::GetFont();
  const std::string widest = "0." + std::string(std::size_t(std::max(decimals, 0)), '0');
  // ValueRoom: the text and 4 pixels of air in the cell, less its 1-pixel gap.
  return std::ceil(mono->CalcTextSizeA(mono->FontSize, 1e9f, 0.0f, widest.c_str()).x) + 5.0f;
}

float FocusHeightForNumbers(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels,
                            float width, float limit, float min_cell) {
  const bool named = trace.heads.front().weights.rows() <= 12;  // SmallMultiple's labels
  const auto enough = [&](float height) {
    const Focus f = ChooseFocus(state, trace, labels, ImVec2(width, height));
    return f.values && f.cell >= min_cell &&
           ((f.labels.labels && !f.labels.upright_cols) || !named);
  };
  float lo = ImGui::GetFontSize() * 4.0f, hi = limit;
  if (!enough(hi)) return limit;
  while (hi - lo > 2.0f) {
    const float mid = std::floor((lo + hi) * 0.5f);
    (enough(mid) ? hi : lo) = mid;
  }
  return std::ceil(hi);
}

}  // namespace attnlab::app::panel_heads
