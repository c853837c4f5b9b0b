#include "panels/panel_decode.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/decode.h"
#include "attnlab/number_format.h"
#include "attnlab/numbering.h"
#include "view/stage_labels.h"
#include "widgets/computing_badge.h"
#include "widgets/control_marks.h"
#include "widgets/heatmap.h"
#include "widgets/heatmap_text.h"
#include "widgets/theme.h"
#include "widgets/timeline.h"

namespace attnlab::app::panel_decode {
namespace {

constexpr int kMaxTokens = 256;        // every step keeps its weights: n^2 / 2 numbers a head
// The caches take at most this share of the panel's height: the new query's weights follow them
// in view (a model layer's 64-row K and V at a font size a cell would fill screens).
constexpr float kCachesShare = 0.55f;
// Every K/V head's cache is drawn up to this many rows of them all (a preset's 2 heads of 2, the
// tiny GPT-2's 2 of 8); beyond, the selected head's alone.
constexpr Eigen::Index kAllCachesRows = 32;

// The decoding of the trace shown, recomputed when that trace or the prefill changes (never
// resolved again: the Model the trace was computed from).
class DecodeCache {
 public:
  const attnlab::Decode* Get(const AppState& state, int prefill) {
    const attnlab::Model* model = state.document.TraceModel();
    if (!model) return nullptr;
    if (model != model_ || state.document.TraceVersion() != version_ || prefill != prefill_) {
      model_ = model;
      version_ = state.document.TraceVersion();
      prefill_ = prefill;
      Compute(*state.document.TraceScenario(), *model);
    }
    return decode_ ? &*decode_ : nullptr;
  }
  const std::string& Error() const { return error_; }
  std::uint64_t Version() const { return version_; }

 private:
  void Compute(const attnlab::Scenario& s, const attnlab::Model& model) {
    decode_.reset();
    error_.clear();
    if (s.n_x() > kMaxTokens) {
      error_ = "Decode shows up to " + std::to_string(kMaxTokens) + " tokens (this scenario has " +
               std::to_string(s.n_x()) + "); attnlab-cli decode has no limit.";
      return;
    }
    try {
      decode_ = attnlab::decode(s, model, std::clamp(prefill_, 0, s.n_x() - 1));
    } catch (const attnlab::ScenarioError& e) {
      error_ = std::string("Decoding needs causal self-attention. ") + e.what();
    }
  }

