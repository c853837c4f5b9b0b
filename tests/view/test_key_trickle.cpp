#include <gtest/gtest.h>

#include <vector>

#include "view/key_trickle.h"

namespace test_key_trickle {
using attnlab::app::KeyEvent;
using attnlab::app::KeyTrickle;

constexpr int kCtrl = 341, kL = 76, kZ = 90;  // GLFW_KEY_LEFT_CONTROL, GLFW_KEY_L, GLFW_KEY_Z
KeyEvent Press(int key) { return {key, 0, KeyTrickle::kPress, 0}; }
KeyEvent Release(int key) { return {key, 0, KeyTrickle::kRelease, 0}; }

std::vector<int> Keys(const std::vector<KeyEvent>& events) {
  std::vector<int> keys;
  for (const KeyEvent& e : events) keys.push_back(e.action == KeyTrickle::kPress ? e.key : -e.key);
  return keys;
}

// A Ctrl+L tap whole between two frames: the frame sees Ctrl+L down, the next one sees it up.
TEST(KeyTrickle, ATapBetweenTwoFramesIsSeenDownByOneFrame) {
  KeyTrickle t;
  EXPECT_EQ(Keys(t.Push(Press(kCtrl))), (std::vector<int>{kCtrl}));
  EXPECT_EQ(Keys(t.Push(Press(kL))), (std::vector<int>{kL}));
  EXPECT_TRUE(t.Push(Release(kL)).empty());
  EXPECT_TRUE(t.Push(Release(kCtrl)).empty()) << "Ctrl kept down for the frame that sees L";
  EXPECT_TRUE(t.Waiting());
  EXPECT_TRUE(t.Deliverable().empty()) << "no frame read the keys yet";
  t.FrameRead();
  EXPECT_EQ(Keys(t.Deliverable()), (std::vector<int>{-kL, -kCtrl}));
  EXPECT_FALSE(t.Waiting());
}

// Ctrl+Shift+S whose Ctrl comes up first, between the frame that saw Ctrl and Shift down and the
// one that would see S: Ctrl and Shift stay down for the frame that sees S.
TEST(KeyTrickle, AChordIsSeenWholeWhateverTheReleaseOrder) {
  constexpr int kShift = 340, kS = 83;
  KeyTrickle t;
  t.Push(Press(kCtrl));
  t.Push(Press(kShift));
  t.FrameRead();  // a frame saw Ctrl+Shift
  EXPECT_EQ(Keys(t.Push(Press(kS))), (std::vector<int>{kS}));
  EXPECT_TRUE(t.Push(Release(kCtrl)).empty()) << "no frame saw S yet";
  EXPECT_TRUE(t.Push(Release(kShift)).empty());
  EXPECT_TRUE(t.Push(Release(kS)).empty());
  t.FrameRead();
  EXPECT_EQ(Keys(t.Deliverable()), (std::vector<int>{-kCtrl, -kShift, -kS}));
}

// A character typed right after a Ctrl+A tap waits until a frame has seen Ctrl up.
TEST(KeyTrickle, TypedTextWaitsBehindTheKeysBeforeIt) {
  constexpr int kA = 65;
  KeyTrickle t;
  t.Push(Press(kCtrl));
  t.Push(Press(kA));
  t.Push(Release(kA));
  t.Push(Release(kCtrl));
  EXPECT_TRUE(t.Push({'t', 0, KeyTrickle::kChar, 0}).empty());
  t.FrameRead();
  const std::vector<KeyEvent> next = t.Deliverable();
  ASSERT_EQ(next.size(), 3u);
  EXPECT_EQ(next[2].action, KeyTrickle::kChar);
  EXPECT_EQ(next[2].key, 't');
}

// Two taps of one key before any frame: two frames see it down, one press each.
TEST(KeyTrickle, TwoTapsReachTwoFrames) {
  KeyTrickle t;
  std::vector<int> delivered;
  for (const KeyEvent& e : {Press(kZ), Release(kZ), Press(kZ), Release(kZ)})
    for (int k : Keys(t.Push(e))) delivered.push_back(k);
  EXPECT_EQ(delivered, (std::vector<int>{kZ}));
  std::vector<std::vector<int>> frames;
  for (int frame = 0; frame < 4 && t.Waiting(); ++frame) {
    t.FrameRead();
    frames.push_back(Keys(t.Deliverable()));
  }
  EXPECT_EQ(frames, (std::vector<std::vector<int>>{{-kZ}, {kZ}, {-kZ}}));
}

// A key held across frames passes straight through: nothing waits.
TEST(KeyTrickle, SlowKeysPassAtOnce) {
  KeyTrickle t;
  EXPECT_EQ(t.Push(Press(kL)).size(), 1u);
  t.FrameRead();
  EXPECT_EQ(t.Push({kL, 0, 2, 0}).size(), 1u) << "a repeat changes no state";
  EXPECT_EQ(t.Push(Release(kL)).size(), 1u);
  EXPECT_FALSE(t.Waiting());
}

// Ctrl+O, a path, Enter and P typed ahead of slow frames: Enter closes the dialog in the frame that
// reads it, and the frame after still reports the dialog's field as wanting the keys; P waits for
// the frame after that (Enter's own release does not).
TEST(KeyTrickle, KeysTypedAheadWaitTwoFramesBehindAKeyThatHandsTheKeyboardOver) {
  constexpr int kEnter = 257, kP = 80;
  KeyTrickle t({kEnter});
  std::vector<int> delivered = Keys(t.Push(Press(kEnter)));
  // GLFW calls back P's press, its character, then its release.
  for (const KeyEvent& e : {Release(kEnter), Press(kP), KeyEvent{'p', 0, KeyTrickle::kChar, 0}, Release(kP)})
    for (int k : Keys(t.Push(e))) delivered.push_back(k);
  EXPECT_EQ(delivered, (std::vector<int>{kEnter}));
  std::vector<std::vector<int>> frames;
  for (int frame = 0; frame < 5 && t.Waiting(); ++frame) {
    t.FrameRead();
    frames.push_back(Keys(t.Deliverable()));
  }
  // Keys writes the character as minus its code point.
  EXPECT_EQ(frames, (std::vector<std::vector<int>>{{-kEnter}, {kP, -'p'}, {-kP}}));
}

// A key outside the handover set holds nothing back beyond the trickle's own rule.
TEST(KeyTrickle, OtherKeysHoldNothingBack) {
  constexpr int kEnter = 257, kP = 80;
  KeyTrickle t({kEnter});
  t.Push(Press(kZ));
  t.Push(Release(kZ));
  EXPECT_EQ(Keys(t.Push(Press(kP))), (std::vector<int>{}));
  t.FrameRead();
  EXPECT_EQ(Keys(t.Deliverable()), (std::vector<int>{-kZ, kP}));
}

}  // namespace test_key_trickle
