#include "widgets/computing_badge.h"

#include <imgui.h>

#include "widgets/theme.h"

namespace attnlab::app {

bool ComputingBadge(const Document& document, const attnlab::Trace& shown) {
  if (!document.TraceStale()) return false;
  const attnlab::Scenario& s = document.GetScenario();
  ImGui::PushStyleColor(ImGuiCol_Text, WarningTextColor());
  ImGui::TextWrapped("Computing %d x %d tokens, %d head%s...", s.n_x(), s.n_z(), s.head_count(),
                     s.head_count() == 1 ? "" : "s");
  if (!shown.heads.empty()) ImGui::TextWrapped("Dimmed below: the previous result.");
  ImGui::PopStyleColor();
  return true;
}

}  // namespace attnlab::app
