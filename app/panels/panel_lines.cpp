#include "panels/panel_lines.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "widgets/attention_lines.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_lines {
namespace {

class LinesPanel final : public PanelContents {
 public:
  // Every token's row in view where the column has the room (the tokens, the swatches and the hint
  // above them), else as much as it has: the rest scrolls.
  float WantedHeight(AppState& state, float /*width*/, float most) override {
    const attnlab::Trace& trace = state.document.GetTrace();
    if (trace.heads.empty()) return 0.0f;
    const attnlab::Matrix& w = trace.heads.front().weights;
    const float tokens = float(std::max(w.rows(), w.cols())) * AttentionLinesRowHeight();
    const float above = (state.ui.lecture_mode ? 0.0f : ImGui::GetTextLineHeightWithSpacing() * 2.0f) +
                        ImGui::GetFrameHeightWithSpacing();
    return std::min(most, tokens + above + ImGui::GetStyle().ItemSpacing.y);
  }

  void Draw(AppState& state) override {
    const attnlab::Trace& trace = state.document.GetTrace();
    const attnlab::Scenario* scenario = state.document.TraceScenario();
    if (trace.heads.empty() || !scenario) {
      ImGui::TextDisabled("No trace yet.");
      return;
    }
    // The class sees the lines; the hint is for whoever holds the mouse.
    if (!state.ui.lecture_mode)
      DimTextWrapped("Queries left, keys right; a line's opacity is its weight. Hover a token for its lines and "
                     "weights; click a head to hide it.");
    // A trace being recomputed is drawn dimmed, as the heatmaps draw theirs.
    const bool stale = state.document.TraceStale();
    if (stale) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.5f);
    DrawAttentionLines(lines_, *scenario, trace, {}, state.on_control);
    if (stale) ImGui::PopStyleVar();
    // Right-click: the figure written as `attnlab-cli export --what lines` writes it.
    if (state.lines_context_menu && ImGui::BeginPopupContextItem("##lines export")) {
      state.lines_context_menu();
      ImGui::EndPopup();
    }
  }

 private:
  AttentionLinesState lines_;
};

}  // namespace

std::unique_ptr<PanelContents> Make() { return std::make_unique<LinesPanel>(); }

}  // namespace attnlab::app::panel_lines
