#include "widgets/computing_badge.h"

#include <imgui.h>

#include "attnlab/numbering.h"
#include "widgets/theme.h"

namespace attnlab::app {

bool ComputingBadge(const Document& document, const attnlab::Trace& shown) {
  if (!document.TraceStale()) return false;
  const attnlab::Scenario& s = document.GetScenario();
  ImGui::PushStyleColor(ImGuiCol_Text, WarningTextColor());
  ImGui::TextWrapped("Computing %d x %d tokens, %d head%s...", s.n_x(), s.n_z(), s.head_count(),
                     s.head_count() == 1 ? "" : "s");
  int done = -1;  // the selected head, computed first, may already be current (Document::HeadStale)
  for (int h = 0; h < int(shown.heads.size()) && done < 0; ++h)
    if (!document.HeadStale(h)) done = h;
  if (done >= 0)
    ImGui::TextWrapped("Head %s is done; dimmed below: the other heads' previous result.",
                       attnlab::index_text(done).c_str());
  else if (!shown.heads.empty())
    ImGui::TextWrapped("Dimmed below: the previous result.");
  ImGui::PopStyleColor();
  return true;
}

}  // namespace attnlab::app
