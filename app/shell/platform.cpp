#include "shell/platform.h"

// glad first: it must define the GL API before anything else includes a GL header.
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <cfloat>
#include <cstdio>

#include "shell/screenshot.h"
#include "widgets/theme.h"
#include "widgets/window_backgrounds.h"

namespace attnlab::app {
namespace {

// Frames rendered after an input event: ImGui needs a couple to settle hover/active states.
constexpr int kFramesAfterInput = 3;
// An idle window still wakes up now and then (cheap) so that timed UI like tooltips resolves.
constexpr double kIdleTimeoutSeconds = 0.5;
// ... for a while after the last activity (the autosave's 3 s interval too); a window left alone
// longer sleeps longer: every wake-up draws a frame, ~20 ms of CPU with llvmpipe (an idle
// window under 2% of a core).
constexpr double kRecentActivitySeconds = 5.0;
constexpr double kLongIdleTimeoutSeconds = 5.0;

void OnGlfwError(int code, const char* message) {
  std::fprintf(stderr, "attnlab: GLFW error %d: %s\n", code, message);
}

Platform* FromWindow(GLFWwindow* window) {
  return static_cast<Platform*>(glfwGetWindowUserPointer(window));
}

// The current ImGui draw data into an offscreen framebuffer of io.DisplaySize x framebuffer
// scale, read back into `capture` (a 2x screenshot: window_capture.h).
void RenderOffscreen(Capture* capture) {
  ImDrawData* dd = ImGui::GetDrawData();
  const int width = static_cast<int>(dd->DisplaySize.x * dd->FramebufferScale.x);
  const int height = static_cast<int>(dd->DisplaySize.y * dd->FramebufferScale.y);
  GLuint fbo = 0, color = 0;
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glGenRenderbuffers(1, &color);
  glBindRenderbuffer(GL_RENDERBUFFER, color);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE) {
    glViewport(0, 0, width, height);
    const ImVec4 clear = ClearColor();  // as Platform::Render
    glClearColor(clear.x, clear.y, clear.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(dd);
    if (capture) ReadFramebuffer(width, height, capture);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteRenderbuffers(1, &color);
  glDeleteFramebuffers(1, &fbo);
}

}  // namespace

bool Platform::Init(const PlatformConfig& config, std::string* error) {
  glfwSetErrorCallback(OnGlfwError);
  if (!glfwInit()) {
    *error = "cannot initialise GLFW (is there a display? try xvfb-run)";
    return false;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  window_ = glfwCreateWindow(config.width, config.height, config.title.c_str(), nullptr, nullptr);
  if (!window_) {
    *error = "cannot create an OpenGL 3.3 core window";
    glfwTerminate();
    return false;
  }
  glfwMakeContextCurrent(window_);
  if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress))) {
    *error = "cannot load OpenGL 3.3 functions";
    Shutdown();
    return false;
  }
  glfwSwapInterval(config.vsync ? 1 : 0);
  glfwSetWindowUserPointer(window_, this);
  // Ours first: the ImGui backend chains to callbacks installed before it.
  InstallCallbacks();

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  theme_.Attach();
  // The arrangement is computed every frame (panels.cpp); ImGui's own layout file would only
  // remember positions that no longer fit the next screen.
  ImGui::GetIO().IniFilename = nullptr;
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  // Keys reach ImGui's callback through ours, which holds a tap's release for a frame (OnKey),
  // and the keys typed ahead after one that may close a text field or a dialog for one more.
  keys_ = KeyTrickle({GLFW_KEY_ENTER, GLFW_KEY_KP_ENTER, GLFW_KEY_ESCAPE, GLFW_KEY_TAB});
  glfwSetKeyCallback(window_, OnKey);
  glfwSetCharCallback(window_, [](GLFWwindow* w, unsigned int c) {
    if (Platform* p = FromWindow(w)) p->DeliverKeys(p->keys_.Push({int(c), 0, KeyTrickle::kChar, 0}));
  });
  ImGui_ImplOpenGL3_Init("#version 330 core");
  imgui_ready_ = true;
  theme_.BuildFonts(config.font_scale);
  // Xvfb starts the pointer in the middle of the screen, which would put a tooltip in every
  // screenshot.
  if (config.park_cursor) glfwSetCursorPos(window_, -100.0, -100.0);
  return true;
}

void Platform::InstallCallbacks() {
  glfwSetCursorPosCallback(window_, [](GLFWwindow* w, double, double) { OnInput(w); });
  glfwSetMouseButtonCallback(window_, [](GLFWwindow* w, int, int, int) { OnInput(w); });
  glfwSetScrollCallback(window_, [](GLFWwindow* w, double, double) { OnInput(w); });
  glfwSetCharCallback(window_, [](GLFWwindow* w, unsigned int) { OnInput(w); });
  glfwSetWindowFocusCallback(window_, [](GLFWwindow* w, int) { OnInput(w); });
  glfwSetCursorEnterCallback(window_, [](GLFWwindow* w, int) { OnInput(w); });
  glfwSetWindowSizeCallback(window_, [](GLFWwindow* w, int, int) { OnInput(w); });
  glfwSetFramebufferSizeCallback(window_, [](GLFWwindow* w, int, int) { OnInput(w); });
  glfwSetWindowRefreshCallback(window_, [](GLFWwindow* w) { OnInput(w); });
  glfwSetDropCallback(window_, OnDrop);
  glfwSetWindowCloseCallback(window_, OnClose);
}

