#include "panels/panel_heads.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

#include "attnlab/edits.h"
#include "attnlab/numbering.h"
#include "panels/document_banner.h"
#include "panels/heads_layout.h"
#include "panels/panel_requests.h"
#include "session/trace_worker.h"
#include "view/heads_hint.h"
#include "view/label_fit.h"
#include "view/stage_labels.h"
#include "widgets/computing_badge.h"
#include "widgets/control_marks.h"
#include "widgets/edit_error.h"
#include "widgets/heatmap.h"
#include "widgets/heatmap_legend.h"
#include "widgets/heatmap_marks.h"
#include "widgets/matrix_editor.h"
#include "widgets/panel_tooltip.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_heads {
namespace {

// Large matrices (textures) shrink until every head is in view: 8 heads of 256 tokens at one
// pixel a cell need 8 grids of 256 x 256, more than the panel has. Below one pixel a cell the
// heatmap pools blocks of cells into each pixel (heatmap_pooling.h). The room left for the grid
// is measured with a 1-pixel trial cell (title and labels do not depend on it).
void FitTextureCells(AppState& state, HeatmapSpec& spec, ImVec2 room) {
  const int rows = int(spec.values->rows()), cols = int(spec.values->cols());
  spec.cell = 1.0f;
  const ImVec2 trial = HeatmapSize(*state.heatmaps, spec);
  const float grid_w = std::max(8.0f, room.x - std::max(0.0f, trial.x - cols));
  const float grid_h = std::max(8.0f, room.y - (trial.y - rows));
  spec.cell = FitCellSize(rows, cols, grid_w, grid_h, state.ui.decimals);
}

// Labels and cell size for a multiple in `room`: labels whenever they leave the cells readable
// (they name the rows and columns, worth more to a reader than the values the Pipeline prints
// anyway). A plainer choice wins only with cells 25% larger: "translation" upright above its
// column costs a lot of height, "t…n" little.
LabelChoice FitCells(AppState& state, HeatmapSpec& spec, const AxisLabels& labels, ImVec2 room) {
  const int rows = int(spec.values->rows()), cols = int(spec.values->cols());
  const bool want_labels = spec.labels;
  if (rows > kTextureThreshold || cols > kTextureThreshold) {
    FitTextureCells(state, spec, room);
    return {};
  }
  ApplyLabels(spec, labels, {});
  const float bare = LargestFittingCell(state, spec, room, CellCap());
  const float fs = ImGui::GetFontSize(), short_label = std::round(fs * 2.5f);
  const float tiny_label = std::round(fs * 1.8f);  // an ellipsis and a character or two: "…_1"
  const LabelChoice choices[] = {{true, 0, true},
                                 {true, short_label, true},
                                 {true, short_label, false},
                                 {true, tiny_label, false}};
  const TextWidthFn width = [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; };
  LabelChoice best;
  float best_cell = 0;
  for (const LabelChoice& choice : choices) {
    if (!want_labels) break;
    if (choice.label_max > 0 && !(TellsApart(ElideEach(labels.rows, choice.label_max, width)) &&
                                  TellsApart(ElideEach(labels.cols, choice.label_max, width))))
      continue;  // shortened that much, two tokens would read alike
    ApplyLabels(spec, labels, choice);
    const float labelled = LargestFittingCell(state, spec, room, CellCap());
    // Half a line a cell still names every other row (the heatmap steps its row labels).
    const bool readable = labelled >= 0.5f * fs && labelled >= 0.4f * bare;
    if (readable && labelled > best_cell * 1.25f) {
      best = choice;
      best_cell = labelled;
    }
  }
  ApplyLabels(spec, labels, best);
  spec.cell = best.labels ? best_cell : bare;
  return best;
}

// Scanned once per trace, not every frame: at 2048 tokens that is 4M flags.
struct MaskedCache {
  std::uint64_t version = 0;
  bool any = false;
};

bool AnyMasked(const AppState& state, const attnlab::Trace& trace, MaskedCache& cache) {
  if (cache.version != state.document.TraceVersion()) {
    cache.version = state.document.TraceVersion();
    cache.any = !trace.allowed.all();
  }
  return cache.any;
}

constexpr const char* kSwitchLabel = "on";

// A head's title: "head 2", grouped "head 2 Â· K/V 1" (the key/value head its group shares, when
// kv_head >= 0), or the short "h2Â·kv1" for a narrow slot.
std::string HeadTitle(int h, int kv_head, bool short_form) {
  if (kv_head < 0) return attnlab::head_label(h);
  if (short_form) return attnlab::short_head_label(h) + "\xC2\xB7kv" + attnlab::index_text(kv_head);
  return attnlab::head_label(h) + " \xC2\xB7 K/V " + attnlab::index_text(kv_head);
}

// The width of a title and the "on" checkbox after it on the title's line.
float TitleAndSwitchWidth(const char* title) {
  ImFont* bold = GetFonts().bold ? GetFonts().bold : ImGui::GetFont();
  return bold->CalcTextSizeA(bold->FontSize, 1e9f, 0.0f, title).x + ImGui::GetFontSize() * 1.6f +
         ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(kSwitchLabel).x;
}

// How far the selected head's frame (heatmap.cpp: 3 px wide, 2 px off the grid) reaches past it.
constexpr float kSelectionFrame = 4.0f;
struct Arrangement {
  int columns = 1;
  float spacing = 0;
  float cell = 0;
  LabelChoice labels;
  // Ties go to labels, then to axis names.
  float Score() const {
    return cell + (labels.labels ? 0.5f : 0.0f) + (labels.axes ? 0.25f : 0.0f);
  }
};

// Lecture mode shows one head large with its numbers when the panel has room for them; otherwise
// a hint says where the numbers are: in the panel's whole column, or (too many tokens for its
// width) under the mouse and in the Pipeline. Short ones where the long would push the multiples
// out of a short slot.
struct RoomHint { const char* text; const char* short_text; };
constexpr RoomHint kRoomHint = {"Double-click the Heads tab for the numbers.",
                                "Double-click the tab for numbers."};
constexpr RoomHint kNoRoomHint = {
    "Too many tokens for numbers at this width: hover a cell for its value, or read the selected "
    "head's weights in the Pipeline.",
    "Hover a cell for its number."};

float LegendHeight(bool masked) {
  const float fs = ImGui::GetFontSize();
  return std::ceil(fs * 2.1f + 2.0f) + (masked ? std::ceil(fs * 1.3f) : 0.0f) +
         ImGui::GetStyle().ItemSpacing.y;  // the Spacing() above it
}

// The number of columns that gives the multiples the largest cells in `avail` (the panel may be
// a tall column, a short wide slot in lecture mode, or a square).
Arrangement Arrange(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels,
                    ImVec2 avail, float legend_h) {
  const int heads = int(trace.heads.size());
  const ImGuiStyle& style = ImGui::GetStyle();
  const attnlab::HeadTrace& h0 = trace.heads.front();
  Arrangement best;
  for (int columns = 1; columns <= heads; ++columns) {
    const int rows = (heads + columns - 1) / columns;
    if (columns > 1 && (heads + columns - 2) / (columns - 1) == rows) continue;  // same rows, narrower
    Arrangement a;
    a.columns = columns;
    a.spacing = style.ItemSpacing.x * 2.0f;
    const ImVec2 room(std::floor((avail.x - a.spacing * (columns - 1)) / columns) - kSelectionFrame,
                      std::floor((avail.y - legend_h) / rows - style.ItemSpacing.y));
    char widest[16];
    std::snprintf(widest, sizeof widest, "head %d", heads);
    if (columns > 1 && room.x < TitleAndSwitchWidth(widest)) continue;  // titles and "on" would overlap
    const std::string title = attnlab::head_label(0);  // the spec keeps a pointer to it
    HeatmapSpec spec = SmallMultiple(state, h0.weights, trace.allowed, labels, 0, title.c_str());
    a.labels = FitCells(state, spec, labels, room);
    a.cell = spec.cell;
    if (a.Score() >= best.Score()) best = a;
  }
  return best;
}

void ShowHint(const std::string& hint) {
  ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
  ImGui::TextWrapped("%s", hint.c_str());
  ImGui::PopStyleColor();
  ImGui::Spacing();
}

// Shows the notice at the top (the hint, or while a newer trace computes, the badge) and returns
// the arrangement of the multiples below it. For a scenario the worker computes, hint and badge
// get the same room, so the multiples keep their size (and their textures: 8 rebuilds per edit
// otherwise) while it computes; for the others the hint shows only where it costs the multiples
// little (a short lecture-mode slot drops it). `avail` is the room from `top`, where the badge
// started; `badge_height` the badge's height the last time it was drawn.
Arrangement ShowNoticeAndArrange(AppState& state, const attnlab::Trace& trace,
                                 const AxisLabels& labels, ImVec2 avail, float top, bool computing,
                                 float badge_height, float legend_h) {
  const std::string hint = HeadsHint(trace, labels);
  const float hint_h = ImGui::CalcTextSize(hint.c_str(), nullptr, false, avail.x).y +
                       ImGui::GetStyle().ItemSpacing.y * 2.0f;
  if (ComputeOffThread(state.document.GetScenario())) {
    const float notice_h = std::max(hint_h, badge_height);
    if (!computing) ShowHint(hint);
    ImGui::SetCursorPosY(top + notice_h);
    return Arrange(state, trace, labels, ImVec2(avail.x, avail.y - notice_h), legend_h);
  }
  const Arrangement without = Arrange(state, trace, labels, avail, legend_h);
  const ImVec2 below_hint(avail.x, avail.y - hint_h);
  const Arrangement with = Arrange(state, trace, labels, below_hint, legend_h);
  if (with.cell < 0.9f * without.cell || with.labels.labels != without.labels.labels ||
      with.labels.axes != without.labels.axes)
    return without;
  ShowHint(hint);
  return with;
}

// The head's "on" checkbox, on its title's line after the title, drawn before the heatmap (which
// starts with the title at the cursor) so that it takes the mouse first and costs the multiples no
// height. Unchecking it switches the head off, one undoable edit. Unlabelled (a multiple of the
// strip): the box alone, its tooltip saying what it does.
void HeadSwitch(AppState& state, int h, bool off, const char* title, bool labelled = true) {
  ImFont* bold = GetFonts().bold ? GetFonts().bold : ImGui::GetFont();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const ImVec2 lo(std::floor(at.x), std::floor(at.y));  // where the heatmap puts its title
  const float title_w = bold->CalcTextSizeA(bold->FontSize, 1e9f, 0.0f, title).x;
  ImGui::SetCursorScreenPos(ImVec2(lo.x + title_w + ImGui::GetFontSize() * 0.6f, lo.y));
  ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(ImGui::GetStyle().FramePadding.x, 0.0f));
  bool on = !off;
  char label[32];
  std::snprintf(label, sizeof label, "%s##head on %d", labelled ? kSwitchLabel : "", h);
  const bool changed = ImGui::Checkbox(label, &on);
  ImGui::PopStyleVar();
  if (changed)
    state.document.ApplyEdit("Heads", [h, on](attnlab::Scenario& sc) { attnlab::set_head_off(sc, h, !on); });
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(on ? "Switch %s off: its output is zeroed, it adds nothing to the output"
                         : "Switch %s back on",
                      attnlab::head_label(h).c_str());
  std::snprintf(label, sizeof label, "head on %d", h);
  MarkLastItem(state.on_control, label);
  ImGui::SetCursorScreenPos(at);
}

