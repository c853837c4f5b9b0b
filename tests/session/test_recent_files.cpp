// session/recent_files.h: most recent first, each file once, at most kMax, kept across restarts
// in recent.json; a missing or damaged list starts empty instead of failing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "session/recent_files.h"
#include "session_test_support.h"

namespace attnlab::app::testing {
namespace test_recent_files {
namespace {

class RecentFilesTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir(); }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string ListPath() const { return (dir_ / "recent.json").string(); }
  /// An absolute file name in the test's directory (RecentFiles keeps absolute paths).
  std::string File(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(RecentFilesTest, TheNewestComesFirst) {
  RecentFiles recent;
  recent.Load(ListPath());
  recent.Add(File("a.json"));
  recent.Add(File("b.json"));
  recent.Add(File("c.json"));
  EXPECT_EQ(recent.Files(), (std::vector<std::string>{File("c.json"), File("b.json"), File("a.json")}));
}

TEST_F(RecentFilesTest, AddingAFileAgainMovesItToTheFrontOnce) {
  RecentFiles recent;
  recent.Load(ListPath());
  recent.Add(File("a.json"));
  recent.Add(File("b.json"));
  recent.Add(File("a.json"));
  EXPECT_EQ(recent.Files(), (std::vector<std::string>{File("a.json"), File("b.json")}));
}

TEST_F(RecentFilesTest, RelativeAndUnnormalisedNamesOfOneFileAreOneEntry) {
  RecentFiles recent;
  recent.Load("");
  recent.Add(File("a.json"));
  recent.Add((dir_ / "sub" / ".." / "a.json").string());
  ASSERT_EQ(recent.Files().size(), 1u);
  EXPECT_EQ(recent.Files()[0], File("a.json"));
  recent.Add("relative.json");
  EXPECT_TRUE(fs::path(recent.Files()[0]).is_absolute()) << recent.Files()[0];
}

TEST_F(RecentFilesTest, KeepsTheNewestMaxFiles) {
  RecentFiles recent;
  recent.Load(ListPath());
  for (std::size_t i = 0; i < RecentFiles::kMax + 3; ++i) recent.Add(File(std::to_string(i) + ".json"));
  ASSERT_EQ(recent.Files().size(), RecentFiles::kMax);
  EXPECT_EQ(recent.Files().front(), File(std::to_string(RecentFiles::kMax + 2) + ".json"));
  EXPECT_EQ(recent.Files().back(), File("3.json"));
}

TEST_F(RecentFilesTest, SurvivesARestartInTheSameOrder) {
  RecentFiles before;
  before.Load(ListPath());
  before.Add(File("a.json"));
  before.Add(File("b.json"));
  before.Add(File("c.json"));
  before.Remove(File("b.json"));
  RecentFiles after;
  after.Load(ListPath());
  EXPECT_EQ(after.Files(), (std::vector<std::string>{File("c.json"), File("a.json")}));
  after.Clear();
  RecentFiles cleared;
  cleared.Load(ListPath());
  EXPECT_TRUE(cleared.Files().empty());
}

TEST_F(RecentFilesTest, AMissingOrDamagedListStartsEmpty) {
  RecentFiles recent;
  recent.Load(ListPath());
  EXPECT_TRUE(recent.Files().empty());
  for (const char* damaged : {"{ not json", "{\"recent\": 3}", "[1, 2]"}) {
    std::ofstream(ListPath()) << damaged;
    recent.Load(ListPath());
    EXPECT_TRUE(recent.Files().empty()) << damaged;
  }
  // Non-strings are skipped, the strings kept.
  std::ofstream(ListPath()) << "{\"recent\": [\"/x/a.json\", 7, \"/x/b.json\"]}";
  recent.Load(ListPath());
  EXPECT_EQ(recent.Files(), (std::vector<std::string>{"/x/a.json", "/x/b.json"}));
}

TEST_F(RecentFilesTest, AnEmptyPathKeepsTheListInMemoryOnly) {
  RecentFiles recent;
  recent.Load("");
  recent.Add(File("a.json"));
  EXPECT_EQ(recent.Files().size(), 1u);
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(RecentFilesTest, AnUnwritableListKeepsWorkingInMemory) {
  RecentFiles recent;
  recent.Load((dir_ / "no-such-dir" / "recent.json").string());
  recent.Add(File("a.json"));
  recent.Add(File("b.json"));
  EXPECT_EQ(recent.Files(), (std::vector<std::string>{File("b.json"), File("a.json")}));
}

}  // namespace
}  // namespace test_recent_files
}  // namespace attnlab::app::testing
