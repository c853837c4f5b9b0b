#include "widgets/turn_diagram.h"

#include <imgui.h>

#include <cmath>
#include <string>

#include "widgets/theme.h"

namespace attnlab::app {
namespace {

void WrappedIn(const ImVec4& color, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

}  // namespace

// RoPE's turn of one coordinate pair: the pair before (dim) and after (accent) on a circle of its
// length, the arc between them the angle p theta.
void TurnDiagram(const RopeTurn& t, int decimals) {
  const float side = ImGui::GetFontSize() * 7.0f, r = side * 0.42f;
  const ImVec2 top = ImGui::GetCursorScreenPos(), c(top.x + side * 0.5f, top.y + side * 0.5f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim = ImGui::ColorConvertFloat4ToU32(DimTextColor()), accent = AccentColor();
  dl->AddLine(ImVec2(c.x - r * 1.1f, c.y), ImVec2(c.x + r * 1.1f, c.y), dim);
  dl->AddLine(ImVec2(c.x, c.y - r * 1.1f), ImVec2(c.x, c.y + r * 1.1f), dim);
  dl->AddCircle(c, r, dim, 48);
  const double length = std::hypot(t.x, t.y), a0 = std::atan2(t.y, t.x), a1 = a0 + t.angle;
  if (length > 0) {
    const auto at = [&](double a, float radius) { return ImVec2(c.x + radius * float(std::cos(a)), c.y - radius * float(std::sin(a))); };
    const int steps = 24;  // the arc of the turn (screen y points down: angles drawn counter-clockwise)
    for (int k = 0; k < steps; ++k)
      dl->AddLine(at(a0 + t.angle * k / steps, r * 0.35f), at(a0 + t.angle * (k + 1) / steps, r * 0.35f), accent);
    dl->AddLine(c, at(a0, r), dim, 2.0f);
    dl->AddLine(c, at(a1, r), accent, 3.0f);
    dl->AddCircleFilled(at(a1, r), 4.0f, accent);
  }
  ImGui::Dummy(ImVec2(side, side));
  ImGui::SameLine();
  ImGui::BeginGroup();
  // Wrapped at the window's edge: beside the diagram a narrow Inspector has little room left.
  ImGui::TextWrapped("pair (%d, %d)", t.first, t.second);
  WrappedIn(DimTextColor(), "before (" + Num(t.x, decimals) + ", " + Num(t.y, decimals) + ")");
  const double x1 = t.x * std::cos(t.angle) - t.y * std::sin(t.angle), y1 = t.y * std::cos(t.angle) + t.x * std::sin(t.angle);
  WrappedIn(ImGui::ColorConvertU32ToFloat4(accent), "after (" + Num(x1, decimals) + ", " + Num(y1, decimals) + ")");
  const double degrees = std::fmod(t.angle * 180.0 / M_PI, 360.0);
  ImGui::TextWrapped("turned by %s rad (%s\xC2\xB0 past whole turns)", Num(t.angle, decimals).c_str(), Num(degrees, 0).c_str());
  WrappedIn(DimTextColor(), "same length: " + Num(std::hypot(t.x, t.y), decimals));
  ImGui::EndGroup();
}

}  // namespace attnlab::app