  const attnlab::Model* model_ = nullptr;
  std::uint64_t version_ = 0;
  int prefill_ = -1;
  std::optional<attnlab::Decode> decode_;
  std::string error_;
};

// What one step shows, rebuilt when the decoding, the step or the head changes.
struct StepView {
  std::vector<attnlab::Matrix> K, V;        // per key/value head: d by (t + 1), a column a token
  attnlab::BoolArray held;                  // d_k by (t + 1): false for an evicted column
  attnlab::BoolArray held_v;                // d_v by (t + 1)
  attnlab::Matrix weights;                  // 1 by (t + 1): the new query's weights, 0 off the cache
  attnlab::BoolArray weights_held;          // 1 by (t + 1)
  std::vector<std::string> tokens, rows_k, rows_v, query;
  std::vector<std::pair<int, int>> outlined;  // row t of the full weights map, in its layout
  double difference = 0;                      // max |decoded - full| over the step's weights and output
  std::string evicted;                        // the tokens no longer held, "0, 1"
};

double Entry(const attnlab::Matrix& m, int i, int j, bool columns) { return columns ? m(j, i) : m(i, j); }

// Largest |decoded - trace| of step `step`: every head's weights (0 off the cache) and the output row.
double Difference(const attnlab::DecodeStep& step, const attnlab::Trace& trace) {
  const bool cols = trace.layout == attnlab::Layout::columns;
  double worst = 0;
  for (std::size_t h = 0; h < step.weights.size() && h < trace.heads.size(); ++h) {
    const attnlab::Matrix& A = trace.heads[h].weights;
    const int n = int(cols ? A.rows() : A.cols());
    std::vector<double> row(std::size_t(n), 0.0);
    for (std::size_t c = 0; c < step.cache.size(); ++c) row[std::size_t(step.cache[c])] = step.weights[h](Eigen::Index(c));
    for (int j = 0; j < n; ++j) worst = std::max(worst, std::abs(row[std::size_t(j)] - Entry(A, step.token, j, cols)));
  }
  for (Eigen::Index c = 0; c < step.output.size(); ++c)
    worst = std::max(worst, std::abs(step.output(c) - Entry(trace.output, step.token, int(c), cols)));
  return worst;
}

StepView BuildStep(const attnlab::Decode& d, const attnlab::DecodeStep& step, const attnlab::Trace& trace,
                   const std::vector<std::string>& labels, int head) {
  StepView v;
  const int t = step.token, columns = t + 1;
  std::vector<bool> in_cache(std::size_t(columns), false);
  for (int j : step.cache) in_cache[std::size_t(j)] = true;
  for (std::size_t g = 0; g < d.K.size(); ++g) {
    v.K.push_back(d.K[g].topRows(columns).transpose());
    v.V.push_back(d.V[g].topRows(columns).transpose());
  }
  const Eigen::Index d_k = d.K.front().cols(), d_v = d.V.front().cols();
  v.held = attnlab::BoolArray::Constant(d_k, columns, true);
  v.held_v = attnlab::BoolArray::Constant(d_v, columns, true);
  v.weights = attnlab::Matrix::Zero(1, columns);
  v.weights_held = attnlab::BoolArray::Constant(1, columns, false);
  for (int j = 0; j < columns; ++j) {
    v.held.col(j).setConstant(in_cache[std::size_t(j)]);
    v.held_v.col(j).setConstant(in_cache[std::size_t(j)]);
    if (!in_cache[std::size_t(j)]) v.evicted += (v.evicted.empty() ? "" : ", ") + std::to_string(j);
  }
  for (std::size_t c = 0; c < step.cache.size(); ++c) {
    v.weights(0, step.cache[c]) = step.weights[std::size_t(head)](Eigen::Index(c));
    v.weights_held(0, step.cache[c]) = true;
  }
  v.tokens.assign(labels.begin(), labels.begin() + columns);
  v.rows_k = IndexLabels(int(d_k));
  v.rows_v = IndexLabels(int(d_v));
  v.query = {labels[std::size_t(t)]};
  const bool cols = trace.layout == attnlab::Layout::columns;
  for (int j = 0; j < int(labels.size()); ++j) v.outlined.emplace_back(cols ? j : t, cols ? t : j);
  v.difference = Difference(step, trace);
  return v;
}

// "0, 1 (sinks: kept whatever the window), 3, 4, 5, 6"
std::string CacheList(const std::vector<int>& cache, const attnlab::MaskSpec& mask) {
  std::string out;
  bool sinks = false;
  for (int j : cache) {
    if (sinks && !mask.sink(j)) out += " (sinks: kept whatever the window)";
    sinks = mask.sink(j);
    out += (out.empty() ? "" : ", ") + std::to_string(j);
  }
  return sinks ? out + " (sinks)" : out;
}

// The cache's size for a class: how one token's entry adds up, then MHA, GQA and MQA side by side.
void CacheSizes(const attnlab::CacheBytes& b, const attnlab::Model& m, int n,
                const ControlMarks& marks) {
  ImGui::TextWrapped("KV cache: %s.", attnlab::cache_bytes_sentence(b, m.d_k, m.d_v).c_str());
  // What a window test reads: the bytes a token's entry takes, as counted.
  MarkLastItem(marks, ("decode bytes per token " + std::to_string(b.scenario.per_token)).c_str());
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_NoHostExtendX;
  if (!ImGui::BeginTable("cache sizes", 5, flags)) return;
  const std::string all = "bytes, " + std::to_string(n) + " tokens", held = "bytes, " + std::to_string(b.peak_tokens) + " held";
  for (const char* header : {"attention", "K/V heads", "bytes per token", all.c_str(), held.c_str()})
    ImGui::TableSetupColumn(header);
  ImGui::TableHeadersRow();
  std::vector<attnlab::CacheSize> rows{b.scenario};
  rows.insert(rows.end(), b.variants.begin(), b.variants.end());
  for (const attnlab::CacheSize& c : rows) {
    ImGui::TableNextRow();
    const std::string cells[] = {c.name, std::to_string(c.kv_heads), std::to_string(c.per_token),
                                 std::to_string(c.sequence), std::to_string(c.held)};
    for (int k = 0; k < 5; ++k) {
      ImGui::TableSetColumnIndex(k);
      ImGui::TextUnformatted(cells[k].c_str());
    }
  }
  ImGui::EndTable();
}

// The full weights map fills the panel's height (once scrolled to) up to GrowingCellMax, and
// never more than its width: no smaller than its numbers need unless the width is shorter (then
// the numbers go, the map is never cut). Its labels and title are measured at `trial` (larger
// cells only turn fewer labels, which takes less room).
float DecodeFillingCell(AppState& state, HeatmapSpec spec, ImVec2 room, float trial) {
  spec.cell = trial;
  const ImVec2 at_trial = HeatmapSize(*state.heatmaps, spec);
  const float rows = float(spec.values->rows()), cols = float(spec.values->cols());
  const float by_w = std::floor((room.x - (at_trial.x - cols * trial)) / cols);
  const float by_h = std::floor((room.y - (at_trial.y - rows * trial)) / rows);
  const float readable =
      std::max(SmallestCellWithValues(spec.decimals), std::min(by_h, GrowingCellMax()));
  return std::max(2.0f, std::min(readable, by_w));
}

class DecodePanel : public PanelContents {
 public:
  void Draw(AppState& state) override {
    const attnlab::Scenario& scenario = state.document.GetScenario();
    if (state.document.name != document_) {  // another file: its own start
      document_ = state.document.name;
      prefill_ = -1;
      timeline_.SetStep(0);
    }
    if (prefill_ < 0) prefill_ = DefaultPrefill(scenario);
    const attnlab::Trace& trace = state.document.GetTrace();
    const bool stale = ComputingBadge(state.document, trace);
    const attnlab::Decode* d = cache_.Get(state, prefill_);
    if (!d) {
      ImGui::TextWrapped("%s", cache_.Error().c_str());
      MarkLastItem(state.on_control, "decode refused");
      return;
    }
    const attnlab::Scenario& s = *state.document.TraceScenario();
    Timeline(state, *d, s.n_x());
    const int head = std::clamp(state.ui.selected_head, 0, int(d->steps.front().weights.size()) - 1);
    const attnlab::DecodeStep& step = d->steps[std::size_t(token_ - d->prefill)];
    Refresh(*d, step, trace, s, head);
    if (stale) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, ImGui::GetStyle().Alpha * kStaleAlpha);
    Lines(state, *d, step, s);
    const float caches_top = ImGui::GetCursorPosY();
    Caches(state, trace, head, caches_top);
    Weights(state, trace, head);
    // The cache's size last: the class first follows the step, then counts its bytes.
    CacheSizes(d->bytes, *state.document.TraceModel(), s.n_x(), state.on_control);
    if (stale) ImGui::PopStyleVar();
  }