// Whether a double-click on the Heads tab (the group then takes its whole column, most of the
// window's height) would give the large head its numbers: not when the panel has that height
// already, nor when its width is too narrow for them.
bool ColumnGivesNumbers(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels,
                        ImVec2 avail) {
  const float column = ImGui::GetMainViewport()->WorkSize.y * 0.8f;
  return avail.y < column * 0.75f &&
         ChooseFocus(state, trace, labels, ImVec2(avail.x, column)).values;
}

// Whether the multiples of arrangement `a` print their numbers.
bool MultiplesShowValues(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels,
                         const Arrangement& a) {
  HeatmapSpec spec = SmallMultiple(state, trace.heads.front().weights, trace.allowed, labels, 0, "head 0");
  spec.cell = a.cell;
  ApplyLabels(spec, labels, a.labels);
  return HeatmapShowsValues(*state.heatmaps, spec);
}

void DrawLegend(AppState& state, bool masked) {
  ShowEditError(state.document, "Heads");
  ImGui::Spacing();
  HeatmapLegend(WeightsScale(state.ui.colormap),
                std::min(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 16.0f), masked,
                state.ui.decimals);
}

class HeadsPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override;
  float WantedHeight(AppState& state, float width, float most) override;

 private:
  bool DrawFocus(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels,
                 ImVec2 avail, float legend_h);
  void DrawLargeHead(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels,
                     const Focus& f);
  void DrawStrip(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels,
                 const Focus& f);
  void Pager(const ControlMarks& on_control, int heads, int per_page);

  MaskedCache masked_;
  float badge_height_ = 0;  // of the "Computing..." badge (trace_worker.h), last drawn
  int first_thumb_ = 0;     // the first multiple on the page shown (focus layout)
  int paged_to_ = -1;       // the selected head the page last followed
  int paged_per_page_ = 0;  // and the multiples a page then held
  // WantedHeight's answer, searched again only when what it depends on changes.
  std::tuple<std::uint64_t, int, float, float, float, int> wanted_key_{};
  float wanted_ = 0;
};

