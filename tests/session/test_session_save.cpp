// Saving: a failed save keeps the old file and the unsaved state; a large file is read and
// written off the calling thread, and an action waits for a save still running.
#include <unistd.h>

#include "session_test_support.h"

namespace attnlab::app::testing {
namespace test_session_save {
namespace {

class SessionSave : public SessionTest {
 protected:
  void SetUp() override {
    SessionTest::SetUp();
    a_ = Write("a.json", SmallScenario(0.25));
    OpenClean(a_);
    ASSERT_TRUE(EditScale(0.5));
  }
  std::string a_;
};

TEST_F(SessionSave, SaveInPlaceMarksSavedAndRemembersTheFile) {
  session_.Save();
  EXPECT_EQ(session_.Pending(), nullptr);
  EXPECT_FALSE(doc_.IsDirty());
  EXPECT_EQ(ScaleIn(a_), 0.5);
  EXPECT_EQ(doc_.status, "saved " + a_);
  EXPECT_EQ(session_.GetIoStats().sync_saves, 1);
}

TEST_F(SessionSave, SaveAsOntoADirectoryFailsAndKeepsEverything) {
  const std::string target = File("a-directory");
  fs::create_directories(target);
  session_.SaveAs(target);
  PollUntilIdle();
  ASSERT_EQ(Asked(), Question::Kind::Error);
  EXPECT_EQ(session_.Pending()->title, "Not saved");
  EXPECT_TRUE(doc_.IsDirty());
  EXPECT_EQ(doc_.path, a_) << "the document still belongs to its file";
  EXPECT_EQ(ScaleIn(a_), 0.25) << "the old file is untouched";
  EXPECT_TRUE(fs::is_directory(target));
}

TEST_F(SessionSave, SaveAsWhereNothingCanBeWrittenFails) {
  for (const std::string& target : {File("no-such-folder/copy.json"), std::string("/proc/attnlab-copy.json")}) {
    session_.SaveAs(target);
    ASSERT_EQ(Asked(), Question::Kind::Error) << target;
    session_.Answer(Choice::Ok);
    EXPECT_FALSE(fs::exists(target));
    EXPECT_TRUE(doc_.IsDirty());
    EXPECT_EQ(doc_.path, a_);
  }
  EXPECT_EQ(session_.ErrorCount(), 2);
}

TEST_F(SessionSave, AFailedSaveInPlaceKeepsTheOldFileAndTheUnsavedState) {
  // A folder holds the name the save writes to before it renames: even root cannot write there.
  fs::create_directories(a_ + ".tmp-" + std::to_string(::getpid()) + "/occupied");
  session_.Save();
  ASSERT_EQ(Asked(), Question::Kind::Error);
  EXPECT_TRUE(doc_.IsDirty());
  EXPECT_EQ(ScaleIn(a_), 0.25) << "the file on disk is the one saved before";
}

TEST_F(SessionSave, FailedSaveInTheGuardDoesNotQuit) {
  session_.Save();  // the good file first: then make the next save fail
  ASSERT_TRUE(EditScale(0.625));
  fs::remove(a_);
  fs::create_directories(a_);  // a.json is now a directory: writing over it fails
  session_.RequestQuit();
  session_.Answer(Choice::Save);
  PollUntilIdle();
  EXPECT_EQ(Asked(), Question::Kind::Error);
  EXPECT_FALSE(session_.QuitConfirmed()) << "the work is unsaved: quitting must not go on";
  EXPECT_TRUE(doc_.IsDirty());
}

TEST_F(SessionSave, SaveThenQuitDoesNotAsk) {
  session_.Save();
  session_.RequestQuit();
  EXPECT_EQ(session_.Pending(), nullptr);
  EXPECT_TRUE(session_.QuitConfirmed());
}

class SessionLargeFile : public SessionTest {};

// 2048 x 64 x 4: about 3 MB of JSON and more numbers than the synchronous save takes.
TEST_F(SessionLargeFile, IsReadAndWrittenOffThreadAndAQuitWaitsForTheSave) {
  const std::string big = Write("big.json", RandomScenario(2048, 64, 4));
  ASSERT_GT(fs::file_size(big), std::uintmax_t{1} << 20);

  session_.RequestOpen(big);
  EXPECT_TRUE(session_.Busy()) << "read off the calling thread";
  ASSERT_EQ(Asked(), Question::Kind::Busy);
  EXPECT_EQ(session_.Pending()->busy, Question::BusyKind::Opening);
  EXPECT_NE(doc_.path, big) << "the document stays until the file is read";
  PollUntilIdle();
  EXPECT_EQ(doc_.path, big);
  EXPECT_EQ(doc_.GetScenario().n_x(), 2048);
  EXPECT_EQ(session_.GetIoStats().async_loads, 1);
  EXPECT_EQ(session_.GetIoStats().sync_loads, 0);

  ASSERT_TRUE(EditScale(0.5));
  session_.Save();
  session_.RequestQuit();  // Ctrl+S then Ctrl+Q: the quit waits for the save, then asks nothing
  EXPECT_FALSE(session_.QuitConfirmed());
  EXPECT_TRUE(session_.Blocking());
  PollUntilIdle();
  EXPECT_TRUE(session_.QuitConfirmed());
  EXPECT_EQ(session_.Pending(), nullptr);
  EXPECT_EQ(session_.GetIoStats().async_saves, 1);
  EXPECT_EQ(session_.GetIoStats().sync_saves, 0);
  EXPECT_EQ(ScaleIn(big), 0.5);
}

TEST_F(SessionLargeFile, CancelledReadKeepsTheDocument) {
  const std::string big = Write("big.json", RandomScenario(2048, 64, 4));
  const std::string before = doc_.path;
  session_.RequestOpen(big);
  ASSERT_EQ(Asked(), Question::Kind::Busy);
  session_.Answer(Choice::Cancel);
  EXPECT_FALSE(session_.Busy());
  PollUntilIdle();
  EXPECT_EQ(doc_.path, before);
  EXPECT_EQ(doc_.status, "did not open " + big);
}

TEST_F(SessionLargeFile, ABrokenLargeFileIsRefused) {
  const std::string big = Write("big.json", RandomScenario(2048, 64, 4));
  fs::resize_file(big, fs::file_size(big) / 2);  // truncated
  session_.RequestOpen(big);
  PollUntilIdle();
  ASSERT_EQ(Asked(), Question::Kind::Error);
  EXPECT_EQ(session_.Pending()->title, "Cannot open big.json");
}

}  // namespace
}  // namespace test_session_save
}  // namespace attnlab::app::testing
