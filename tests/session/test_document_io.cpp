// session/document_io.h: which files are read and which scenarios written off the UI thread.
// The thresholds are strict (exactly at the limit stays synchronous), a missing file is read at
// once (so it fails at once), and a scenario large enough to be written off the thread makes a
// file large enough to be read off it again.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "attnlab/scenario_io.h"
#include "session/document_io.h"
#include "session_test_support.h"

namespace attnlab::app::testing {
namespace test_document_io {
namespace {

class DocumentIoTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir(); }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  /// A file of `bytes` bytes (its contents do not matter: only its size is looked at).
  std::string FileOf(std::uintmax_t bytes) const {
    const std::string path = (dir_ / ("f" + std::to_string(bytes))).string();
    std::ofstream(path) << std::string(static_cast<std::size_t>(bytes), ' ');
    return path;
  }

  fs::path dir_;
};

/// A scenario holding X only, `values` numbers in all.
attnlab::Scenario WithValues(int values) {
  attnlab::Scenario s;
  s.X = attnlab::Matrix::Zero(values / 64, 64);
  return s;
}

TEST_F(DocumentIoTest, FilesLargerThanTheLimitLoadOffThread) {
  EXPECT_FALSE(LoadsOffThread(FileOf(0)));
  EXPECT_FALSE(LoadsOffThread(FileOf(kOffThreadFileBytes)));
  EXPECT_TRUE(LoadsOffThread(FileOf(kOffThreadFileBytes + 1)));
}

TEST_F(DocumentIoTest, AMissingFileLoadsAtOnce) {
  EXPECT_FALSE(LoadsOffThread((dir_ / "missing.json").string()));
  EXPECT_FALSE(LoadsOffThread(""));
}

TEST(DocumentIo, ScenariosWithMoreNumbersThanTheLimitSaveOffThread) {
  const int limit = static_cast<int>(kOffThreadValues);
  EXPECT_FALSE(SavesOffThread(SmallScenario(0.5)));
  EXPECT_FALSE(SavesOffThread(WithValues(limit)));
  EXPECT_TRUE(SavesOffThread(WithValues(limit + 64)));
  // Every matrix counts, not only X: weights push a scenario over the limit too.
  attnlab::Scenario s = WithValues(limit);
  s.full.W_q = attnlab::Matrix::Identity(64, 64);
  EXPECT_TRUE(SavesOffThread(s));
}

TEST_F(DocumentIoTest, WhatSavesOffThreadLoadsOffThreadAgain) {
  // 512 tokens x 256 wide with three projections: just over the limit of numbers.
  const attnlab::Scenario s = RandomScenario(512, 256, 4);
  ASSERT_TRUE(SavesOffThread(s));
  const std::string path = (dir_ / "large.json").string();
  attnlab::save_scenario(s, path);
  EXPECT_TRUE(LoadsOffThread(path)) << fs::file_size(path) << " bytes";
}

}  // namespace
}  // namespace test_document_io
}  // namespace attnlab::app::testing