 private:
  // The scenario's own start (view.decode.prefill, as a preset gives it), else a quarter.
  static int DefaultPrefill(const attnlab::Scenario& s) {
    const nlohmann::json& v = s.view;
    if (v.contains("decode") && v["decode"].is_object() && v["decode"].contains("prefill") &&
        v["decode"]["prefill"].is_number_integer())
      return std::clamp(v["decode"]["prefill"].get<int>(), 0, std::max(0, s.n_x() - 1));
    return s.n_x() / 4;
  }

  // "Token" [<] [Play] [>] [slider], then the prefill. While presenting the keys step the lesson.
  void Timeline(AppState& state, const attnlab::Decode& d, int n) {
    const int last = n - 1;
    const float fs = ImGui::GetFontSize();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Token");
    ImGui::SameLine();
    TimelineSpec spec;
    spec.id = "decode";
    spec.first = d.prefill;
    spec.last = std::max(d.prefill, last);
    // 0-based like the cache's indices: "3 of 11" read as a count of 11 where there are 12 tokens.
    spec.format = "%d  (tokens 0 to " + std::to_string(last) + ")";
    spec.marks = "decode ";
    spec.keys = !state.ui.presenting;
    // The prefill beside the slider when both fit (the slider at least 16 font sizes), else under it.
    const float prefill_w = ImGui::CalcTextSize("Prefill").x + fs * 7.0f;
    const bool one_line = ImGui::GetContentRegionAvail().x >= fs * 24.0f + prefill_w;
    spec.room_after = one_line ? prefill_w : 0.0f;
    if (timeline_.Draw(spec, state.on_control)) state.ui.animating = true;  // the frame loop keeps drawing
    token_ = timeline_.Step();
    if (one_line) ImGui::SameLine();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Prefill");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(fs * 5.0f);
    int prefill = prefill_;
    if (ImGui::InputInt("##prefill", &prefill, 1, 1)) prefill_ = std::clamp(prefill, 0, last);
    MarkLastItem(state.on_control, "decode prefill");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Tokens computed at once before decoding one at a time");
  }

