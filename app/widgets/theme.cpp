#include "widgets/theme.h"

#include <imgui_internal.h>  // the window's line start, room and scrolled width, moved while pinned

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace attnlab::app {
namespace {

// Latin-1, Greek (alpha, omega), punctuation, sub/superscripts, arrows, math operators (sqrt,
// infinity, dot), control pictures (a model's tokens show a space as "␣", U+2423), geometric
// shapes, modifier letters (superscript h): what formulas and token labels use.
const ImWchar kGlyphRanges[] = {0x0020, 0x00FF, 0x02B0, 0x02FF, 0x0370, 0x03FF, 0x2010, 0x205E,
                                0x2070, 0x209F, 0x2190, 0x21FF, 0x2200, 0x22FF, 0x2400, 0x243F,
                                0x25A0, 0x25FF, 0};

const char* kFontDirs[] = {"/usr/share/fonts/truetype/dejavu/", "/usr/share/fonts/TTF/",
                           "/usr/share/fonts/dejavu/"};

// Path of a system TrueType font, or empty (then ImGui's built-in bitmap font is used).
std::string FindFont(const char* file) {
  for (const char* dir : kFontDirs) {
    const std::string path = std::string(dir) + file;
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) return path;
  }
  return {};
}

// Numbers in cells as format_number writes them: ASCII, the minus sign U+2212 ("−0.25"), infinity
// ("−∞") and the ellipsis of a cut label. Without U+2212 every negative cell drew as "?0.25".
const ImWchar kDigitsRange[] = {0x0020, 0x007F, 0x2026, 0x2026, 0x2212, 0x2212, 0x221E, 0x221E, 0};

ImFont* AddFont(const char* file, float size_px, const ImWchar* ranges = kGlyphRanges) {
  ImGuiIO& io = ImGui::GetIO();
  const std::string path = FindFont(file);
  if (!path.empty()) {
    ImFontConfig config;
    config.OversampleH = 2;
    config.OversampleV = 1;
    if (ImFont* font = io.Fonts->AddFontFromFileTTF(path.c_str(), size_px, &config, ranges))
      return font;
  }
  ImFontConfig config;
  config.SizePixels = size_px;
  return io.Fonts->AddFontDefault(&config);
}

ImVec4 Rgb(int r, int g, int b, float a = 1.0f) {
  return ImVec4(r / 255.0f, g / 255.0f, b / 255.0f, a);
}

void DarkColors(ImGuiStyle& style) {
  ImGui::StyleColorsDark(&style);
  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = Rgb(30, 32, 36);
  c[ImGuiCol_ChildBg] = Rgb(0, 0, 0, 0.0f);  // on its window's colour: no second fill to rasterise
  c[ImGuiCol_PopupBg] = Rgb(38, 40, 46, 0.98f);
  c[ImGuiCol_MenuBarBg] = Rgb(22, 24, 28);
  c[ImGuiCol_TitleBg] = Rgb(22, 24, 28);
  c[ImGuiCol_TitleBgActive] = Rgb(36, 52, 78);
  c[ImGuiCol_TitleBgCollapsed] = Rgb(22, 24, 28);
  c[ImGuiCol_Border] = Rgb(60, 64, 72);
  c[ImGuiCol_FrameBg] = Rgb(44, 47, 54);
  c[ImGuiCol_FrameBgHovered] = Rgb(56, 60, 70);
  c[ImGuiCol_FrameBgActive] = Rgb(64, 70, 84);
  c[ImGuiCol_Header] = Rgb(48, 72, 110);
  c[ImGuiCol_HeaderHovered] = Rgb(60, 90, 138);
  c[ImGuiCol_HeaderActive] = Rgb(70, 104, 160);
  c[ImGuiCol_Text] = Rgb(228, 230, 235);
  c[ImGuiCol_TextDisabled] = Rgb(140, 146, 156);
  c[ImGuiCol_Separator] = Rgb(60, 64, 72);
}

void LectureColors(ImGuiStyle& style) {
  ImGui::StyleColorsDark(&style);
  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = Rgb(0, 0, 0);
  c[ImGuiCol_ChildBg] = Rgb(0, 0, 0, 0.0f);
  c[ImGuiCol_PopupBg] = Rgb(16, 16, 16, 1.0f);
  c[ImGuiCol_MenuBarBg] = Rgb(0, 0, 0);
  c[ImGuiCol_TitleBg] = Rgb(0, 0, 0);
  c[ImGuiCol_TitleBgActive] = Rgb(0, 60, 140);
  c[ImGuiCol_TitleBgCollapsed] = Rgb(0, 0, 0);
  c[ImGuiCol_Border] = Rgb(200, 200, 200);
  c[ImGuiCol_FrameBg] = Rgb(30, 30, 30);
  c[ImGuiCol_FrameBgHovered] = Rgb(60, 60, 60);
  c[ImGuiCol_FrameBgActive] = Rgb(80, 80, 80);
  c[ImGuiCol_Header] = Rgb(0, 80, 170);
  c[ImGuiCol_HeaderHovered] = Rgb(0, 100, 200);
  c[ImGuiCol_HeaderActive] = Rgb(0, 120, 230);
  c[ImGuiCol_Text] = Rgb(255, 255, 255);
  c[ImGuiCol_TextDisabled] = Rgb(190, 190, 190);
  c[ImGuiCol_Separator] = Rgb(160, 160, 160);
}

// Tiled panels: resize grips only appear when hovered, so the layout does not look like a demo.
void QuietResizeGrips(ImGuiStyle& style) {
  style.Colors[ImGuiCol_ResizeGrip] = ImVec4(0, 0, 0, 0);
}

// Before any theme is attached (and without an ImGui context): no fonts, the normal style.
const Theme kNoTheme;

const Theme& Current() {
  const Theme* theme =
      ImGui::GetCurrentContext() ? static_cast<const Theme*>(ImGui::GetIO().UserData) : nullptr;
  return theme ? *theme : kNoTheme;
}

bool Lecture() { return Current().Lecture(); }

}  // namespace

