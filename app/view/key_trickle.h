#pragma once
/// Key events from GLFW's callback, handed on to ImGui at most one change per key per frame
/// (GUI-free). ImGui 1.86 reads the keys' state once a frame, so a key pressed and released
/// between two frames (a 5 ms tap from xdotool or a presentation clicker) was never seen: no
/// shortcut, no Ctrl+A in a text field. Here a release waits until a frame has read every press
/// before it (so a chord is seen whole), and everything after it waits too, so the order of the
/// keys is kept. A key that hands the keyboard to someone else (Enter closing the Open dialog,
/// Esc, Tab) holds the keys after it back for one more frame: the frame after the one that acts
/// on it still reports the old text field as wanting the keys (ImGui's WantTextInput lags a
/// frame), so a "P" typed ahead after Ctrl+O, a path and Enter went to the closed dialog.
#include <deque>
#include <set>
#include <utility>
#include <vector>

namespace attnlab::app {

/// One call of GLFW's key callback; `action` is GLFW's (0 release, 1 press, 2 repeat), or kChar
/// for a typed character (`key` its code point), which waits behind the keys before it: "t" typed
/// right after a Ctrl+A tap must not reach a frame that still sees Ctrl down (ImGui drops it).
struct KeyEvent {
  int key = 0;
  int scancode = 0;
  int action = 0;
  int mods = 0;
};

class KeyTrickle {
 public:
  /// `handover_keys`: the key codes whose press may move the keyboard to another owner.
  explicit KeyTrickle(std::set<int> handover_keys = {}) : handover_keys_(std::move(handover_keys)) {}

  static constexpr int kRelease = 0;
  static constexpr int kPress = 1;
  static constexpr int kChar = 3;

  /// Queues `event`; returns the events to hand to ImGui now, in order (often just `event`).
  std::vector<KeyEvent> Push(const KeyEvent& event);
  /// The waiting events that may go to ImGui now (call before a frame reads the keys).
  std::vector<KeyEvent> Deliverable();
  /// Just after the frame read the keys: every key may change once more.
  void FrameRead() {
    changed_.clear();
    pressed_ = false;
    if (handover_frames_ > 0) --handover_frames_;
  }
  /// Events still waiting for a frame (the window must draw one more).
  bool Waiting() const { return !waiting_.empty(); }

 private:
  std::deque<KeyEvent> waiting_;
  std::set<int> changed_;  ///< keys pressed or released since the last frame read them
  bool pressed_ = false;   ///< a key was pressed since then: releases wait, the chord stays whole
  std::set<int> handover_keys_;
  int handover_key_ = 0;      ///< the handover key last delivered down
  int handover_frames_ = 0;   ///< frames still to read before the keys after it may go
};

}  // namespace attnlab::app
