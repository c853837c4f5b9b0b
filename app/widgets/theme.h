#pragma once
/// Fonts and colours. Lecture mode rebuilds the font atlas at a larger pixel size (crisp text,
/// not FontGlobalScale's blurred upscale) and switches to a high-contrast style.
#include <imgui.h>

#include <cstddef>
#include <string>
#include <vector>

#include "attnlab/colormap.h"

namespace attnlab::app {

struct Fonts {
  ImFont* ui = nullptr;    ///< body text
  ImFont* bold = nullptr;  ///< titles
  ImFont* mono = nullptr;  ///< numbers in cells and formulas
  ImFont* digits = nullptr;  ///< mono at twice its size, the characters numbers use: numbers larger than mono's
  float scale = 1.0f;      ///< the scale the atlas was built at
};

/// The window's fonts and style. Owned by the platform, which creates the ImGui context, and
/// attached to that context (Attach), so that widgets reach it the way they reach io.Fonts.
class Theme {
 public:
  /// Makes this the theme of the current ImGui context; call once the context exists.
  void Attach();
  /// Rebuilds io.Fonts at `scale` (1 = normal, 2 = lecture). The caller re-uploads the texture.
  void BuildFonts(float scale);
  /// The normal dark style or the lecture style, sizes multiplied by `scale`.
  void ApplyStyle(bool lecture, float scale);

  const Fonts& GetFonts() const { return fonts_; }
  bool Lecture() const { return lecture_; }

 private:
  Fonts fonts_;
  bool lecture_ = false;
};

/// The current ImGui context's theme's fonts (null fonts when none is attached).
const Fonts& GetFonts();

/// Accent colours shared by the panels, in the current theme's style.
ImU32 AccentColor();        ///< selection frames, head boundaries
ImU32 ToU32(Rgb8 c);        ///< a colormap's colour, opaque
ImVec4 DimTextColor();      ///< formulas, axis names
/// Hints and explanations: wrapped text in DimTextColor().
void DimTextWrapped(const std::string& text);
ImVec4 ErrorTextColor();    ///< refused edits
ImVec4 WarningTextColor();  ///< trace warnings

/// ImGui::SameLine() when an item `width` wide still fits on the current line, else nothing (the
/// item goes on the next line): narrow lecture-mode panels wrap their radio buttons, not cut them.
void SameLineIfFits(float width);
/// While it lives, the lines it draws stay at the left edge of what a sideways-scrolled window
/// shows (a matrix's title and its Copy/Paste row while the cells scroll under Shift+wheel), and
/// count for the scrolled width as if unpinned (so pinning never widens what the window scrolls).
class PinnedLeft {
 public:
  PinnedLeft();
  ~PinnedLeft();
  PinnedLeft(const PinnedLeft&) = delete;
  PinnedLeft& operator=(const PinnedLeft&) = delete;

 private:
  float shift_;
  float widest_;  ///< the window's scrolled width before
};
/// The smallest size numbers are written at in cells, for a mono font of `font` pixels: 70% of it
/// (smaller digits would not carry to the back row), and in lecture mode the whole font (a
/// projector's class reads the numbers at the lecture font, or the cells show colours only).
float SmallestValuePx(float font);
/// The width of ImGui::RadioButton(label).
float RadioButtonWidth(const char* label);

/// Flags for a tab bar of these labels (the front tab with a close button when `closable`): tabs
/// squeezed to fit would lose their names ("W_q" and "W_k" both "W..."), so when they do not fit
/// side by side the bar scrolls to the front tab instead, with a button listing them all.
ImGuiTabBarFlags WholeNameTabBarFlags(const std::vector<const char*>& labels, bool closable);
/// The labels (their indices) in rows of tabs that each hold whole names: one row where they fit,
/// two where one would scroll, two hold them and the window is tall (a projector's large font hid
/// the Pipeline's Tiles and Decode behind the tab bar's arrows, and at 1280x800 the centre group's
/// ten tabs hid the Logit lens); else one row that scrolls.
std::vector<std::vector<std::size_t>> WholeNameTabRows(const std::vector<const char*>& labels,
                                                       bool closable);

}  // namespace attnlab::app
