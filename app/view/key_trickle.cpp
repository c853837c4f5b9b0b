#include "view/key_trickle.h"

namespace attnlab::app {

std::vector<KeyEvent> KeyTrickle::Push(const KeyEvent& event) {
  waiting_.push_back(event);
  return Deliverable();
}

std::vector<KeyEvent> KeyTrickle::Deliverable() {
  std::vector<KeyEvent> now;
  while (!waiting_.empty()) {
    const KeyEvent& e = waiting_.front();
    const bool changes = e.action == kPress || e.action == kRelease;  // a repeat changes nothing
    // A second change of one key before a frame read the first would undo it unseen; a release
    // after a press no frame has read yet would split a chord (Ctrl let go before the frame sees S).
    if (changes && (changed_.count(e.key) || (e.action == kRelease && pressed_))) break;
    // Behind a handover key only its own release may go until two frames have read its press.
    if (handover_frames_ > 0 && !(e.action == kRelease && e.key == handover_key_)) break;
    if (e.action == kPress && handover_keys_.count(e.key)) {
      handover_key_ = e.key;
      handover_frames_ = 2;
    }
    if (changes) changed_.insert(e.key);
    pressed_ = pressed_ || e.action == kPress;
    now.push_back(e);
    waiting_.pop_front();
  }
  return now;
}

}  // namespace attnlab::app
