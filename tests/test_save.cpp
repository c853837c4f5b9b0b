// Saving never loses the previous file: a save that fails part-way (file size limit, standing in for
// a full disk) or a process killed in the middle of writing leaves the old file whole and readable,
// and a failed save leaves no temporary file behind.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "attnlab/model.h"
#include "attnlab/random.h"
#include "attnlab/scenario_io.h"

namespace test_save {

namespace {

namespace fs = std::filesystem;

class Save : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/attnlab-save-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    path_ = (dir_ / "lesson.json").string();
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  /// n tokens of width d, seeded random values: about 20 bytes a number in the file.
  static attnlab::Scenario scenario(int n, int d, std::uint64_t seed) {
    attnlab::Scenario s;
    s.title = "lesson " + std::to_string(seed);
    attnlab::RandomSpec spec;
    spec.seed = seed;
    s.X = attnlab::random_matrix(n, d, spec, 1);
    s.full.W_q = attnlab::random_matrix(d, d, spec, 2);
    return s;
  }
  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    return names;
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(Save, RoundTripsAndKeepsPermissions) {
  const attnlab::Scenario s = scenario(3, 4, 1);
  attnlab::save_scenario(s, path_);
  ASSERT_EQ(::chmod(path_.c_str(), 0600), 0);
  attnlab::save_scenario(scenario(3, 4, 2), path_);
  struct stat info {};
  ASSERT_EQ(::stat(path_.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u) << "a private file must stay private";
  EXPECT_EQ(attnlab::load_scenario(path_).title, "lesson 2");
  EXPECT_EQ(files(), std::vector<std::string>{"lesson.json"});
}

// packaging/attnlab-mime.xml recognises a scenario file by these first bytes, whatever its name.
TEST_F(Save, WritesTheFormatKeyFirstForFileManagers) {
  attnlab::save_scenario(scenario(3, 4, 1), path_);
  const std::string text = read(path_);
  EXPECT_EQ(text.rfind("{\n  \"format\": \"attnlab/1\",\n  \"", 0), 0u) << text.substr(0, 60);
  EXPECT_EQ(text.find("\"format\"", 5), std::string::npos) << "written once";
  EXPECT_EQ(attnlab::scenario_to_json(attnlab::load_scenario(path_)),
            attnlab::scenario_to_json(scenario(3, 4, 1)));
}

// RLIMIT_FSIZE makes write() fail with EFBIG part-way through, as a full disk fails with ENOSPC: a
// real failure of the real write path, unprivileged.
TEST_F(Save, AWriteThatFailsPartWayLeavesTheOldFileAndNoTemporary) {
  attnlab::save_scenario(scenario(4, 4, 1), path_);
  const std::string before = read(path_);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);  // write() returns EFBIG instead of the signal killing us
    const rlimit cap{64 << 10, 64 << 10};
    ::setrlimit(RLIMIT_FSIZE, &cap);
    try {
      attnlab::save_scenario(scenario(200, 200, 2), path_);  // about 1.6 MB
      ::_exit(10);                                            // the save should have failed
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      ::_exit(what.rfind(path_ + ": cannot write: ", 0) == 0 ? 0 : 11);
    }
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: the save did not fail; 11: the error did not name the path";
  EXPECT_EQ(read(path_), before) << "the old file changed";
  EXPECT_EQ(attnlab::load_scenario(path_).title, "lesson 1");
  EXPECT_EQ(files(), std::vector<std::string>{"lesson.json"}) << "a temporary file was left behind";
}

// The same limit with SIGXFSZ at its default action kills the saving process in the middle of a write:
// a crash at a known point.
TEST_F(Save, AProcessKilledInTheMiddleOfAWriteLeavesTheOldFile) {
  attnlab::save_scenario(scenario(4, 4, 1), path_);
  const std::string before = read(path_);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_DFL);
    const rlimit cap{64 << 10, 64 << 10};
    ::setrlimit(RLIMIT_FSIZE, &cap);
    attnlab::save_scenario(scenario(200, 200, 2), path_);
    ::_exit(10);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGXFSZ);
  EXPECT_EQ(read(path_), before);
  EXPECT_EQ(attnlab::load_scenario(path_).title, "lesson 1");
}

// SIGKILL at arbitrary moments of back-to-back saves: the file on disk always loads, as one
// complete version or the other, whenever the kill lands.
TEST_F(Save, SigkillAtAnyMomentLeavesALoadableFile) {
  const attnlab::Scenario a = scenario(150, 150, 1), b = scenario(150, 150, 2);
  attnlab::save_scenario(a, path_);
  for (int round = 0; round < 8; ++round) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      for (int i = 0;; ++i) attnlab::save_scenario(i % 2 ? a : b, path_);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20 + 17 * round));
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status));
    attnlab::Scenario loaded;
    ASSERT_NO_THROW(loaded = attnlab::load_scenario(path_)) << "round " << round;
    EXPECT_TRUE(loaded.title == "lesson 1" || loaded.title == "lesson 2") << loaded.title;
    EXPECT_NO_THROW(attnlab::validate(loaded));
  }
}

TEST_F(Save, AnUnwritableDirectoryIsAnErrorNamingThePath) {
  try {
    attnlab::save_scenario(scenario(2, 2, 1), (dir_ / "no-such-dir" / "x.json").string());
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind((dir_ / "no-such-dir" / "x.json").string() + ": cannot write", 0), 0u)
        << e.what();
  }
  EXPECT_EQ(files(), std::vector<std::string>{});
}

}  // namespace

}  // namespace test_save
