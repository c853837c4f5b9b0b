#include "widgets/heatmap_text.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

#include "attnlab/number_format.h"
#include "widgets/theme.h"

namespace attnlab::app {
namespace {

float TextWidth(ImFont* font, const char* text) {
  return font->CalcTextSizeA(font->FontSize, FLT_MAX, 0.0f, text).x;
}

// "-0.00" at 2 decimals: the value a cell sizes itself for.
std::string WidestValueText(int decimals) { return "-0." + std::string(std::size_t(std::max(decimals, 0)), '0'); }

ImFont* MonoOrDefault() {
  ImFont* f = GetFonts().mono;
  return f ? f : ImGui::GetFont();
}

// Today's decimals for values this large: the fewest a cell falls back to before it gives up.
int DecimalsForMagnitude(double max_abs) { return max_abs < 10 ? 2 : max_abs < 100 ? 1 : 0; }

float WidestValueWidth(const ValueScan& scan, int decimals, ImFont* mono) {
  const std::string widest =
      attnlab::format_number(scan.negative ? -scan.max_abs : scan.max_abs, decimals);
  float w = TextWidth(mono, widest.c_str());
  if (scan.masked) w = std::max(w, TextWidth(mono, attnlab::format_number(-INFINITY, decimals).c_str()));
  return w;
}

}  // namespace

float CellGap(float cell) { return cell >= 14.0f ? 1.0f : 0.0f; }

float ValueRoom(float cell) { return cell - CellGap(cell) - 4.0f; }

float ValueTextSize(float text_width, float cell, ImFont* mono, ValueSizes sizes) {
  const float font = mono->FontSize, largest = sizes.max > 0.0f ? sizes.max : font;
  const float by_width =
      text_width > 0.0f ? std::floor(font * ValueRoom(cell) / text_width) : largest;
  const float fit = std::min({largest, by_width, cell - 2.0f});
  return fit >= SmallestValuePx(font) ? fit : 0.0f;
}

float PreferredCell() {
  const ImFont* mono = GetFonts().mono ? GetFonts().mono : ImGui::GetFont();
  return std::round(mono->FontSize * 3.4f);
}

float GrowingCellMax() { return 2.0f * PreferredCell(); }

float GrowingValueMax(float cell) {
  const float mono = GetFonts().mono ? GetFonts().mono->FontSize : ImGui::GetFont()->FontSize;
  return std::round(mono * std::max(1.0f, cell / PreferredCell()));
}

ImFont* ValueFont(float value_px, ImFont* mono) {
  ImFont* digits = GetFonts().digits;
  return value_px > mono->FontSize && digits ? digits : mono;
}

ValueFormat ChooseValueFormat(const ValueScan& scan, int wanted, float room, ImFont* mono) {
  ValueFormat f;
  f.decimals = scan.integers ? 0 : std::clamp(wanted, attnlab::kMinDecimals, attnlab::kMaxDecimals);
  const int fewest = std::min(f.decimals, DecimalsForMagnitude(scan.max_abs));
  f.text_width = WidestValueWidth(scan, f.decimals, mono);
  while (f.text_width > room && f.decimals > fewest)
    f.text_width = WidestValueWidth(scan, --f.decimals, mono);
  return f;
}

FormulaLines FitFormula(ImFont* mono, const char* formula, float natural_w, float font_size) {
  const float room = ImGui::GetWindowContentRegionMax().x - ImGui::GetWindowContentRegionMin().x;
  FormulaLines f;
  if (TextWidth(mono, formula) > room && room > font_size * 8.0f) f.wrap = std::max(natural_w, room);
  const ImVec2 drawn = mono->CalcTextSizeA(mono->FontSize, FLT_MAX, f.wrap, formula);
  f.height = std::ceil(drawn.y + mono->FontSize * 0.3f);
  f.width = drawn.x;
  return f;
}

void AddVerticalText(ImDrawList* dl, ImVec2 bottom_left, ImU32 color, const char* text) {
  const int first = dl->VtxBuffer.Size;
  // ImGui clips glyphs as it lays them out, before they are turned, so the text is laid out
  // unclipped and cut to the window's clip rectangle seen from the turned frame: the rectangle
  // (x0, y0, x1, y1) turned back is (b.x + b.y - y1, b.y - b.x + x0, b.x + b.y - y0, b.y - b.x + x1).
  // Turned, every glyph lands inside the window's clip rectangle (never over its tab bar).
  const ImVec2 lo = dl->GetClipRectMin(), hi = dl->GetClipRectMax();
  const ImVec2 b = bottom_left;
  const ImVec4 unturned(b.x + b.y - hi.y, b.y - b.x + lo.x, b.x + b.y - lo.y, b.y - b.x + hi.x);
  dl->PushClipRectFullScreen();
  dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), bottom_left, color, text, nullptr, 0.0f,
              &unturned);
  dl->PopClipRect();
  for (int i = first; i < dl->VtxBuffer.Size; ++i) {
    ImVec2& p = dl->VtxBuffer[i].pos;
    const float dx = p.x - bottom_left.x, dy = p.y - bottom_left.y;
    p = ImVec2(bottom_left.x + dy, bottom_left.y - dx);
  }
}

// The cell sizes heatmap.h declares, chosen for the values they must print.
float SmallestCellWithValues(int decimals) {
  const float width = TextWidth(MonoOrDefault(), WidestValueText(decimals).c_str());
  float cell = 2.0f;
  while (ValueTextSize(width, cell, MonoOrDefault()) <= 0.0f) ++cell;
  return cell;
}

float ChooseCellSize(int rows, int cols, float max_width, float max_height, int decimals) {
  // Room for "-0." and the decimals when the panel has it (at 2 decimals the look of old).
  const std::string widest = WidestValueText(decimals);
  const float for_values = std::ceil(TextWidth(MonoOrDefault(), widest.c_str()) + 4.0f + 1.0f);
  const float preferred = std::max(PreferredCell(), for_values);
  const float by_width = std::floor(max_width / std::max(cols, 1));
  const float by_height = std::floor(max_height / std::max(rows, 1));
  return std::max(2.0f, std::min({preferred, by_width, by_height}));
}

float FitCellSize(int rows, int cols, float max_width, float max_height, int decimals) {
  const float fit = std::min(max_width / std::max(cols, 1), max_height / std::max(rows, 1));
  if (fit >= 2.0f) return ChooseCellSize(rows, cols, max_width, max_height, decimals);
  if (fit >= 1.5f) return fit;  // a cell's centre pixel always samples its own texel
  if (fit >= 1.0f) return 1.0f;
  return fit;
}

}  // namespace attnlab::app
