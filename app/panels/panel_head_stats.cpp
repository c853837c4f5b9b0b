#include "panels/panel_head_stats.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "attnlab/head_stats.h"
#include "attnlab/numbering.h"
#include "session/trace_worker.h"
#include "view/stage_labels.h"
#include "widgets/control_marks.h"
#include "widgets/matrix_editor.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_head_stats {
namespace {

struct Measure {
  const char* name;
  const char* short_name;  // the radio button's
  const char* unit;
  const char* explain;
};
const Measure kMeasures[] = {
    {"entropy", "entropy", "nats", "-sum_j a_ij ln a_ij: 0 when a query looks at one key, ln n when it spreads evenly"},
    {"largest weight", "peak", "", "max_j a_ij: how sharply the query's attention peaks"},
    {"keys for 90%", "keys 90%", "keys", "the fewest keys that hold 90% of the query's attention"},
    {"weight on the first key", "first key", "", "a_i0: heads that park attention on the first token (a sink)"},
    {"mean distance", "distance", "positions", "sum_j a_ij |i - j|: how far back (or ahead) the head looks"},
};
constexpr int kMeasureCount = int(sizeof kMeasures / sizeof kMeasures[0]);

// Measure m of query i.
double ValueOf(const attnlab::HeadStats& s, int m, std::size_t i) {
  switch (m) {
    case 0: return s.entropy[i];
    case 1: return s.max_weight[i];
    case 2: return s.keys_for_90[i];
    case 3: return s.first_key[i];
    default: return s.mean_distance[i];
  }
}

double MeanOf(const attnlab::HeadStats& s, int m) {
  const std::size_t n = s.entropy.size();
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += ValueOf(s, m, i);
  return n ? sum / double(n) : 0.0;
}

class HeadStatsPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override {
    const attnlab::Trace& trace = state.document.GetTrace();
    const attnlab::Scenario* scenario = state.document.TraceScenario();
    if (trace.heads.empty() || !scenario) {
      ImGui::TextDisabled("No trace yet.");
      return;
    }
    // One sort per query and head: seconds at 2048 tokens x 8 heads, too long for the UI thread.
    if (ComputeOffThread(*scenario)) {
      ImGui::TextDisabled("Too large to rank live; attnlab-cli compute prints every head's stats.");
      return;
    }
    if (computed_for_ != state.document.TraceVersion() || stats_.size() != trace.heads.size()) {
      stats_.clear();
      for (std::size_t h = 0; h < trace.heads.size(); ++h) stats_.push_back(attnlab::head_stats(trace, h));
      computed_for_ = state.document.TraceVersion();
    }
    MeasureChoice(state);
    Ranking(state);
    if (measure_ == 0) {
      const long keys = scenario->n_z();
      ImGui::TextColored(DimTextColor(), "uniform over all %ld keys: ln %ld = %.3f nats", keys, keys, std::log(double(keys)));
    }
    ImGui::Separator();
    QueryTable(state, *scenario);
  }

 private:
  // One radio button a measure, wrapping when the panel is narrow: one click to re-rank.
  void MeasureChoice(AppState& state) {
    ImGui::TextUnformatted("Rank heads by");
    for (int m = 0; m < kMeasureCount; ++m) {
      if (m > 0) SameLineIfFits(RadioButtonWidth(kMeasures[m].short_name));
      ImGui::RadioButton(kMeasures[m].short_name, &measure_, m);
      MarkLastItem(state.on_control, ("stats measure " + std::to_string(m)).c_str());
    }
    ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
    ImGui::TextWrapped("%s: %s (mean over the queries)", kMeasures[measure_].name, kMeasures[measure_].explain);
    ImGui::PopStyleColor();
  }