// Lecture mode: the height at which the large head prints its numbers with its labels, so that
// the arrangement gives the Heads that room where its column has it (no double-click needed):
// numbers at the mono font's own size within half the column, else the smallest readable ones.
float HeadsPanel::WantedHeight(AppState& state, float width, float most) {
  const attnlab::Trace& trace = state.document.GetTrace();
  if (!state.ui.lecture_mode || state.ui.presenting || trace.heads.empty() ||
      ComputeOffThread(state.document.GetScenario()))
    return 0.0f;
  // The line naming the document (a model open) comes above the heads: their room is below it.
  const float banner = DocumentBannerHeight(state);
  most -= banner;
  const auto key = std::make_tuple(state.document.TraceVersion(), state.ui.selected_head, width,
                                   most, ImGui::GetFontSize(), state.ui.decimals);
  if (key == wanted_key_) return wanted_ > 0 ? wanted_ + banner : 0.0f;
  wanted_key_ = key;
  const attnlab::Matrix& first = trace.heads.front().weights;
  const AxisLabels labels = StageLabels(StageId::weights, state.document.GetScenario(),
                                        int(first.rows()), int(first.cols()));
  const float half_column = (ImGui::GetMainViewport()->WorkSize.y - ImGui::GetFrameHeight()) * 0.5f;
  const float comfortable = std::min(most, half_column);
  float height = FocusHeightForNumbers(state, trace, labels, width, comfortable,
                                       FullSizeValueCell(state.ui.decimals));
  if (height >= comfortable)
    height = FocusHeightForNumbers(state, trace, labels, width, most, 0.0f);
  wanted_ = height < most ? height : 0.0f;
  return wanted_ > 0 ? wanted_ + banner : 0.0f;
}

