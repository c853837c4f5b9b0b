#include "panels/panel_sensitivity.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "attnlab/cell_ref.h"
#include "attnlab/number_format.h"
#include "panels/panel_requests.h"
#include "session/trace_worker.h"
#include "view/sensitivity_map.h"
#include "view/stage_labels.h"
#include "widgets/control_marks.h"
#include "widgets/heatmap.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_sensitivity {
namespace {

// The target a pinned cell names, when it is one a sensitivity starts from (stage.h's targets).
std::string PinnedTarget(const HoveredCell& pin) {
  if (!attnlab::stage_row(pin.stage).target) return {};
  return attnlab::stage_cell_ref(pin.stage, pin.head, pin.row, pin.col)->text();
}

constexpr std::size_t kListed = 8;  // the cells that move the target most, at most

class SensitivityPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override {
    FollowPin(state);
    Target(state);
    const attnlab::Scenario& s = state.document.GetScenario();
    if (ComputeOffThread(s)) {
      ImGui::TextDisabled("This scenario is too large for a live sensitivity; try attnlab-cli sensitivity.");
      return;
    }
    const SensitivityMap& map = state.sensitivity.Get(s, state.document.Version(), state.ui.sensitivity_target);
    if (!map.error.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
      ImGui::TextWrapped("%s", map.error.c_str());
      ImGui::PopStyleColor();
      return;
    }
    ImGui::TextWrapped("%s = %s.  How much it moves per unit of each input:", map.target.c_str(),
                       format_significant(map.value, 6).c_str());
    OnInputsToggle(state);
    TopList(state, map);
    ImGui::Separator();
    ImGui::BeginChild("##gradients", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    Heatmaps(state, s, map);
    ImGui::EndChild();
  }

 private:
  // Pinning a cell of the output (or of a head's weights, scores, output) makes it the target.
  void FollowPin(AppState& state) {
    const std::string pinned = PinnedTarget(state.ui.pinned);
    if (pinned.empty() || pinned == last_pin_) return;
    last_pin_ = pinned;
    state.ui.sensitivity_target = pinned;
  }

  void Target(AppState& state) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Target");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1.0f);
    // ImGui keeps its own copy while the field is being typed into; the shared target follows it.
    char typed[96];
    std::snprintf(typed, sizeof typed, "%s", state.ui.sensitivity_target.c_str());
    if (ImGui::InputTextWithHint("##target", "output[0][0], heads[0].weights[1][2]", typed, sizeof typed))
      state.ui.sensitivity_target = typed;
    MarkLastItem(state.on_control, "sensitivity target");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Click a cell of the output or of a head's weights to make it the target.\n"
                        "Indices as stored (the file's layout), heads from 0.");
  }

  // The same gradients painted over the editors themselves, where the numbers are changed.
  static void OnInputsToggle(AppState& state) {
    ImGui::Checkbox("Colour the Inputs by it", &state.ui.sensitivity_on_inputs);
    MarkLastItem(state.on_control, "sensitivity on inputs");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Each Inputs editor colours its cells by how much they move the target\n"
                        "(the same diverging maps as below); the numbers stay the values.");
  }

  // The cells that move the target most and what each is: found once per computed map, not every
  // frame (every non-zero cell of every matrix is a candidate).
  void RefreshTop(const attnlab::Scenario& s, const SensitivityMap& map) {
    if (top_for_ == map.generation) return;
    top_for_ = map.generation;
    top_ = LargestGradients(map, kListed);
    meanings_.clear();
    words_.clear();
    for (const SensitiveCell& c : top_) {
      meanings_.push_back(CellMeaning(s, c.cell));
      words_.push_back(attnlab::cell_ref_words(attnlab::parse_cell_ref(c.cell)));
    }
  }

  void TopList(AppState& state, const SensitivityMap& map) {
    RefreshTop(state.document.GetScenario(), map);
    const std::vector<SensitiveCell>& top = top_;
    if (top.empty()) {
      ImGui::TextDisabled("No input moves it (a masked weight, or a query that attends nothing).");
      return;
    }
    // Up to a third of the panel's height: in lecture mode the heatmaps keep their room.
    const float row_h = ImGui::GetTextLineHeightWithSpacing();
    const std::size_t shown = std::min(top.size(), std::size_t(std::clamp(int(ImGui::GetContentRegionAvail().y / 3.0f / row_h), 3, int(kListed))));
    if (!ImGui::BeginTable("##top", 3, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) return;
    for (std::size_t k = 0; k < shown; ++k) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (ImGui::Selectable(top[k].cell.c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) state.requests->Request(state, SweepRequest{top[k].cell});
      MarkLastItem(state.on_control, ("sensitivity top " + std::to_string(k)).c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("Sweep %s to watch it move the target", words_[k].c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_significant(top[k].grad, 4, true).c_str());
      ImGui::TableNextColumn();
      ImGui::TextColored(DimTextColor(), "%s", meanings_[k].c_str());
    }
    ImGui::EndTable();
  }

  // One diverging heatmap a matrix, flowing left to right.
  void Heatmaps(AppState& state, const attnlab::Scenario& s, const SensitivityMap& map) {
    const float fs = ImGui::GetFontSize();
    float x = 0;
    labels_.resize(map.gradients.size());
    for (std::size_t k = 0; k < map.gradients.size(); ++k) {
      const SensitivityGradient& g = map.gradients[k];
      Labels& l = labels_[k];
      const bool tokens = g.source == "X" || g.source == "Z";
      const bool rows = s.layout == attnlab::Layout::rows;
      const std::vector<std::string> token_labels = g.source == "Z" ? KeyTokenLabels(s) : QueryTokenLabels(s);
      l.rows = tokens && rows && int(token_labels.size()) == g.values.rows() ? token_labels : IndexLabels(int(g.values.rows()));
      l.cols = tokens && !rows && int(token_labels.size()) == g.values.cols() ? token_labels : IndexLabels(int(g.values.cols()));
      l.title = "d / d " + g.source;
      l.id = "sens/" + g.source;
      HeatmapSpec spec;
      spec.id = l.id.c_str();
      spec.title = l.title.c_str();
      spec.values = &g.values;
      spec.row_labels = &l.rows;
      spec.col_labels = &l.cols;
      // -m .. m, m the largest |gradient|; all zero (e.g. a key bias: softmax ignores what every
      // score of a query shares) is drawn in the map's middle. The Inputs colour it the same way.
      spec.scale = DivergingScale(g.values, state.ui.colormap);
      spec.cell = std::clamp(std::floor(fs * 2.2f), 8.0f, fs * 3.0f);
      spec.decimals = state.ui.decimals;
      spec.data_version = map.generation;
      const ImVec2 size = HeatmapSize(*state.heatmaps, spec);
      if (k > 0 && x + size.x < ImGui::GetContentRegionAvail().x) ImGui::SameLine(0.0f, fs);
      else x = 0;
      x += size.x + fs;
      ImGui::BeginGroup();
      Heatmap(*state.heatmaps, spec);
      ImGui::EndGroup();
    }
  }

  struct Labels {
    std::vector<std::string> rows, cols;
    std::string title, id;
  };
  std::string last_pin_;
  std::vector<Labels> labels_;
  std::uint64_t top_for_ = 0;  // the SensitivityMap generation top_ was found in
  std::vector<SensitiveCell> top_;
  std::vector<std::string> meanings_;
  std::vector<std::string> words_;  // each listed cell in the window's words ("of head 2")
};

}  // namespace

std::unique_ptr<PanelContents> Make() { return std::make_unique<SensitivityPanel>(); }

}  // namespace attnlab::app::panel_sensitivity
