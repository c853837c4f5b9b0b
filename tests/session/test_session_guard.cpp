// The unsaved-changes guard in front of everything that replaces the document: File > Open (and
// Open recent, a dropped file: the same RequestOpen), presets, quitting; and undo across an open.
#include "session_test_support.h"

namespace attnlab::app::testing {
namespace test_session_guard {
namespace {

class SessionGuard : public SessionTest {
 protected:
  void SetUp() override {
    SessionTest::SetUp();
    a_ = Write("a.json", SmallScenario(0.25));
    b_ = Write("b.json", SmallScenario(0.75));
    OpenClean(a_);
    ASSERT_TRUE(EditScale(0.5));
    ASSERT_TRUE(doc_.IsDirty());
  }
  std::string a_, b_;
};

TEST_F(SessionGuard, OpenAsksAndSaveWritesBeforeOpening) {
  session_.RequestOpen(b_);
  ASSERT_EQ(Asked(), Question::Kind::SaveChanges);
  EXPECT_EQ(session_.Pending()->action, "opening b.json");
  EXPECT_EQ(doc_.path, a_) << "nothing opens before the answer";
  session_.Answer(Choice::Save);
  PollUntilIdle();
  EXPECT_EQ(session_.Pending(), nullptr);
  EXPECT_EQ(ScaleIn(a_), 0.5) << "Save wrote the edit to a.json first";
  EXPECT_EQ(doc_.path, b_);
  EXPECT_EQ(Scale(), 0.75);
  EXPECT_FALSE(doc_.IsDirty());
}

TEST_F(SessionGuard, OpenDontSaveDropsTheEdit) {
  session_.RequestOpen(b_);
  session_.Answer(Choice::DontSave);
  EXPECT_EQ(session_.Pending(), nullptr);
  EXPECT_EQ(ScaleIn(a_), 0.25) << "a.json untouched";
  EXPECT_EQ(doc_.path, b_);
  EXPECT_FALSE(doc_.IsDirty());
}

TEST_F(SessionGuard, OpenCancelKeepsTheDocumentAndItsEdit) {
  const std::uint64_t version = doc_.Version();
  session_.RequestOpen(b_);
  session_.Answer(Choice::Cancel);
  EXPECT_EQ(session_.Pending(), nullptr);
  EXPECT_EQ(doc_.path, a_);
  EXPECT_EQ(doc_.Version(), version);
  EXPECT_TRUE(doc_.IsDirty());
  EXPECT_EQ(ScaleIn(a_), 0.25);
}

// The window hands a dropped file to the same RequestOpen as File > Open: a bad one is refused
// before anything is asked, a good one asks.
TEST_F(SessionGuard, DroppedFileIsRefusedOrAsksFirst) {
  const std::string broken = File("broken.json");
  { std::ofstream(broken) << "{ not json"; }
  session_.RequestOpen(broken);
  ASSERT_EQ(Asked(), Question::Kind::Error);
  EXPECT_EQ(session_.Pending()->title, "Cannot open broken.json");
  EXPECT_EQ(session_.ErrorCount(), 1);
  session_.Answer(Choice::Ok);
  EXPECT_EQ(session_.Pending(), nullptr);
  EXPECT_EQ(doc_.path, a_);
  EXPECT_TRUE(doc_.IsDirty());

  session_.RequestOpen(b_);
  ASSERT_EQ(Asked(), Question::Kind::SaveChanges);
  session_.Answer(Choice::DontSave);
  EXPECT_EQ(doc_.path, b_);
}

TEST_F(SessionGuard, PresetAsksFirst) {
  presets_.push_back({b_, "b", "The b preset"});
  session_.RequestOpenPreset(presets_.back());
  ASSERT_EQ(Asked(), Question::Kind::SaveChanges);
  EXPECT_EQ(session_.Pending()->action, "opening the preset b");
  session_.Answer(Choice::DontSave);
  EXPECT_TRUE(doc_.is_preset);
  EXPECT_EQ(doc_.name, "b");
  EXPECT_EQ(doc_.status, "preset b");
}

TEST_F(SessionGuard, QuitAsksCancelStaysDontSaveQuits) {
  session_.RequestQuit();
  ASSERT_EQ(Asked(), Question::Kind::SaveChanges);
  EXPECT_EQ(session_.Pending()->action, "quitting");
  session_.Answer(Choice::Cancel);
  EXPECT_FALSE(session_.QuitConfirmed());
  session_.RequestQuit();
  session_.Answer(Choice::DontSave);
  EXPECT_TRUE(session_.QuitConfirmed());
  EXPECT_EQ(ScaleIn(a_), 0.25);
}

TEST_F(SessionGuard, QuitSaveWritesThenQuits) {
  session_.RequestQuit();
  session_.Answer(Choice::Save);
  PollUntilIdle();
  EXPECT_TRUE(session_.QuitConfirmed());
  EXPECT_EQ(ScaleIn(a_), 0.5);
  EXPECT_FALSE(doc_.IsDirty());
}

TEST_F(SessionGuard, CleanDocumentNeverAsks) {
  session_.Save();
  EXPECT_FALSE(doc_.IsDirty());
  session_.RequestOpen(b_);
  EXPECT_EQ(session_.Pending(), nullptr);
  EXPECT_EQ(doc_.path, b_);
  session_.RequestQuit();
  EXPECT_EQ(session_.Pending(), nullptr);
  EXPECT_TRUE(session_.QuitConfirmed());
}

// A preset (the built-in example) has no file of its own: Save in the guard asks where first.
TEST_F(SessionGuard, SaveOfAPresetAsksWhereThenGoesOn) {
  presets_.push_back({b_, "b", "The b preset"});
  session_.RequestOpenPreset(presets_.back());
  session_.Answer(Choice::DontSave);
  ASSERT_TRUE(EditScale(0.125));
  session_.RequestQuit();
  ASSERT_EQ(Asked(), Question::Kind::SaveChanges);
  EXPECT_TRUE(session_.Pending()->save_asks_path);
  session_.Answer(Choice::Save);
  ASSERT_EQ(Asked(), Question::Kind::ChooseSavePath);
  EXPECT_EQ(session_.Pending()->suggested_name, "attnlab-b.json");
  EXPECT_FALSE(session_.QuitConfirmed());
  const std::string copy = File("copy.json");
  session_.SaveAs(copy);
  PollUntilIdle();
  EXPECT_TRUE(session_.QuitConfirmed());
  EXPECT_EQ(ScaleIn(copy), 0.125);
  EXPECT_EQ(ScaleIn(b_), 0.75) << "the preset stays read-only";
}

TEST_F(SessionGuard, CancelledSavePathCancelsTheQuit) {
  presets_.push_back({b_, "b", "The b preset"});
  session_.RequestOpenPreset(presets_.back());
  session_.Answer(Choice::DontSave);
  ASSERT_TRUE(EditScale(0.125));
  session_.RequestQuit();
  session_.Answer(Choice::Save);
  session_.Answer(Choice::Cancel);
  EXPECT_EQ(session_.Pending(), nullptr);
  EXPECT_FALSE(session_.QuitConfirmed());
  EXPECT_TRUE(doc_.IsDirty());
}

TEST_F(SessionGuard, OpenGoesIntoRecentFiles) {
  session_.RequestOpen(b_);
  session_.Answer(Choice::DontSave);
  ASSERT_FALSE(session_.Recent().Files().empty());
  EXPECT_EQ(session_.Recent().Files().front(), fs::path(b_).lexically_normal().string());
  EXPECT_TRUE(fs::exists(fs::path(ConfigDir()) / "recent.json"));
}

// Opening replaces the history: undo never brings back the other file's edits.
TEST_F(SessionGuard, DocumentUndoStopsAtAnOpen) {
  ASSERT_TRUE(doc_.CanUndo());
  session_.RequestOpen(b_);
  session_.Answer(Choice::DontSave);
  EXPECT_FALSE(doc_.CanUndo());
  const std::uint64_t version = doc_.Version();
  doc_.Undo();
  EXPECT_EQ(doc_.Version(), version);
  EXPECT_EQ(Scale(), 0.75);
  ASSERT_TRUE(EditScale(0.3));
  doc_.Undo();
  EXPECT_EQ(Scale(), 0.75);
  EXPECT_EQ(doc_.path, b_);
}

}  // namespace
}  // namespace test_session_guard
}  // namespace attnlab::app::testing