void Platform::OnInput(GLFWwindow* window) {
  if (Platform* p = FromWindow(window)) p->RequestFrames(kFramesAfterInput);
}

// ImGui 1.86 reads the keys' state once a frame: a press and release between two frames (a 5 ms
// tap) would never be seen, so the release waits for the frame after the press (key_trickle.h).
void Platform::OnKey(GLFWwindow* window, int key, int scancode, int action, int mods) {
  Platform* p = FromWindow(window);
  if (!p) return;
  // F12 straight from GLFW: the screenshot is taken after the frame (app.cpp), not by a panel.
  if (key == GLFW_KEY_F12 && action == GLFW_PRESS) p->screenshot_key_ = (mods & GLFW_MOD_SHIFT) ? 2 : 1;
  p->DeliverKeys(p->keys_.Push({key, scancode, action, mods}));
  p->RequestFrames(kFramesAfterInput);
}

void Platform::DeliverKeys(const std::vector<KeyEvent>& events) {
  for (const KeyEvent& e : events)
    if (e.action == KeyTrickle::kChar)
      ImGui_ImplGlfw_CharCallback(window_, static_cast<unsigned int>(e.key));  // and OnInput, chained
    else
      ImGui_ImplGlfw_KeyCallback(window_, e.key, e.scancode, e.action, e.mods);
}

void Platform::OnDrop(GLFWwindow* window, int count, const char** paths) {
  Platform* p = FromWindow(window);
  if (!p) return;
  for (int i = 0; i < count; ++i) p->dropped_.emplace_back(paths[i]);
  p->RequestFrames(kFramesAfterInput);
}

void Platform::OnClose(GLFWwindow* window) {
  Platform* p = FromWindow(window);
  if (!p || !p->close_guard_) return;
  glfwSetWindowShouldClose(window, GLFW_FALSE);  // the app decides, after "Save changes?"
  p->close_requested_ = true;
  p->RequestFrames(kFramesAfterInput);
}

bool Platform::TakeCloseRequest() {
  const bool requested = close_requested_;
  close_requested_ = false;
  return requested;
}

void Platform::Shutdown() {
  if (imgui_ready_) {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    imgui_ready_ = false;
  }
  if (window_) glfwDestroyWindow(window_);
  window_ = nullptr;
  glfwTerminate();
}

bool Platform::ShouldClose() const { return glfwWindowShouldClose(window_); }
void Platform::SetShouldClose() { glfwSetWindowShouldClose(window_, GLFW_TRUE); }

void Platform::RequestFrames(int count) {
  if (count > pending_frames_) pending_frames_ = count;
}

void Platform::WaitForEvents(bool continuous) {
  if (continuous || pending_frames_ > 0) {
    glfwPollEvents();
    if (pending_frames_ > 0) --pending_frames_;
    last_active_ = glfwGetTime();
    return;
  }
  const bool recent = glfwGetTime() - last_active_ < kRecentActivitySeconds;
  glfwWaitEventsTimeout(recent ? kIdleTimeoutSeconds : kLongIdleTimeoutSeconds);
}

void Platform::Wake() { glfwPostEmptyEvent(); }

void Platform::NewFrame() {
  DeliverKeys(keys_.Deliverable());
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  if (offscreen_scale_ != 1.0f) {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(io.DisplaySize.x * offscreen_scale_, io.DisplaySize.y * offscreen_scale_);
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no hover highlight in a 2x screenshot
  }
  ImGui::NewFrame();
  keys_.FrameRead();
  if (keys_.Waiting()) RequestFrames(kFramesAfterInput);  // the frames that see the held-back keys
}

void Platform::Render(Capture* capture) {
  ImGui::Render();
  if (offscreen_scale_ != 1.0f) {
    RenderOffscreen(capture);  // the window keeps showing the last frame
    return;
  }
  int width = 0, height = 0;
  glfwGetFramebufferSize(window_, &width, &height);
  glViewport(0, 0, width, height);
  const ImVec4 clear = ClearColor();  // the panels' colour: they draw no background of their own
  glClearColor(clear.x, clear.y, clear.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  if (capture) ReadFramebuffer(width, height, capture);
  glfwSwapBuffers(window_);
}

void Platform::RebuildFonts(float scale) {
  theme_.BuildFonts(scale);
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
}

void Platform::SetTitle(const std::string& title) { glfwSetWindowTitle(window_, title.c_str()); }

std::vector<std::string> Platform::TakeDroppedPaths() {
  std::vector<std::string> out;
  out.swap(dropped_);
  return out;
}

float Platform::FramebufferScale() const { return ImGui::GetIO().DisplayFramebufferScale.x; }

float Platform::WindowHeight() const {
  int width = 0, height = 0;
  glfwGetWindowSize(window_, &width, &height);
  return float(height);
}

int Platform::TakeCtrlWheel() {
  ImGuiIO& io = ImGui::GetIO();  // the GLFW backend of 1.86 writes wheel and Ctrl as they come
  if (!io.KeyCtrl || io.MouseWheel == 0.0f) return 0;
  const int direction = io.MouseWheel > 0 ? 1 : -1;
  io.MouseWheel = 0.0f;
  return direction;
}

}  // namespace attnlab::app
