// session/autosave.h on its own (tests/session/test_session_recovery.cpp drives it through the
// Session): a dirty document is written off the UI thread to autosave-<pid>.json and reads back
// as it was, a clean one leaves no file, Remove never races a write in flight, and FindOrphan
// offers only the newest autosave of a process that is gone, setting a broken one aside.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>

#include "session/autosave.h"
#include "session/document.h"
#include "session/task_runner.h"
#include "session_test_support.h"

namespace attnlab::app::testing {
namespace test_autosave {
namespace {

class AutosaveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    doc_.Open({SmallScenario(0.25), "/lectures/week1.json", "week1.json", false});
    autosave_.Init(dir_.string(), tasks_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  void Edit(double scale) {
    ASSERT_TRUE(doc_.ApplyEdit("scale", [scale](attnlab::Scenario& s) { s.scale.value = scale; }));
  }
  /// Delivers the writes in flight, as the window's frames do.
  void PollUntilIdle() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (tasks_.Busy() && std::chrono::steady_clock::now() < deadline) {
      tasks_.Poll();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_FALSE(tasks_.Busy());
  }
  std::string OrphanPath(long pid) const {
    return (dir_ / ("autosave-" + std::to_string(pid) + ".json")).string();
  }
  /// Writes an autosave of this test's document as process `pid` would have (a writer of its
  /// own: an Autosave writes at most once per kInterval).
  std::string WriteOrphan(long pid, double scale) {
    Edit(scale);
    Autosave writer;
    writer.Init(dir_.string(), tasks_);
    writer.Tick(doc_);
    PollUntilIdle();
    const std::string path = OrphanPath(pid);
    fs::rename(writer.Path(), path);
    return path;
  }

  fs::path dir_;
  Document doc_;
  TaskRunner tasks_;
  Autosave autosave_;  ///< after tasks_: it waits for its write on destruction
};

TEST_F(AutosaveTest, ItsFileIsNamedAfterTheProcessInTheStateDir) {
  EXPECT_TRUE(autosave_.Enabled());
  EXPECT_EQ(autosave_.Path(), OrphanPath(getpid()));
}

TEST_F(AutosaveTest, WithoutADirectoryNothingIsEverWritten) {
  Autosave off;
  off.Init("", tasks_);
  EXPECT_FALSE(off.Enabled());
  EXPECT_EQ(off.Path(), "");
  Edit(0.5);
  off.Tick(doc_);
  off.Remove();
  EXPECT_FALSE(tasks_.Busy());
  EXPECT_EQ(tasks_.GetStats().started, 0);
}

TEST_F(AutosaveTest, ACleanDocumentWritesNothing) {
  autosave_.Tick(doc_);
  EXPECT_FALSE(tasks_.Busy());
  EXPECT_FALSE(fs::exists(autosave_.Path()));
}

TEST_F(AutosaveTest, ADirtyDocumentIsWrittenOffTheUiThreadAndReadsBackAsItWas) {
  Edit(0.5);
  autosave_.Tick(doc_);
  EXPECT_TRUE(tasks_.Busy()) << "the write runs on the TaskRunner";
  PollUntilIdle();
  ASSERT_TRUE(fs::exists(autosave_.Path()));
  const RecoveredWork work = ReadAutosave(autosave_.Path());
  EXPECT_EQ(work.autosave_path, autosave_.Path());
  EXPECT_EQ(work.scenario.scale.value, 0.5);
  EXPECT_EQ(work.document_path, "/lectures/week1.json");
  EXPECT_EQ(work.document_name, "week1.json");
  EXPECT_FALSE(work.is_preset);
  EXPECT_TRUE(std::regex_match(work.saved_at, std::regex(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")))
      << work.saved_at;
}

TEST_F(AutosaveTest, AVersionAlreadyWrittenIsNotWrittenAgain) {
  Edit(0.5);
  autosave_.Tick(doc_);
  PollUntilIdle();
  autosave_.Tick(doc_);
  EXPECT_FALSE(tasks_.Busy());
  EXPECT_EQ(tasks_.GetStats().started, 1);
}

TEST_F(AutosaveTest, TheFileGoesOnceTheDocumentIsCleanAgain) {
  Edit(0.5);
  autosave_.Tick(doc_);
  PollUntilIdle();
  ASSERT_TRUE(fs::exists(autosave_.Path()));
  doc_.MarkSaved("/lectures/week1.json", doc_.Version());
  autosave_.Tick(doc_);
  EXPECT_FALSE(fs::exists(autosave_.Path()));
}

TEST_F(AutosaveTest, RemoveWaitsForTheWriteInFlightSoNothingComesBack) {
  Edit(0.5);
  autosave_.Tick(doc_);
  autosave_.Remove();  // the write may not have started yet
  PollUntilIdle();
  EXPECT_FALSE(fs::exists(autosave_.Path()));
}

TEST_F(AutosaveTest, AdoptMakesRecoveredWorkThisProcesssAndDiscardDeletesIt) {
  const std::string orphan = WriteOrphan(DeadPid(), 0.5);
  const RecoveredWork work = ReadAutosave(orphan);
  autosave_.Adopt(work);
  EXPECT_FALSE(fs::exists(orphan));
  ASSERT_TRUE(fs::exists(autosave_.Path()));
  EXPECT_EQ(ReadAutosave(autosave_.Path()).scenario.scale.value, 0.5);

  const std::string other = WriteOrphan(DeadPid(), 0.75);
  Autosave::Discard(ReadAutosave(other));
  EXPECT_FALSE(fs::exists(other));
}

TEST_F(AutosaveTest, FindOrphanOffersTheNewestFileOfAProcessThatIsGone) {
  std::string error;
  EXPECT_FALSE(FindOrphan(dir_.string(), autosave_.Path(), &error));
  const std::string older = WriteOrphan(DeadPid(), 0.5);
  const std::string newer = WriteOrphan(DeadPid(), 0.75);
  const auto now = fs::file_time_type::clock::now();
  fs::last_write_time(older, now - std::chrono::hours(2));
  fs::last_write_time(newer, now - std::chrono::hours(1));
  const std::optional<RecoveredWork> found = FindOrphan(dir_.string(), autosave_.Path(), &error);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->autosave_path, newer);
  EXPECT_EQ(found->scenario.scale.value, 0.75);
  EXPECT_EQ(error, "");
  EXPECT_TRUE(fs::exists(older)) << "only offered, never removed by looking";
}

TEST_F(AutosaveTest, FindOrphanLeavesLiveProcessesAndOtherFilesAlone) {
  const std::string own = WriteOrphan(getpid(), 0.5);  // alive: this very process
  fs::copy_file(own, dir_ / "autosave-12ab.json");
  fs::copy_file(own, dir_ / "notes.json");
  fs::copy_file(own, dir_ / "autosave-0.json");
  std::string error;
  EXPECT_FALSE(FindOrphan(dir_.string(), "", &error));
  EXPECT_EQ(error, "");
  EXPECT_FALSE(FindOrphan((dir_ / "missing").string(), "", &error));
  EXPECT_FALSE(FindOrphan("", "", &error));
}

TEST_F(AutosaveTest, ABrokenOrphanIsReportedAndSetAside) {
  const std::string orphan = OrphanPath(DeadPid());
  std::ofstream(orphan) << "{ broken";
  std::string error;
  EXPECT_FALSE(FindOrphan(dir_.string(), autosave_.Path(), &error));
  EXPECT_NE(error.find(orphan), std::string::npos) << error;
  EXPECT_NE(error.find(".broken"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(orphan));
  EXPECT_TRUE(fs::exists(orphan + ".broken"));
  error.clear();
  EXPECT_FALSE(FindOrphan(dir_.string(), autosave_.Path(), &error)) << "offered again";
  EXPECT_EQ(error, "");
}

TEST_F(AutosaveTest, ReadAutosaveNamesTheFileAndTheField) {
  const std::string not_json = (dir_ / "a.json").string();
  std::ofstream(not_json) << "[1, 2";
  try {
    ReadAutosave(not_json);
    FAIL() << "accepted";
  } catch (const attnlab::ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(not_json + ": not an attnlab autosave", 0), 0u) << e.what();
  }
  const std::string invalid = (dir_ / "b.json").string();
  std::ofstream(invalid) << R"({"attnlab_autosave": 1, "scenario": {"format": "attnlab/1",
      "X": [[1, 2, 3, 4]], "W_q": [[1, 0], [0, 1]]}})";
  try {
    ReadAutosave(invalid);
    FAIL() << "accepted";
  } catch (const attnlab::ScenarioError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(invalid + ": ", 0), 0u) << message;
    EXPECT_NE(message.find("W_q"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace test_autosave
}  // namespace attnlab::app::testing
