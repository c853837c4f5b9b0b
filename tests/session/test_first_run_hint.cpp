// The first-run hint's flag (session/first_run_hint.h): due in a fresh config dir, gone for good
// once dismissed, never shown without a config dir, and an unwritable one never crashes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "session/first_run_hint.h"

namespace attnlab::app {
namespace test_first_run_hint {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class FirstRunHintTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("attnlab-first-run-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path Flag() const { return dir_ / FirstRunHint::kFileName; }

  fs::path dir_;
};

TEST_F(FirstRunHintTest, DueInAFreshConfigDirUntilDismissedThenNeverAgain) {
  FirstRunHint first;
  first.Load(dir_.string());
  EXPECT_TRUE(first.Due());
  EXPECT_FALSE(fs::exists(Flag()))
      << "showing the hint must not remember it: only a dismissal does";

  FirstRunHint second_start;  // closed without dismissing: shown again
  second_start.Load(dir_.string());
  EXPECT_TRUE(second_start.Due());

  second_start.Dismiss();
  EXPECT_FALSE(second_start.Due());
  EXPECT_TRUE(fs::exists(Flag()));

  FirstRunHint third_start;
  third_start.Load(dir_.string());
  EXPECT_FALSE(third_start.Due());
  third_start.Dismiss();  // harmless when not due
  EXPECT_FALSE(third_start.Due());
}

TEST_F(FirstRunHintTest, NoConfigDirNeverShowsIt) {
  FirstRunHint hint;
  hint.Load("");
  EXPECT_FALSE(hint.Due());
  hint.Dismiss();
  EXPECT_FALSE(hint.Due());
}

TEST_F(FirstRunHintTest, AnUnwritableConfigDirHidesItForThisRunOnly) {
  // A "directory" that is a file: no user, root included, can write into it.
  const fs::path not_a_dir = dir_ / "a-file";
  { std::ofstream(not_a_dir) << "x"; }
  FirstRunHint hint;
  hint.Load(not_a_dir.string());
  ASSERT_TRUE(hint.Due());
  hint.Dismiss();
  EXPECT_FALSE(hint.Due());
  EXPECT_FALSE(fs::exists(not_a_dir / FirstRunHint::kFileName));
}

}  // namespace
}  // namespace test_first_run_hint
}  // namespace attnlab::app