// Draws the focus layout when lecture mode needs it and it prints the large head's numbers.
bool HeadsPanel::DrawFocus(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels,
                           ImVec2 avail, float legend_h) {
  if (!state.ui.lecture_mode) return false;
  const Arrangement overview = Arrange(state, trace, labels, avail, legend_h);
  const bool overview_values = MultiplesShowValues(state, trace, labels, overview);
  if (overview_values && trace.heads.size() > 1) return false;  // every head's numbers at once
  Focus f = ChooseFocus(state, trace, labels, avail);
  // One head: drawn as the large head where that prints its numbers larger (no legend to keep).
  if (overview_values && (!f.values || f.cell <= overview.cell)) return false;
  // No room for any head's numbers: where they are, the large head's colours if it is still
  // larger than a multiple (a tall, narrow panel), else a row of multiples.
  const char* hint = nullptr;
  if (!f.values) {
    const bool has_column = state.requests && state.requests->GivenColumn("Heads");
    const RoomHint& room =
        !has_column && ColumnGivesNumbers(state, trace, labels, avail) ? kRoomHint : kNoRoomHint;
    const auto height = [&](const char* text) {
      return ImGui::CalcTextSize(text, nullptr, false, avail.x).y + ImGui::GetStyle().ItemSpacing.y * 2.0f;
    };
    const float row_h = ArrangeFocus(state, trace, labels, avail, false).thumb.y;
    hint = avail.y - height(room.text) >= row_h ? room.text : room.short_text;
    const ImVec2 below_hint(avail.x, avail.y - height(hint));
    f = ChooseFocus(state, trace, labels, below_hint);
    if (f.strip && f.cell < 2.0f * ThumbCell()) {  // no large head: the multiples in a row
      f = ArrangeFocus(state, trace, labels, below_hint, false);
      f.cell = 0;
    }
  }
  if (f.per_page < 1) return false;  // not even one multiple fits: the overview as it was
  const int heads = int(trace.heads.size());
  const int selected = std::clamp(state.ui.selected_head, 0, heads - 1);
  // A head chosen elsewhere (keys, the Pipeline, the model grid), or a page of another size (the
  // slot resized): the page starts at the selected head if it is not on it, full where it can be.
  if (selected != paged_to_ || f.per_page != paged_per_page_) {
    paged_to_ = selected;
    paged_per_page_ = f.per_page;
    if (selected < first_thumb_ || selected >= first_thumb_ + f.per_page)
      first_thumb_ = std::min(selected, std::max(0, heads - f.per_page));
  }
  first_thumb_ = std::clamp(first_thumb_, 0, std::max(0, heads - 1));
  if (hint) ShowHint(hint);
  if (f.cell > 0) DrawLargeHead(state, trace, labels, f);
  if (!f.strip) return true;
  if (f.strip_right) ImGui::SameLine(0.0f, ImGui::GetStyle().ItemSpacing.x * 2.0f);
  DrawStrip(state, trace, labels, f);
  return true;
}

