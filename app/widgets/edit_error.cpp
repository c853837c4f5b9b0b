#include "widgets/edit_error.h"

#include <imgui.h>

#include "widgets/theme.h"

namespace attnlab::app {

void ShowEditError(const Document& document, const char* source) {
  const std::string* err = document.EditErrorFor(source);
  if (!err) return;
  ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
  ImGui::TextWrapped("%s", err->c_str());
  ImGui::PopStyleColor();
  // A refusal below the panel's fold would go unseen: scroll until its last line shows.
  if (!ImGui::IsItemVisible()) ImGui::SetScrollHereY(1.0f);
}

}  // namespace attnlab::app
