#pragma once
/// --input-log FILE: what ImGui saw of the keyboard and the mouse, one line rewritten after every
/// frame, so that window tests (tests/gui/window_driver.sh) wait until a frame has seen a key or a
/// click instead of sleeping. ImGui 1.86 reads the keys' state once a frame, so a key pressed and
/// released between two frames is never seen: the driver releases a key only once a frame saw it
/// down, and sends the next input only once a frame saw it up.
#include <cstdint>
#include <string>

namespace attnlab::app {

struct AppState;

/// The line: "frame=F held=N keys=K1,K2 buttons=B pos=X,Y chars=C clicks=L double_clicks=D
/// wheel=W text_input=0|1 lecture_toggles=T version=V redo=R popup=NAME".
///  - held, keys: how many keys are down and their GLFW key codes ("-": none);
///  - buttons: a bit per mouse button held (1 left, 2 right, 4 middle); pos: the mouse in window
///    pixels ("none" when ImGui has no mouse position);
///  - chars, clicks (left presses), double_clicks (left), wheel (notches, down negative): counted
///    from the start;
///  - text_input: a text field holds the keyboard (typed characters go to it);
///  - lecture_toggles: how many times lecture mode changed from one frame to the next; version:
///    the document's Version(); redo: the steps Ctrl+Shift+Z can redo (what shortcuts did);
///  - popup: the name of the topmost open popup, which takes the keys ("-": none); last on the
///    line because a name may hold spaces.
class InputLog {
 public:
  explicit InputLog(std::string path);
  /// Right after ImGui's new frame: io holds what this frame sees.
  void Observe();
  /// After the frame was drawn, so a test that saw the line sees the frame's effects too.
  void Write(int frame, const AppState& state);

 private:
  std::string path_;
  std::string seen_;  ///< this frame's keys, buttons and mouse position
  long chars_ = 0;
  long clicks_ = 0;
  long double_clicks_ = 0;
  double wheel_ = 0;
  bool lecture_ = false;
  long lecture_toggles_ = 0;
};

}  // namespace attnlab::app
