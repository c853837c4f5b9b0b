// session/user_dirs.h: the XDG base directories win over HOME, HOME's defaults otherwise, the
// directories are created on demand, and no known place gives an empty path (nothing written).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "session/user_dirs.h"
#include "session_test_support.h"

namespace attnlab::app::testing {
namespace test_user_dirs {
namespace {

constexpr const char* kVariables[] = {"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_PICTURES_DIR"};

/// Starts with every variable above unset in a temporary directory; puts them back afterwards.
class UserDirsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    for (const char* name : kVariables) {
      const char* value = getenv(name);
      saved_[name] = value ? std::optional<std::string>(value) : std::nullopt;
      unsetenv(name);
    }
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_) {
      if (value)
        setenv(name.c_str(), value->c_str(), 1);
      else
        unsetenv(name.c_str());
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string Sub(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
  std::map<std::string, std::optional<std::string>> saved_;
};

TEST_F(UserDirsTest, XdgVariablesWinOverHome) {
  setenv("HOME", Sub("home").c_str(), 1);
  setenv("XDG_CONFIG_HOME", Sub("config").c_str(), 1);
  setenv("XDG_STATE_HOME", Sub("state").c_str(), 1);
  EXPECT_EQ(ConfigDir(), Sub("config/attnlab"));
  EXPECT_EQ(StateDir(), Sub("state/attnlab"));
  EXPECT_TRUE(fs::is_directory(Sub("config/attnlab")));
  EXPECT_TRUE(fs::is_directory(Sub("state/attnlab")));
  EXPECT_FALSE(fs::exists(Sub("home"))) << "HOME was used although XDG_* were set";
}

TEST_F(UserDirsTest, WithoutXdgTheyLiveUnderHome) {
  setenv("HOME", Sub("home").c_str(), 1);
  EXPECT_EQ(ConfigDir(), Sub("home/.config/attnlab"));
  EXPECT_EQ(StateDir(), Sub("home/.local/state/attnlab"));
  EXPECT_TRUE(fs::is_directory(Sub("home/.config/attnlab")));
  EXPECT_TRUE(fs::is_directory(Sub("home/.local/state/attnlab")));
  EXPECT_EQ(HomeDir(), Sub("home"));
}

TEST_F(UserDirsTest, AnEmptyVariableCountsAsUnset) {
  setenv("HOME", Sub("home").c_str(), 1);
  setenv("XDG_CONFIG_HOME", "", 1);
  setenv("XDG_STATE_HOME", "", 1);
  EXPECT_EQ(ConfigDir(), Sub("home/.config/attnlab"));
  EXPECT_EQ(StateDir(), Sub("home/.local/state/attnlab"));
}

TEST_F(UserDirsTest, NoKnownPlaceGivesEmptyPaths) {
  EXPECT_EQ(ConfigDir(), "");
  EXPECT_EQ(StateDir(), "");
  EXPECT_EQ(HomeDir(), ".");
}

TEST_F(UserDirsTest, ADirectoryThatCannotBeCreatedGivesAnEmptyPath) {
  const std::string file = Sub("a-file");
  { std::ofstream(file) << "not a directory"; }
  setenv("XDG_CONFIG_HOME", file.c_str(), 1);
  EXPECT_EQ(ConfigDir(), "");
}

TEST_F(UserDirsTest, PicturesFromXdgElseHomesPicturesElseHome) {
  setenv("HOME", Sub("home").c_str(), 1);
  fs::create_directories(Sub("home"));
  EXPECT_EQ(PicturesDir(), Sub("home"));
  fs::create_directories(Sub("home/Pictures"));
  EXPECT_EQ(PicturesDir(), Sub("home/Pictures"));
  setenv("XDG_PICTURES_DIR", Sub("shots").c_str(), 1);
  EXPECT_EQ(PicturesDir(), Sub("shots"));
}

}  // namespace
}  // namespace test_user_dirs
}  // namespace attnlab::app::testing
