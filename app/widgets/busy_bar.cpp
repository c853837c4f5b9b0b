#include "widgets/busy_bar.h"

#include <algorithm>
#include <cmath>

namespace attnlab::app {

void BusyBar(const char* label, ImVec2 size) {
  const ImVec2 pos = ImGui::GetCursorScreenPos();
  const float w = size.x > 0 ? size.x : ImGui::GetContentRegionAvail().x;
  const float h = size.y > 0 ? size.y : ImGui::GetFrameHeight();
  ImGui::Dummy(ImVec2(w, h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float rounding = ImGui::GetStyle().FrameRounding;
  dl->AddRectFilled(pos, ImVec2(pos.x + w, pos.y + h), ImGui::GetColorU32(ImGuiCol_FrameBg), rounding);
  // A quarter of the bar crossing it once every 1.25 s, clipped to the frame.
  const float block = w * 0.25f;
  const float t = float(std::fmod(ImGui::GetTime() * 0.8, 1.0));
  const float x0 = pos.x - block + (w + block) * t;
  dl->AddRectFilled(ImVec2(std::max(pos.x, x0), pos.y), ImVec2(std::min(pos.x + w, x0 + block), pos.y + h),
                    ImGui::GetColorU32(ImGuiCol_PlotHistogram), rounding);
  const ImVec2 text = ImGui::CalcTextSize(label);
  dl->AddText(ImVec2(pos.x + std::max(0.0f, (w - text.x) * 0.5f), pos.y + (h - text.y) * 0.5f),
              ImGui::GetColorU32(ImGuiCol_Text), label);
}

}  // namespace attnlab::app
