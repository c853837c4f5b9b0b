#include "shell/window_capture.h"

#include "view/ui_scale.h"

#include <imgui.h>
#include <imgui_internal.h>  // window positions and sizes, to lay the UI out at 2x

#include <ctime>
#include <filesystem>
#include <vector>

#include "panels/app_state.h"
#include "shell/platform.h"
#include "widgets/theme.h"
#include "session/user_dirs.h"
#include "view/ui_scale.h"

namespace attnlab::app {
namespace {

// Offscreen frames rendered before the captured one: scroll positions and auto-sized content
// need a frame or two at the new size to settle.
constexpr int kSettleFrames = 2;

bool IsLaidOutByUs(const ImGuiWindow* w) {
  // Child windows, popups and tooltips are placed by their parents every frame.
  return !(w->Flags & (ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_Popup |
                       ImGuiWindowFlags_Tooltip)) && w->WasActive;
}

ImVec2 Mul(ImVec2 v, float k) { return ImVec2(v.x * k, v.y * k); }

float UiScale(const AppState& state, const Platform& platform) {
  return UiScale(state.ui, platform.WindowHeight());
}

}  // namespace

std::string NextScreenshotPath(int scale) {
  namespace fs = std::filesystem;
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d-%H%M%S", &tm);
  const std::string suffix = scale > 1 ? "@" + std::to_string(scale) + "x" : "";
  const fs::path dir = PicturesDir();
  std::error_code ec;
  fs::create_directories(dir, ec);
  fs::path path = dir / ("attnlab-" + std::string(stamp) + suffix + ".png");
  for (int i = 2; fs::exists(path, ec); ++i)
    path = dir / ("attnlab-" + std::string(stamp) + "-" + std::to_string(i) + suffix + ".png");
  return path.string();
}

void WindowCapture::Request(int scale, const std::string& path) {
  if (Busy()) return;
  scale_ = scale;
  path_ = path;
  capture_ = {};
  phase_ = scale > 1 ? Phase::Offscreen : Phase::Window;
  frames_left_ = kSettleFrames + 1;
}

void WindowCapture::ScaleWindows(float factor, bool restore) {
  if (!restore && saved_.empty()) {
    for (ImGuiWindow* w : GImGui->Windows)
      saved_.push_back({w, w->Pos, w->SizeFull, w->Scroll});
  }
  for (const SavedWindow& s : saved_) {
    const float k = restore ? 1.0f : factor;
    if (IsLaidOutByUs(s.window)) {
      ImGui::SetWindowPos(s.window, Mul(s.pos, k), ImGuiCond_Always);
      ImGui::SetWindowSize(s.window, Mul(s.size, k), ImGuiCond_Always);
    }
    ImGui::SetScrollX(s.window, s.scroll.x * k);
    ImGui::SetScrollY(s.window, s.scroll.y * k);
  }
  if (restore) saved_.clear();
}

void WindowCapture::BeforeFrame(AppState& state, Platform& platform) {
  if (phase_ != Phase::Offscreen) return;
  const float k = static_cast<float>(scale_);
  if (saved_.empty()) {
    platform.RebuildFonts(UiScale(state, platform) * k);
    platform.ApplyStyle(state.ui.lecture_mode, UiScale(state, platform) * k);
    platform.SetOffscreenScale(k);
  }
  ScaleWindows(k, false);  // every frame: scroll targets clamp against last frame's content
  platform.RequestFrames(frames_left_ + 1);
}

Capture* WindowCapture::Target() {
  if (phase_ == Phase::Window) return &capture_;
  return phase_ == Phase::Offscreen && frames_left_ == 1 ? &capture_ : nullptr;
}

void WindowCapture::AfterFrame(AppState& state, Platform& platform) {
  if (phase_ == Phase::Idle) return;
  if (phase_ == Phase::Offscreen && --frames_left_ > 0) return;
  Finish(state, platform);
}

void WindowCapture::Finish(AppState& state, Platform& platform) {
  if (phase_ == Phase::Offscreen) {
    platform.SetOffscreenScale(1.0f);
    platform.RebuildFonts(UiScale(state, platform));
    platform.ApplyStyle(state.ui.lecture_mode, UiScale(state, platform));
    ScaleWindows(1.0f, true);
    platform.RequestFrames(3);
  }
  phase_ = Phase::Idle;
  std::string error;
  if (WritePng(path_, capture_, &error))
    state.document.status = "screenshot " + path_ + " (" + std::to_string(capture_.width) + "\xC3\x97" +
                   std::to_string(capture_.height) + ")";
  else
    state.document.status = "no screenshot: " + error;
}

}  // namespace attnlab::app
