#include "widgets/heatmap_legend.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "attnlab/number_format.h"

#include "widgets/theme.h"

namespace attnlab::app {
namespace {

// The range's ends at the chosen precision, without trailing zeros: weights read "0" and "1".
std::string TickText(double v, int decimals) { return attnlab::format_trimmed(v, decimals); }

}  // namespace

void AddHatch(ImDrawList* dl, ImVec2 a, ImVec2 b) {
  // Diagonals x - y = d inside the cell, computed exactly so no clip rect is needed.
  const float w = b.x - a.x, h = b.y - a.y;
  const float step = std::max(5.0f, std::floor(std::min(w, h) / 4.0f));
  for (float d = -h + step * 0.5f; d < w; d += step) {
    const ImVec2 p0(a.x + std::max(0.0f, d), a.y + std::max(0.0f, -d));
    const ImVec2 p1(a.x + std::min(w, h + d), a.y + std::min(h, w - d));
    dl->AddLine(p0, p1, ToU32(kMaskedHatch), 1.0f);
  }
}

float HeatmapLegendHeight(bool has_masked) {
  const float fs = ImGui::GetFontSize();
  return std::ceil(fs * 0.5f + fs * 0.6f + 2.0f + fs) + (has_masked ? std::ceil(fs * 1.3f) : 0.0f);
}

void DrawHeatmapLegend(ImDrawList* dl, ImVec2 at, const ColorScale& scale, float width,
                       bool has_masked, int decimals) {
  const float fs = ImGui::GetFontSize();
  const float bar_h = std::floor(fs * 0.6f);
  const ImVec2 a(at.x, at.y + std::floor(fs * 0.5f));
  const int segments = 48;
  const float seg_w = width / segments;
  for (int i = 0; i < segments; ++i) {
    const ImU32 left = ToU32(MapColor(scale.map, i / double(segments)));
    const ImU32 right = ToU32(MapColor(scale.map, (i + 1) / double(segments)));
    dl->AddRectFilledMultiColor(ImVec2(a.x + i * seg_w, a.y),
                                ImVec2(a.x + (i + 1) * seg_w + 0.5f, a.y + bar_h), left, right,
                                right, left);
  }
  const ImU32 dim = ImGui::ColorConvertFloat4ToU32(DimTextColor());
  const float ty = a.y + bar_h + 2.0f;
  const std::string lo = TickText(scale.lo, decimals);
  const std::string mid = TickText(0.5 * (scale.lo + scale.hi), decimals);
  const std::string hi = TickText(scale.hi, decimals);
  dl->AddText(ImVec2(a.x, ty), dim, lo.c_str());
  const float mid_w = ImGui::CalcTextSize(mid.c_str()).x;
  dl->AddText(ImVec2(a.x + (width - mid_w) * 0.5f, ty), dim, mid.c_str());
  dl->AddText(ImVec2(a.x + width - ImGui::CalcTextSize(hi.c_str()).x, ty), dim, hi.c_str());
  if (has_masked) {
    const float y = ty + std::ceil(fs * 1.2f);
    const ImVec2 s0(a.x, y + 1), s1(a.x + fs, y + fs - 1);
    dl->AddRectFilled(s0, s1, ToU32(kMaskedFill));
    AddHatch(dl, s0, s1);
    dl->AddText(ImVec2(s1.x + fs * 0.4f, y), dim, "masked (-\xE2\x88\x9E)");
  }
}

void HeatmapLegend(const ColorScale& scale, float width, bool show_masked, int decimals) {
  const ImVec2 pos = ImGui::GetCursorScreenPos();
  const ImVec2 size(width, HeatmapLegendHeight(show_masked));
  ImGui::Dummy(size);
  DrawHeatmapLegend(ImGui::GetWindowDrawList(), ImVec2(std::floor(pos.x), std::floor(pos.y)), scale,
                    width, show_masked, decimals);
}

}  // namespace attnlab::app
