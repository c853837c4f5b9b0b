#include "widgets/heatmap_marks.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>

#include "attnlab/numbering.h"
#include "widgets/theme.h"

namespace attnlab::app {

void DrawHiddenCells(ImDrawList* dl, const GridPlace& g, bool one_block, ImFont* mono) {
  const ImU32 fill = IM_COL32(kHiddenFill.r, kHiddenFill.g, kHiddenFill.b, 255);
  if (one_block) {
    dl->AddRectFilled(g.origin, ImVec2(g.origin.x + g.size.x, g.origin.y + g.size.y), fill);
    return;
  }
  const float w = mono->CalcTextSizeA(mono->FontSize, 1e9f, 0.0f, "?").x;
  for (int r = 0; r < g.rows; ++r)
    for (int c = 0; c < g.cols; ++c) {
      const ImVec2 a(g.origin.x + c * g.cell, g.origin.y + r * g.cell);
      const ImVec2 b(a.x + g.cell - g.gap, a.y + g.cell - g.gap);
      dl->AddRectFilled(a, b, fill);
      if (g.cell < mono->FontSize) continue;
      const ImVec2 at(std::floor((a.x + b.x - w) * 0.5f), std::floor((a.y + b.y - mono->FontSize) * 0.5f));
      dl->AddText(mono, mono->FontSize, at, IM_COL32(235, 235, 240, 255), "?");
    }
}

std::vector<HeatmapPlacement::Label> HeadBandLabels(const GridPlace& g, int band, float top) {
  std::vector<HeatmapPlacement::Label> out;
  const int bands = (g.cols + band - 1) / band;
  const float band_w = band * g.cell, gap = std::ceil(ImGui::GetFontSize() * 0.4f);
  const std::string widest = "head " + std::to_string(bands);
  const bool words = ImGui::CalcTextSize(widest.c_str()).x + gap <= band_w;
  float free_from = -FLT_MAX;  // the last label shown ends (with the gap) here
  for (int b = 0; b < bands; ++b) {
    const std::string name = words ? attnlab::head_label(b) : attnlab::short_head_label(b);
    const ImVec2 size = ImGui::CalcTextSize(name.c_str());
    const float x = std::floor(g.origin.x + (b + 0.5f) * band_w - size.x * 0.5f);
    if (x < free_from) continue;
    out.push_back({name, x, top, x + size.x, top + size.y});
    free_from = x + size.x + gap;
  }
  return out;
}

void DrawOutlines(ImDrawList* dl, const GridPlace& g, const std::vector<std::pair<int, int>>& cells) {
  const float t = std::max(2.0f, std::floor(ImGui::GetFontSize() * 0.18f));
  for (const auto& [r, c] : cells) {
    if (r < 0 || c < 0 || r >= g.rows || c >= g.cols) continue;
    const ImVec2 a(g.origin.x + c * g.cell, g.origin.y + r * g.cell);
    dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(a.x + g.cell, a.y + g.cell), AccentColor(), 0.0f, 0, t);
  }
}

void DrawOffMark(ImDrawList* dl, ImVec2 min, ImVec2 max) {
  ImFont* bold = GetFonts().bold ? GetFonts().bold : ImGui::GetFont();
  const char* text = "off";
  const ImVec2 size = bold->CalcTextSizeA(bold->FontSize, 1e9f, 0.0f, text);
  const ImVec2 centre((min.x + max.x) * 0.5f, (min.y + max.y) * 0.5f);
  const float pad = std::round(bold->FontSize * 0.3f);
  dl->AddRectFilled(ImVec2(centre.x - size.x * 0.5f - pad, centre.y - size.y * 0.5f - pad * 0.5f),
                    ImVec2(centre.x + size.x * 0.5f + pad, centre.y + size.y * 0.5f + pad * 0.5f),
                    IM_COL32(20, 20, 24, 230), pad);
  dl->AddText(bold, bold->FontSize, ImVec2(centre.x - size.x * 0.5f, centre.y - size.y * 0.5f),
              ImGui::GetColorU32(ImGuiCol_Text), text);
}

void DrawOffMarkOverLastHeatmap(float cell, int rows, int cols) {
  const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
  const ImVec2 grid_lo(std::max(lo.x, hi.x - cell * float(cols)), std::max(lo.y, hi.y - cell * float(rows)));
  DrawOffMark(ImGui::GetWindowDrawList(), grid_lo, hi);
}

}  // namespace attnlab::app