  // One bar a head, longest first; a click selects the head.
  void Ranking(AppState& state) {
    std::vector<int> order(stats_.size());
    std::iota(order.begin(), order.end(), 0);
    std::vector<double> mean(stats_.size());
    double top = 1e-12;
    for (std::size_t h = 0; h < stats_.size(); ++h) top = std::max(top, mean[h] = MeanOf(stats_[h], measure_));
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return mean[a] > mean[b]; });
    const float fs = ImGui::GetFontSize();
    const float label_w = ImGui::CalcTextSize("head 88 ").x, value_w = ImGui::CalcTextSize("00.000 positions").x;
    const float bar_room = std::max(fs * 3.0f, ImGui::GetContentRegionAvail().x - label_w - value_w);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (int h : order) {
      ImGui::PushID(h);
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float row_h = ImGui::GetFrameHeight();
      if (ImGui::InvisibleButton("##bar", ImVec2(label_w + bar_room + value_w, row_h))) state.SelectHead(h);
      MarkLastItem(state.on_control, ("stats bar " + std::to_string(h)).c_str());
      if (h == state.ui.selected_head)
        dl->AddRectFilled(p, ImVec2(p.x + label_w + bar_room + value_w, p.y + row_h), ImGui::GetColorU32(ImGuiCol_Header));
      char buf[64];
      std::snprintf(buf, sizeof buf, "%s", attnlab::head_label(h).c_str());
      const float text_y = p.y + (row_h - fs) * 0.5f;
      dl->AddText(ImVec2(p.x, text_y), ImGui::GetColorU32(ImGuiCol_Text), buf);
      const float w = float(bar_room * mean[std::size_t(h)] / top);
      dl->AddRectFilled(ImVec2(p.x + label_w, p.y + row_h * 0.15f), ImVec2(p.x + label_w + std::max(1.0f, w), p.y + row_h * 0.85f),
                        HeadColor(h));
      std::snprintf(buf, sizeof buf, "%.3f %s", mean[std::size_t(h)], kMeasures[measure_].unit);
      dl->AddText(ImVec2(p.x + label_w + bar_room + fs * 0.3f, text_y), ImGui::GetColorU32(ImGuiCol_Text), buf);
      ImGui::PopID();
    }
  }

  // The selected head, query by query: every measure.
  void QueryTable(AppState& state, const attnlab::Scenario& scenario) {
    const int head = std::clamp(state.ui.selected_head, 0, int(stats_.size()) - 1);
    const attnlab::HeadStats& s = stats_[std::size_t(head)];
    ImGui::Text("Head %s, query by query", attnlab::index_text(head).c_str());
    const std::vector<std::string> queries = QueryTokenLabels(scenario);
    const std::vector<std::string> keys = KeyTokenLabels(scenario);
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit |
                                  ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY;
    if (!ImGui::BeginTable("##per query", 6, flags, ImVec2(0, 0))) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    for (const char* title : {"query", "entropy", "peak (key)", "keys 90%", "first key", "distance"})
      ImGui::TableSetupColumn(title);
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < s.entropy.size(); ++i) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(i < queries.size() ? queries[i].c_str() : std::to_string(i).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.3f", s.entropy[i]);
      ImGui::TableNextColumn();
      const int key = s.argmax[i];
      if (key < 0) ImGui::TextDisabled("none");
      else ImGui::Text("%.3f (%s)", s.max_weight[i], std::size_t(key) < keys.size() ? keys[std::size_t(key)].c_str() : "?");
      ImGui::TableNextColumn();
      ImGui::Text("%d", s.keys_for_90[i]);
      ImGui::TableNextColumn();
      ImGui::Text("%.3f", s.first_key[i]);
      ImGui::TableNextColumn();
      ImGui::Text("%.3f", s.mean_distance[i]);
    }
    ImGui::EndTable();
  }

  int measure_ = 0;
  std::uint64_t computed_for_ = 0;
  std::vector<attnlab::HeadStats> stats_;
};

}  // namespace

std::unique_ptr<PanelContents> Make() { return std::make_unique<HeadStatsPanel>(); }

}  // namespace attnlab::app::panel_head_stats