void HeadsPanel::DrawLargeHead(AppState& state, const attnlab::Trace& trace,
                               const AxisLabels& labels, const Focus& f) {
  const int h = std::clamp(state.ui.selected_head, 0, int(trace.heads.size()) - 1);
  const attnlab::HeadTrace& ht = trace.heads[std::size_t(h)];
  const attnlab::Scenario& s = state.document.GetScenario();
  char title[40];
  std::snprintf(title, sizeof title, "%s",
                HeadTitle(h, s.grouped() ? ht.kv_head : -1, false).c_str());
  HeatmapSpec spec = LargeHead(state, trace, labels, h, title);
  spec.cell = f.cell;
  ApplyLabels(spec, labels, f.labels);
  const bool off = std::binary_search(s.heads_off.begin(), s.heads_off.end(), h);
  spec.stale = spec.stale || off;
  ImGui::BeginGroup();
  HeadSwitch(state, h, off, title);
  const HeatmapResult r = Heatmap(*state.heatmaps, spec);
  MarkLastItem(state.on_control,
               "heads large head");  // title, labels and grid: tests check they fit
  if (off) DrawOffMarkOverLastHeatmap(f.cell, int(ht.weights.rows()), int(ht.weights.cols()));
  ImGui::EndGroup();
  if (r.hovered) state.ui.hover.Report({StageId::weights, h, r.row, r.col});
  if (r.hovered) MarkTooltip(state.on_control, "heads cell tooltip");
}

// "<  >" above the multiples, when they do not all fit: the previous and the next page (their
// titles name the heads shown).
void HeadsPanel::Pager(const ControlMarks& on_control, int heads, int per_page) {
  if (per_page >= heads) return;
  ImGui::BeginDisabled(first_thumb_ == 0);
  if (ImGui::ArrowButton("##heads back", ImGuiDir_Left)) first_thumb_ = std::max(0, first_thumb_ - per_page);
  ImGui::EndDisabled();
  MarkLastItem(on_control, "heads page back");
  ImGui::SameLine();
  ImGui::BeginDisabled(first_thumb_ + per_page >= heads);
  if (ImGui::ArrowButton("##heads on", ImGuiDir_Right)) first_thumb_ += per_page;
  ImGui::EndDisabled();
  MarkLastItem(on_control, "heads page on");
}

void HeadsPanel::DrawStrip(AppState& state, const attnlab::Trace& trace, const AxisLabels& labels,
                           const Focus& f) {
  const int heads = int(trace.heads.size());
  const float gap_x = ImGui::GetStyle().ItemSpacing.x * 2.0f;
  const attnlab::Scenario& s = state.document.GetScenario();
  ImGui::BeginGroup();
  Pager(state.on_control, heads, f.per_page);
  if (f.per_page < heads && !f.strip_right) ImGui::SameLine(0.0f, gap_x);
  const int last = std::min(heads, first_thumb_ + f.per_page);
  for (int h = first_thumb_; h < last; ++h) {
    char title[32], id[32];
    ThumbTitle(title, h, int(trace.heads[std::size_t(h)].weights.cols()));
    std::snprintf(id, sizeof id, "overview/%d", h);
    HeatmapSpec spec = Thumbnail(state, trace, labels, h, title);
    spec.id = id;
    spec.stale = spec.stale || std::binary_search(s.heads_off.begin(), s.heads_off.end(), h);
    if (!f.strip_right && h > first_thumb_) ImGui::SameLine(0.0f, gap_x);
    ImGui::BeginGroup();
    HeadSwitch(state, h, std::binary_search(s.heads_off.begin(), s.heads_off.end(), h), title, false);
    const HeatmapResult r = Heatmap(*state.heatmaps, spec);
    ImGui::EndGroup();
    if (r.clicked) state.ui.selected_head = h;
    if (r.hovered) state.ui.hover.Report({StageId::weights, h, r.row, r.col});
  }
  ImGui::EndGroup();
}

}  // namespace

