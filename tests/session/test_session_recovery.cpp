// Crash recovery: an autosave left by a process that is gone is offered; Restore applies it on
// top of its file (undo leads back to the file), Discard deletes it. And the autosave itself.

#include <nlohmann/json.hpp>

#include "session_test_support.h"

namespace attnlab::app::testing {
namespace test_session_recovery {
namespace {

class SessionRecovery : public SessionTest {
 protected:
  void SetUp() override {
    SessionTest::SetUp();
    doc_file_ = Write("lecture.json", SmallScenario(0.25));
  }
  /// What session/autosave.cpp writes: autosave-<pid>.json in the state dir.
  std::string WriteOrphan(double scale) { return WriteOrphanOf(doc_file_, SmallScenario(scale)); }
  std::string WriteOrphanOf(const std::string& document, const attnlab::Scenario& work) {
    nlohmann::json doc;
    doc["attnlab_autosave"] = 1;
    doc["document_path"] = document;
    doc["document_name"] = fs::path(document).filename().string();
    doc["is_preset"] = false;
    doc["saved_at"] = "2026-11-23 19:00:00";
    doc["scenario"] = attnlab::scenario_to_json(work);
    const std::string path =
        (fs::path(StateDir()) / ("autosave-" + std::to_string(DeadPid()) + ".json")).string();
    attnlab::write_file_atomically(path, doc.dump());
    return path;
  }
  bool AskedToRecover() {
    return PollUntil([this] { return Asked() == Question::Kind::Recover || !session_.Tasks().Busy(); }) &&
           Asked() == Question::Kind::Recover;
  }
  std::string OwnAutosave() const { return session_.GetAutosave().Path(); }

