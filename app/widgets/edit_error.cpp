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
}

}  // namespace attnlab::app
