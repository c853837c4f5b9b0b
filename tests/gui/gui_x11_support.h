// Shared by the checkers that drive a real window with real X input (xdotool): reading the
// window's pixels back from the X server, waiting for them, and the window's process. Include it
// after the attnlab headers: X11's headers #define Success, which Eigen uses as a name.
#pragma once

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "gui_check_support.h"

extern char** environ;

namespace gui_check {

// Runs `cmd` (xdotool) and returns its output without the trailing newline (a window id).
inline std::string Run(const std::string& cmd) {
  std::string out;
  int ignored = 0;
  RunCapture(cmd, &out, &ignored);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

inline void Sleep(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// The window's pixels, read from the X server (what the user sees).
inline bool Capture(Display* dpy, unsigned long window, Image* img) {
  XWindowAttributes attr;
  if (!XGetWindowAttributes(dpy, window, &attr)) return false;
  XImage* x = XGetImage(dpy, window, 0, 0, attr.width, attr.height, AllPlanes, ZPixmap);
  if (!x) return false;
  img->width = attr.width;
  img->height = attr.height;
  img->rgb.resize(static_cast<std::size_t>(attr.width) * attr.height * 3);
  for (int y = 0; y < attr.height; ++y)
    for (int px = 0; px < attr.width; ++px) {
      const unsigned long p = XGetPixel(x, px, y);
      unsigned char* o = &img->rgb[(static_cast<std::size_t>(y) * attr.width + px) * 3];
      o[0] = static_cast<unsigned char>((p & x->red_mask) >> __builtin_ctzl(x->red_mask));
      o[1] = static_cast<unsigned char>((p & x->green_mask) >> __builtin_ctzl(x->green_mask));
      o[2] = static_cast<unsigned char>((p & x->blue_mask) >> __builtin_ctzl(x->blue_mask));
    }
  XDestroyImage(x);
  return true;
}

// Polls the window until `ok` holds for its pixels (the app redraws after input) or times out.
template <class Pred>
bool WaitFor(Display* dpy, unsigned long win, Image* img, Pred ok, int timeout_ms = 8000) {
  for (int waited = 0; waited <= timeout_ms; waited += 100) {
    if (Capture(dpy, win, img) && ok(*img)) return true;
    Sleep(100);
  }
  return false;
}

// A window started in the background; stopped with SIGTERM if the test ends while it runs.
struct App {
  pid_t pid = -1;
  ~App() {
    if (pid > 0) {
      kill(pid, SIGTERM);
      int status = 0;
      waitpid(pid, &status, 0);
    }
  }
  // Starts `args` (args[0]: the program); its standard output goes to `stdout_path` when given.
  bool Start(std::vector<std::string> args, const std::string& stdout_path = {}) {
    std::vector<char*> argv_c;
    for (std::string& a : args) argv_c.push_back(a.data());
    argv_c.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    if (!stdout_path.empty())
      posix_spawn_file_actions_addopen(&files, 1, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                       0644);
    const bool ok =
        posix_spawn(&pid, args[0].c_str(), &files, nullptr, argv_c.data(), environ) == 0;
    posix_spawn_file_actions_destroy(&files);
    if (!ok) pid = -1;
    return ok;
  }
  // Waits up to `timeout_ms` for the window to exit by itself; true when it did, with exit status
  // 0.
  bool WaitExit(int timeout_ms) {
    for (int waited = 0; waited <= timeout_ms; waited += 100) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        pid = -1;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0;
      }
      Sleep(100);
    }
    return false;
  }
  // Its first visible X window, "" when none appears within 20 s.
  std::string Window() const {
    return Run("timeout 20 xdotool search --sync --onlyvisible --pid " + std::to_string(pid) +
               " 2>/dev/null | head -n 1");
  }
};

}  // namespace gui_check
