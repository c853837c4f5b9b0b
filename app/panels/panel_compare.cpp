#include "panels/panel_compare.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/numbering.h"
#include "panels/stage_heatmap.h"
#include "view/trace_compare.h"
#include "widgets/control_marks.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_compare {
namespace {

std::string StageTitle(const StageComparison& c) {
  std::string title = c.diff.stage;
  if (c.diff.head >= 0) title += ", " + attnlab::head_label(c.diff.head);
  return title;
}

std::string ChangeText(const StageComparison& c) {
  char buf[96];
  if (std::isinf(c.diff.max_abs_diff))
    std::snprintf(buf, sizeof buf, "the mask changed (at [%ld][%ld])", c.diff.row, c.diff.col);
  else
    std::snprintf(buf, sizeof buf, "largest change %.4g at [%ld][%ld]", c.diff.max_abs_diff, c.diff.row, c.diff.col);
  return buf;
}

class ComparePanel final : public PanelContents {
 public:
  void Draw(AppState& state) override {
    Buttons(state);
    if (!state.reference) {
      DimTextWrapped("Keep the current numbers as a reference, then edit: every stage is shown beside the "
          "reference with their difference, so you see exactly which stages an edit reaches, and by how much.");
      return;
    }
    const attnlab::Trace& trace = state.document.GetTrace();
    if (trace.heads.empty() || state.document.TraceStale()) {
      ImGui::TextDisabled("Computing...");
      return;
    }
    Refresh(state, trace);
    if (!error_.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
      ImGui::TextWrapped("Cannot compare: %s. Keep a new reference.", error_.c_str());
      ImGui::PopStyleColor();
      return;
    }
    Summary(state.ui.selected_head);
    ImGui::Separator();
    ImGui::BeginChild("##stages", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    MarkRect(state.on_control, {"", "compare stages", 0, 0, 0, 0, 0, 0}, ImGui::GetWindowPos(),
             ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x, ImGui::GetWindowPos().y + ImGui::GetWindowSize().y));
    for (std::size_t k = 0; k < stages_.size(); ++k)
      if (stages_[k].changed()) DrawStage(state, k);
    ImGui::EndChild();
  }

 private:
  void Buttons(AppState& state) {
    if (ImGui::Button("Keep as reference")) state.KeepReference();
    MarkLastItem(state.on_control, "keep reference");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Snapshot the current numbers to compare the next edits with");
    if (!state.reference) return;
    ImGui::SameLine();
    if (ImGui::Button("Forget")) state.reference.reset();
    ImGui::SameLine();
    const std::uint64_t edits = state.document.Version() - state.reference->version;
    DimTextWrapped(edits == 0 ? "reference kept: edit something to see the difference"
                   : "comparing with the reference kept " + std::to_string(edits) + " version(s) ago");
  }

  // The comparison is recomputed only when the trace, the reference or the head changes.
  void Refresh(AppState& state, const attnlab::Trace& trace) {
    const int head = state.ui.selected_head;
    if (for_trace_ == state.document.TraceVersion() && for_reference_ == state.reference.get() && for_head_ == head) return;
    for_trace_ = state.document.TraceVersion();
    for_reference_ = state.reference.get();
    for_head_ = head;
    ++data_version_;
    error_.clear();
    stages_.clear();
    try {
      stages_ = CompareHead(trace, state.reference->trace, head);
    } catch (const attnlab::ScenarioError& e) {
      error_ = e.what();
    }
    outlined_.clear();
    for (const StageComparison& c : stages_) outlined_.push_back({{int(c.diff.row), int(c.diff.col)}});
  }

  // "Changed in head 1: Q, scores, ...; in every head's output: concat, output".
  void Summary(int head) {
    std::string changed, same;
    for (const StageComparison& c : stages_) {
      std::string& list = c.changed() ? changed : same;
      const bool shared = c.diff.head < 0;
      const std::string name = shared && c.diff.stage == "output" ? "final output" : c.diff.stage;
      list += (list.empty() ? "" : ", ") + name;
    }
    ImGui::TextWrapped("Changed (%s and after): %s", attnlab::head_label(head).c_str(),
                       changed.empty() ? "nothing" : changed.c_str());
    if (!same.empty()) DimTextWrapped("Unchanged: " + same);
  }

  // Current, reference and difference side by side, the cells as large as the width allows.
  void DrawStage(AppState& state, std::size_t k) {
    const StageComparison& c = stages_[k];
    ImGui::PushID(int(k));
    ImGui::Text("%s", StageTitle(c).c_str());
    ImGui::SameLine();
    ImGui::TextColored(WarningTextColor(), "%s", ChangeText(c).c_str());
    const float fs = ImGui::GetFontSize();
    const float room = ImGui::GetContentRegionAvail().x / 3.0f - fs * 4.0f;
    const float cell = std::clamp(std::floor(room / float(std::max<Eigen::Index>(1, c.current.cols()))), 6.0f, fs * 3.0f);
    const bool weights = c.stage == StageId::weights;
    const int head = std::max(0, c.diff.head);
    const std::uint64_t v = data_version_;
    const StageMatrix mats[] = {{c.stage, "now", &c.current, v, weights, nullptr, 0, 0, false, head},
                                {c.stage, "reference", &c.reference, v, weights, nullptr, 0, 0, false, head},
                                {c.stage, "difference", &c.difference, v, false, nullptr, 0, 0, false, head}};
    const char* prefixes[] = {"cmp-now/", "cmp-ref/", "cmp-diff/"};
    for (int m = 0; m < 3; ++m) {
      if (m > 0) ImGui::SameLine(0.0f, fs);
      StageHeatmap heatmap(state, mats[m], cell, prefixes[m]);
      heatmap.Spec().legend = m != 1;  // the reference shares the current matrix's map
      if (m == 2) heatmap.Spec().outlined = &outlined_[k];
      ImGui::BeginGroup();
      heatmap.Draw();
      ImGui::EndGroup();
    }
    ImGui::Spacing();
    ImGui::PopID();
  }

  std::vector<StageComparison> stages_;
  std::vector<std::vector<std::pair<int, int>>> outlined_;
  std::string error_;
  std::uint64_t for_trace_ = 0, data_version_ = 0;
  const TraceReference* for_reference_ = nullptr;
  int for_head_ = -1;
};

}  // namespace

std::unique_ptr<PanelContents> Make() { return std::make_unique<ComparePanel>(); }

}  // namespace attnlab::app::panel_compare
