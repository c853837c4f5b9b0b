#pragma once
/// Fonts and colours. Lecture mode rebuilds the font atlas at a larger pixel size (crisp text,
/// not FontGlobalScale's blurred upscale) and switches to a high-contrast style.
#include <imgui.h>

namespace attnlab::app {

struct Fonts {
  ImFont* ui = nullptr;    ///< body text
  ImFont* bold = nullptr;  ///< titles
  ImFont* mono = nullptr;  ///< numbers in cells and formulas
  float scale = 1.0f;      ///< the scale the atlas was built at
};

/// Rebuilds io.Fonts at `scale` (1 = normal, 2 = lecture). The caller re-uploads the texture.
void BuildFonts(float scale);
const Fonts& GetFonts();

/// The normal dark style or the lecture style, sizes multiplied by `scale`.
void ApplyStyle(bool lecture, float scale);

/// Accent colours shared by the panels.
ImU32 AccentColor();        ///< selection frames, head boundaries
ImVec4 DimTextColor();      ///< formulas, axis names
ImVec4 ErrorTextColor();    ///< refused edits
ImVec4 WarningTextColor();  ///< trace warnings

}  // namespace attnlab::app
