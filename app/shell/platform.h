#pragma once
/// The platform layer: a GLFW window with an OpenGL 3.3 core context (loaded by glad), Dear ImGui
/// with its GLFW and OpenGL3 backends, and a frame loop that sleeps while nothing happens.
#include <string>
#include <vector>

#include "view/key_trickle.h"
#include "widgets/theme.h"

struct GLFWwindow;

namespace attnlab::app {

struct Capture;

struct PlatformConfig {
  int width = 1280, height = 800;
  std::string title = "attnlab";
  bool vsync = true;
  float font_scale = 1.0f;
  bool park_cursor = false;  ///< move the pointer off the window (screenshots without hover)
};

class Platform {
 public:
  /// Creates the window, the GL context and ImGui. Returns false with `error` set on failure.
  bool Init(const PlatformConfig& config, std::string* error);
  void Shutdown();

  bool ShouldClose() const;
  void SetShouldClose();
  /// With the guard on, the window's close button only records a request (TakeCloseRequest) so
  /// that the app can ask about unsaved changes first.
  void SetCloseGuard(bool on) { close_guard_ = on; }
  bool TakeCloseRequest();
  /// F12 (1) or Shift+F12 (2) since the last call, else 0.
  int TakeScreenshotKey() { const int k = screenshot_key_; screenshot_key_ = 0; return k; }
  /// Scale > 1: the next frames are laid out at that multiple of the window size and rendered
  /// offscreen (window_capture.h), not shown.
  void SetOffscreenScale(float scale) { offscreen_scale_ = scale; }
  /// Interactive: blocks until input arrives (or a timeout) unless frames were requested; input
  /// requests a few frames so ImGui settles. Continuous (scripted runs): only polls.
  void WaitForEvents(bool continuous);
  void RequestFrames(int count);
  /// Ends a WaitForEvents() sleep; callable from any thread (a trace computed off the UI thread).
  static void Wake();

  void NewFrame();
  /// Renders the ImGui frame; with `capture`, reads the pixels back before the swap.
  void Render(Capture* capture);

  /// Rebuilds the font atlas at `scale` and re-uploads it (call between frames).
  void RebuildFonts(float scale);
  /// The normal or the lecture style at `scale` (call between frames).
  void ApplyStyle(bool lecture, float scale) { theme_.ApplyStyle(lecture, scale); }
  void SetTitle(const std::string& title);
  /// Files dropped onto the window since the last call.
  std::vector<std::string> TakeDroppedPaths();
  float FramebufferScale() const;
  /// The window's height in screen coordinates (what the lecture scale fits).
  float WindowHeight() const;
  /// Ctrl+wheel since the last call: +1 (away from the user), -1 or 0. Call before NewFrame():
  /// the wheel is then taken as a zoom, not a scroll.
  int TakeCtrlWheel();

 private:
  static void OnInput(GLFWwindow* window);
  static void OnDrop(GLFWwindow* window, int count, const char** paths);
  static void OnClose(GLFWwindow* window);
  static void OnKey(GLFWwindow* window, int key, int scancode, int action, int mods);
  void DeliverKeys(const std::vector<KeyEvent>& events);
  void InstallCallbacks();

  GLFWwindow* window_ = nullptr;
  int pending_frames_ = 3;
  double last_active_ = 0;  ///< glfwGetTime() of the last frame that was asked for
  std::vector<std::string> dropped_;
  bool imgui_ready_ = false;
  bool close_guard_ = false, close_requested_ = false;
  float offscreen_scale_ = 1.0f;
  int screenshot_key_ = 0;
  KeyTrickle keys_;  ///< key events on their way to ImGui, one change per key per frame
  Theme theme_;  ///< attached to the ImGui context, for the widgets
};

}  // namespace attnlab::app
