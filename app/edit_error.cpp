#include "edit_error.h"

#include <imgui.h>

#include "theme.h"

namespace attnlab::app {

void ShowEditError(const AppState& state, const char* source) {
  const std::string* err = state.EditErrorFor(source);
  if (!err) return;
  ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
  ImGui::TextWrapped("%s", err->c_str());
  ImGui::PopStyleColor();
}

}  // namespace attnlab::app