void HeadsPanel::Draw(AppState& state) {
  DocumentBanner(state, "Heads");  // first: the room measured below is what the heads have
  const attnlab::Trace& trace = state.document.GetTrace();
  const float top = ImGui::GetCursorPosY();
  const bool computing = ComputingBadge(state.document, trace);
  if (computing) badge_height_ = ImGui::GetCursorPosY() - top;
  if (trace.heads.empty()) return;
  const attnlab::Scenario& s = state.document.GetScenario();
  const int heads = int(trace.heads.size());
  const float fs = ImGui::GetFontSize();
  const attnlab::Matrix& first = trace.heads.front().weights;
  const AxisLabels labels = StageLabels(StageId::weights, s, int(first.rows()), int(first.cols()));
  const bool masked = AnyMasked(state, trace, masked_);
  const float legend_h = LegendHeight(masked);
  const ImVec2 avail(ImGui::GetContentRegionAvail().x,
                     ImGui::GetContentRegionAvail().y + ImGui::GetCursorPosY() - top);
  // The focus layout has no legend: its large head prints the numbers the colours stand for.
  if (DrawFocus(state, trace, labels, ImGui::GetContentRegionAvail(), legend_h)) {
    ShowEditError(state.document, "Heads");
    return;
  }
  const Arrangement a =
      ShowNoticeAndArrange(state, trace, labels, avail, top, computing, badge_height_, legend_h);
  const bool grouped = s.grouped();
  for (int h = 0; h < heads; ++h) {
    const attnlab::HeadTrace& ht = trace.heads[static_cast<std::size_t>(h)];
    char title[40], id[32];
    // Grouped-query attention: each title names the key/value head its group shares.
    // Short where the long one would be wider than the head's grid (a lecture-mode slot).
    std::snprintf(title, sizeof title, "%s",
                  HeadTitle(h, grouped ? ht.kv_head : -1, false).c_str());
    if (grouped && ImGui::CalcTextSize(title).x > a.cell * float(ht.weights.cols()))
      std::snprintf(title, sizeof title, "%s", HeadTitle(h, ht.kv_head, true).c_str());
    std::snprintf(id, sizeof id, "overview/%d", h);
    HeatmapSpec spec = SmallMultiple(state, ht.weights, trace.allowed, labels, h, title);
    spec.id = id;
    spec.cell = a.cell;
    ApplyLabels(spec, labels, a.labels);
    const bool off = std::binary_search(s.heads_off.begin(), s.heads_off.end(), h);
    spec.stale = spec.stale || off;  // dimmed: it adds nothing to the output
    if (h % a.columns != 0) ImGui::SameLine(0.0f, a.spacing);
    ImGui::BeginGroup();
    HeadSwitch(state, h, off, title);
    const HeatmapResult r = Heatmap(*state.heatmaps, spec);
    if (off) DrawOffMarkOverLastHeatmap(a.cell, int(ht.weights.rows()), int(ht.weights.cols()));
    if (grouped) {  // a bar over each head in its key/value head's colour: the groups at a glance
      const ImVec2 lo = ImGui::GetItemRectMin();
      const float width = std::min(ImGui::GetItemRectSize().x, a.cell * float(ht.weights.cols()) + fs * 6.0f);
      ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(lo.x, lo.y - 3.0f), ImVec2(lo.x + width, lo.y - 1.0f),
                                                HeadColor(ht.kv_head));
    }
    ImGui::EndGroup();
    if (r.clicked) state.ui.selected_head = h;
    if (r.hovered) state.ui.hover.Report({StageId::weights, h, r.row, r.col});
    if (r.hovered) MarkTooltip(state.on_control, "heads cell tooltip");
  }
  DrawLegend(state, masked);
}

std::unique_ptr<PanelContents> Make() { return std::make_unique<HeadsPanel>(); }

}  // namespace attnlab::app::panel_heads