  std::string doc_file_;
};

TEST_F(SessionRecovery, NothingToOfferAsksNothing) {
  session_.OfferRecovery("");
  PollUntilIdle();
  EXPECT_EQ(session_.Pending(), nullptr);
}

TEST_F(SessionRecovery, OfferedAndRestoredOnTopOfItsFile) {
  const std::string orphan = WriteOrphan(0.5);
  session_.OfferRecovery("");
  ASSERT_TRUE(AskedToRecover());
  const Question& q = *session_.Pending();
  ASSERT_NE(q.recovery, nullptr);
  EXPECT_EQ(q.recovery->document_name, "lecture.json");
  EXPECT_EQ(q.recovery->saved_at, "2026-11-23 19:00:00");
  session_.Answer(Choice::Restore);
  PollUntilIdle();
  EXPECT_EQ(session_.Pending(), nullptr);
  EXPECT_EQ(doc_.path, doc_file_);
  EXPECT_EQ(Scale(), 0.5);
  EXPECT_TRUE(doc_.IsDirty()) << "restored work is unsaved";
  EXPECT_FALSE(fs::exists(orphan));
  EXPECT_TRUE(fs::exists(OwnAutosave())) << "adopted: still protected until saved";
  doc_.Undo();
  EXPECT_EQ(Scale(), 0.25) << "undo leads back to the file";

  doc_.Redo();
  session_.Save();
  EXPECT_EQ(ScaleIn(doc_file_), 0.5);
  EXPECT_FALSE(fs::exists(OwnAutosave())) << "saving removes the autosave";
}

TEST_F(SessionRecovery, DeclinedDeletesTheAutosave) {
  const std::string orphan = WriteOrphan(0.5);
  const std::uint64_t version = doc_.Version();
  session_.OfferRecovery("");
  ASSERT_TRUE(AskedToRecover());
  session_.Answer(Choice::Discard);
  PollUntilIdle();
  EXPECT_EQ(session_.Pending(), nullptr);
  EXPECT_FALSE(fs::exists(orphan));
  EXPECT_EQ(doc_.Version(), version);
  EXPECT_FALSE(doc_.IsDirty());
}

// The file the work belongs to is over 1 MiB: it is read off the calling thread ("Restoring...").
TEST_F(SessionRecovery, ALargeDocumentIsRestoredOnTopOfItsFileReadOffThread) {
  attnlab::Scenario big = RandomScenario(2048, 64, 4);
  const std::string big_file = Write("big.json", big);
  ASSERT_GT(fs::file_size(big_file), std::uintmax_t{1} << 20);
  big.scale.kind = attnlab::Scale::Kind::value;
  big.scale.value = 0.5;
  WriteOrphanOf(big_file, big);
  session_.OfferRecovery("");
  ASSERT_TRUE(AskedToRecover());
  session_.Answer(Choice::Restore);
  ASSERT_EQ(Asked(), Question::Kind::Busy);
  EXPECT_EQ(session_.Pending()->busy, Question::BusyKind::Restoring);
  PollUntilIdle();
  EXPECT_EQ(session_.Pending(), nullptr);
  EXPECT_EQ(doc_.path, big_file);
  EXPECT_EQ(Scale(), 0.5);
  EXPECT_TRUE(doc_.IsDirty());
  EXPECT_EQ(session_.GetIoStats().async_loads, 1);
  doc_.Undo();
  EXPECT_EQ(doc_.GetScenario().scale.kind, attnlab::Scale::Kind::inv_sqrt_dk) << "undo: the file as read";
}

TEST_F(SessionRecovery, OtherAnswersLeaveTheOfferOpen) {
  WriteOrphan(0.5);
  session_.OfferRecovery("");
  ASSERT_TRUE(AskedToRecover());
  session_.Answer(Choice::Cancel);
  EXPECT_EQ(Asked(), Question::Kind::Recover);
}

TEST_F(SessionRecovery, ScriptedAnswersDecideWithoutAsking) {
  WriteOrphan(0.5);
  session_.OfferRecovery("yes");
  EXPECT_EQ(session_.Pending(), nullptr);
  EXPECT_EQ(Scale(), 0.5);
  const std::string second = WriteOrphan(0.75);
  session_.OfferRecovery("no");
  EXPECT_FALSE(fs::exists(second));
  EXPECT_EQ(Scale(), 0.5);
}

TEST_F(SessionRecovery, ABrokenAutosaveIsSetAsideAndReported) {
  const std::string orphan = (fs::path(StateDir()) / ("autosave-" + std::to_string(DeadPid()) + ".json")).string();
  { std::ofstream(orphan) << "{ broken"; }
  session_.OfferRecovery("");
  PollUntilIdle();
  ASSERT_EQ(Asked(), Question::Kind::Error);
  EXPECT_EQ(session_.Pending()->title, "Cannot restore autosave");
  EXPECT_TRUE(fs::exists(orphan + ".broken"));
}

TEST_F(SessionRecovery, AnOwnAutosaveIsWrittenWhileDirtyAndRemovedOnceSaved) {
  OpenClean(doc_file_);
  ASSERT_TRUE(EditScale(0.5));
  // The autosave waits Autosave::kInterval after the last write (none yet: at once).
  ASSERT_TRUE(PollUntil([this] { return fs::exists(OwnAutosave()) && !session_.Tasks().Busy(); }));
  const nlohmann::json written = nlohmann::json::parse(std::ifstream(OwnAutosave()));
  EXPECT_EQ(written.at("scenario").at("scale"), 0.5);
  session_.Save();
  EXPECT_FALSE(fs::exists(OwnAutosave())) << "saved: the autosave is no longer needed";
  session_.Close();
}

TEST_F(SessionRecovery, ScriptedRunsLeaveTheStateDirAlone) {
  Document doc;
  std::vector<PresetInfo> presets;
  Session scripted;
  scripted.Init(doc, presets, "", "");
  scripted.OpenAtStart(doc_file_, false, false);
  doc.ApplyEdit("scale", [](attnlab::Scenario& s) { s.scale.value = 3.0; });
  scripted.Poll();
  scripted.Close();
  EXPECT_TRUE(fs::is_empty(StateDir()));
  EXPECT_TRUE(fs::is_empty(ConfigDir()));
}

}  // namespace
}  // namespace test_session_recovery
}  // namespace attnlab::app::testing