  void Refresh(const attnlab::Decode& d, const attnlab::DecodeStep& step, const attnlab::Trace& trace,
               const attnlab::Scenario& s, int head) {
    const std::uint64_t key = cache_.Version() * 1000003u + std::uint64_t(step.token) * 4099u +
                              std::uint64_t(d.prefill) * 65537u + std::uint64_t(head);
    if (view_ && key == view_key_) return;
    view_key_ = key;
    view_ = BuildStep(d, step, trace, QueryTokenLabels(s), head);
  }

  void Lines(AppState& state, const attnlab::Decode& d, const attnlab::DecodeStep& step, const attnlab::Scenario& s) {
    const std::string label = QueryTokenLabels(s)[std::size_t(step.token)];
    const std::string prefilled =
        d.prefill == 0 ? "" : "; tokens 0 to " + std::to_string(d.prefill - 1) + " were prefilled at once";
    ImGui::TextWrapped("Step %d of %zu: token %d '%s' joins the cache%s.", step.token - d.prefill + 1, d.steps.size(),
                       step.token, label.c_str(), prefilled.c_str());
    ImGui::TextWrapped("The cache holds %zu tokens: %s.", step.cache.size(), CacheList(step.cache, s.mask).c_str());
    if (!view_->evicted.empty())
      ImGui::TextWrapped("Evicted by the window (no later query may attend them): %s.", view_->evicted.c_str());
    char difference[32];
    std::snprintf(difference, sizeof difference, "%.1e", view_->difference);
    const bool equal = view_->difference <= 1e-12;
    const std::string line = "Decoded row " + std::to_string(step.token) +
                             (equal ? " equals the full computation" : " DIFFERS from the full computation") +
                             ": max difference " + difference;
    ImGui::TextWrapped("%s", line.c_str());
    MarkLastItem(state.on_control, "decode equal");
  }

  HeatmapSpec CacheSpec(AppState& state, const attnlab::Matrix& m, const attnlab::BoolArray& held,
                        const std::vector<std::string>& rows, const std::string& id, const std::string& title) {
    HeatmapSpec spec;
    ids_.push_back(id);
    titles_.push_back(title);
    spec.values = &m;
    spec.allowed = &held;
    spec.row_labels = &rows;
    spec.col_labels = &view_->tokens;
    spec.row_axis = "coordinate";
    spec.col_axis = "cached tokens";
    spec.scale = SignedScale(state.ui.colormap);
    spec.symmetric_range = true;
    spec.decimals = state.ui.decimals;
    spec.data_version = view_key_ + 1;
    const float fs = ImGui::GetFontSize();
    spec.cell = std::clamp(std::floor(fs * 2.0f), 6.0f, fs * 3.0f);
    return spec;
  }