void Theme::Attach() { ImGui::GetIO().UserData = this; }

void Theme::BuildFonts(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  fonts_.ui = AddFont("DejaVuSans.ttf", 16.0f * scale);
  fonts_.bold = AddFont("DejaVuSans-Bold.ttf", 16.0f * scale);
  fonts_.mono = AddFont("DejaVuSansMono.ttf", 14.0f * scale);
  fonts_.digits = AddFont("DejaVuSansMono.ttf", 28.0f * scale, kDigitsRange);
  fonts_.scale = scale;
  io.FontDefault = fonts_.ui;
  io.Fonts->Build();
}

const Fonts& GetFonts() { return Current().GetFonts(); }

void Theme::ApplyStyle(bool lecture, float scale) {
  lecture_ = lecture;
  ImGuiStyle style;
  if (lecture)
    LectureColors(style);
  else
    DarkColors(style);
  QuietResizeGrips(style);
  style.WindowRounding = 0.0f;  // tiled windows: square corners meet cleanly
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  style.PopupRounding = 3.0f;
  style.WindowPadding = ImVec2(10, 10);
  style.FramePadding = ImVec2(7, 4);
  style.ItemSpacing = ImVec2(8, 6);
  style.WindowBorderSize = lecture ? 2.0f : 1.0f;
  style.WindowTitleAlign = ImVec2(0.0f, 0.5f);
  style.ScrollbarSize = 14.0f;
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
}

float SmallestValuePx(float font) { return Lecture() ? font : std::ceil(font * 0.7f); }

ImU32 AccentColor() { return Lecture() ? IM_COL32(255, 200, 0, 255) : IM_COL32(255, 176, 32, 255); }

ImU32 ToU32(Rgb8 c) { return IM_COL32(c.r, c.g, c.b, 255); }
ImVec4 DimTextColor() { return Lecture() ? Rgb(210, 210, 210) : Rgb(150, 158, 170); }
ImVec4 ErrorTextColor() { return Lecture() ? Rgb(255, 110, 110) : Rgb(240, 100, 96); }
ImVec4 WarningTextColor() { return Lecture() ? Rgb(255, 220, 80) : Rgb(232, 196, 88); }

void DimTextWrapped(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

void SameLineIfFits(float width) {
  // The cursor is at the start of the next line: its room ends where this line's would.
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width <= right) ImGui::SameLine();
}

PinnedLeft::PinnedLeft() : shift_(ImGui::GetScrollX()), widest_(ImGui::GetCurrentWindow()->DC.CursorMaxPos.x) {
  ImGuiWindow* w = ImGui::GetCurrentWindow();
  w->DC.Indent.x += shift_;
  w->DC.CursorPos.x += shift_;
  w->ContentRegionRect.Max.x += shift_;  // the room to the right (wrapping, fields) as unscrolled
  w->WorkRect.Max.x += shift_;
}

PinnedLeft::~PinnedLeft() {
  ImGuiWindow* w = ImGui::GetCurrentWindow();
  w->DC.Indent.x -= shift_;
  w->DC.CursorPos.x -= shift_;
  w->ContentRegionRect.Max.x -= shift_;
  w->WorkRect.Max.x -= shift_;
  w->DC.CursorMaxPos.x = std::max(widest_, w->DC.CursorMaxPos.x - shift_);  // as if drawn unpinned
}

float RadioButtonWidth(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}

namespace {

float TabWidth(const char* label) {
  const ImGuiStyle& style = ImGui::GetStyle();
  return ImGui::CalcTextSize(label, nullptr, true).x + style.FramePadding.x * 2.0f + style.ItemInnerSpacing.x;
}

}  // namespace

ImGuiTabBarFlags WholeNameTabBarFlags(const std::vector<const char*>& labels, bool closable) {
  float width = closable ? ImGui::GetFrameHeight() : 0.0f;
  for (const char* label : labels) width += TabWidth(label);
  if (width <= ImGui::GetContentRegionAvail().x) return ImGuiTabBarFlags_FittingPolicyResizeDown;
  return ImGuiTabBarFlags_FittingPolicyScroll | ImGuiTabBarFlags_TabListPopupButton;
}

std::vector<std::vector<std::size_t>> WholeNameTabRows(const std::vector<const char*>& labels,
                                                       bool closable) {
  // Each row may hold the front tab, with its close button.
  const float room = ImGui::GetContentRegionAvail().x - (closable ? ImGui::GetFrameHeight() : 0.0f);
  std::vector<std::vector<std::size_t>> rows(1);
  float used = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const float w = TabWidth(labels[i]);
    if (used + w > room && !rows.back().empty()) rows.emplace_back(), used = 0;
    rows.back().push_back(i);
    used += w;
  }
  // A second row costs a tall panel (the Pipeline) little, a short slot much of its height.
  const bool tall = ImGui::GetContentRegionAvail().y >= 10.0f * ImGui::GetFrameHeight();
  if (rows.size() == 1 || (tall && rows.size() == 2)) return rows;
  rows.assign(1, {});
  for (std::size_t i = 0; i < labels.size(); ++i) rows[0].push_back(i);
  return rows;
}

}  // namespace attnlab::app