  // The caches' cell: as large as a key/value head's K and V side by side allow once they hold all
  // `tokens` (stable while stepping), at least the cell they had, within GrowingCellMax and the
  // panel's width at this step (a projector's large cells shrink as the cache grows: never cut).
  float CacheCell(AppState& state, const HeatmapSpec& first, int tokens) {
    const float width = ImGui::GetContentRegionAvail().x,
                half = (width - ImGui::GetFontSize()) * 0.5f;
    HeatmapSpec spec = first;
    spec.id = ids_.front().c_str();
    spec.title = titles_.front().c_str();
    const float cols = float(spec.values->cols()),
                over_w = HeatmapSize(*state.heatmaps, spec).x - cols * spec.cell;
    const float n = float(std::max(tokens, 1));
    const float two = std::floor((half - over_w) / n), one = std::floor((width - over_w) / cols);
    // Two a line where they fit larger than the cell they had, else one a line, never cut.
    return std::max(2.0f, std::min({std::max(two, spec.cell), GrowingCellMax(), one}));
  }

  // The K/V heads whose caches are drawn: every one when they hold at most kAllCachesRows rows
  // together, else (a model's 12 heads of 64) the selected head's alone, so that the class sees
  // the cache and the new query's weights without scrolling.
  std::vector<int> ShownKvHeads(const attnlab::Trace& trace, int head) const {
    const int G = int(view_->K.size());
    const Eigen::Index rows = std::max(view_->K.front().rows(), view_->V.front().rows());
    if (G * rows <= kAllCachesRows) {
      std::vector<int> shown(std::size_t(G), 0);
      for (int g = 0; g < G; ++g) shown[std::size_t(g)] = g;
      return shown;
    }
    return {trace.heads[std::size_t(head)].kv_head};
  }

  // The caches' cell within `room_h` for `lines` lines of K and V (measured at a 1-pixel cell:
  // titles and labels do not depend on it), never below 2 pixels: a pixel-wide column of a cache
  // shows nothing (lecture mode at 1280 x 800; the weights then follow a short scroll below).
  float CachesHeightCell(AppState& state, HeatmapSpec spec, int lines, float room_h) {
    spec.cell = 1.0f;
    const float rows = float(spec.values->rows());
    const float over_h =
        HeatmapSize(*state.heatmaps, spec).y - rows + ImGui::GetStyle().ItemSpacing.y;
    return std::max(2.0f, std::floor((room_h / float(lines) - over_h) / rows));
  }

  // Per key/value head, K and V as they are cached, growing by one column a step.
  void Caches(AppState& state, const attnlab::Trace& trace, int head, float top) {
    ids_.clear();
    titles_.clear();
    ids_.reserve(4 * view_->K.size());
    titles_.reserve(4 * view_->K.size());
    // The panel's visible height below the timeline and the lines (not what it scrolls to).
    const float room_h = ImGui::GetWindowHeight() - ImGui::GetStyle().WindowPadding.y - top;
    const std::vector<int> shown = ShownKvHeads(trace, head);
    if (int(shown.size()) < int(view_->K.size())) {
      ImGui::TextWrapped(
          "The cache of K/V head %d, the one %s reads (each of the %zu K/V heads caches its own: "
          "select another head to see its).",
          shown.front(), attnlab::head_label(head).c_str(), view_->K.size());
      MarkLastItem(state.on_control, "decode one kv head");
    }
    std::vector<HeatmapSpec> specs;
    for (int g : shown) {
      const std::string kv = attnlab::index_text(g);
      specs.push_back(CacheSpec(state, view_->K[std::size_t(g)], view_->held, view_->rows_k,
                                "decode K " + kv, "K cache, K/V head " + kv));
      specs.push_back(CacheSpec(state, view_->V[std::size_t(g)], view_->held_v, view_->rows_v,
                                "decode V " + kv, "V cache, K/V head " + kv));
    }
    float x = 0;
    const float fs = ImGui::GetFontSize();
    float cell = CacheCell(state, specs.front(), int(view_->outlined.size()));
    const float rows = float(specs.front().values->rows());
    if (rows * cell * float(shown.size()) >
        room_h * kCachesShare)  // tall caches: fitted to their share
      cell = std::min(
          cell, CachesHeightCell(state, specs.front(), int(shown.size()), room_h * kCachesShare));
    for (std::size_t k = 0; k < specs.size(); ++k) {
      specs[k].id = ids_[k].c_str();
      specs[k].title = titles_[k].c_str();
      specs[k].cell = cell;
      specs[k].value_max = GrowingValueMax(cell);
      const ImVec2 size = HeatmapSize(*state.heatmaps, specs[k]);
      if (k > 0 && x + size.x < ImGui::GetContentRegionAvail().x) ImGui::SameLine(0.0f, fs);
      else x = 0;
      x += size.x + fs;
      ImGui::BeginGroup();
      Heatmap(*state.heatmaps, specs[k]);
      ImGui::EndGroup();
    }
  }

  // The new query's weights over the cache (one row), and the full map with that row outlined, at
  // the one cell that fills the panel (the row's cells line up with the map's columns).
  void Weights(AppState& state, const attnlab::Trace& trace, int head) {
    const float fs = ImGui::GetFontSize();
    if (std::size_t(head) >= trace.heads.size()) return;
    labels_q_ = QueryTokenLabels(*state.document.TraceScenario());
    labels_k_ = KeyTokenLabels(*state.document.TraceScenario());
    const bool cols = trace.layout == attnlab::Layout::columns;
    title_full_ = "full weights, " + attnlab::head_label(head) + " (the decoded row outlined)";
    HeatmapSpec full;
    full.id = "decode full weights";
    full.title = title_full_.c_str();
    full.values = &trace.heads[std::size_t(head)].weights;
    full.allowed = &trace.allowed;
    full.row_labels = cols ? &labels_k_ : &labels_q_;
    full.col_labels = cols ? &labels_q_ : &labels_k_;
    full.row_axis = cols ? "keys" : "queries";
    full.col_axis = cols ? "queries" : "keys";
    full.scale = WeightsScale(state.ui.colormap);
    full.decimals = state.ui.decimals;
    full.outlined = &view_->outlined;
    full.data_version = state.document.TraceVersion() * 31u + std::uint64_t(head) + 3u;
    const ImVec2 room(ImGui::GetContentRegionAvail().x,
                      ImGui::GetWindowHeight() - ImGui::GetStyle().WindowPadding.y * 2.0f);
    full.cell =
        DecodeFillingCell(state, full, room, std::clamp(std::floor(fs * 2.4f), 4.0f, fs * 3.0f));
    full.value_max = GrowingValueMax(full.cell);
    title_row_ = "weights of the new query, " + attnlab::head_label(head);
    HeatmapSpec row;
    row.id = "decode weights";
    row.title = title_row_.c_str();
    row.values = &view_->weights;
    row.allowed = &view_->weights_held;
    row.row_labels = &view_->query;
    row.col_labels = &view_->tokens;
    row.col_axis = "cached tokens";
    row.scale = WeightsScale(state.ui.colormap);
    row.decimals = state.ui.decimals;
    row.data_version = view_key_ + 2;
    row.cell = full.cell;
    row.value_max = full.value_max;
    Heatmap(*state.heatmaps, row);
    Heatmap(*state.heatmaps, full);
  }

  DecodeCache cache_;
  int prefill_ = -1, token_ = 0;
  attnlab::app::Timeline timeline_;
  std::optional<StepView> view_;
  std::uint64_t view_key_ = 0;
  std::vector<std::string> ids_, titles_, labels_q_, labels_k_;
  std::string title_row_, title_full_, document_;
};

}  // namespace

std::unique_ptr<PanelContents> Make() { return std::make_unique<DecodePanel>(); }

}  // namespace attnlab::app::panel_decode
