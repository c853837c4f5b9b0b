#pragma once
// A session on a document in a temporary HOME with its own config and state directories (XDG_*
// point there too), and the scenario files tests open.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "attnlab/random.h"
#include "attnlab/scenario_io.h"
#include "session/document.h"
#include "session/presets.h"
#include "session/session.h"

namespace attnlab::app::testing {

namespace fs = std::filesystem;

inline fs::path MakeTempDir() {
  std::string pattern = (fs::temp_directory_path() / "attnlab-session-XXXXXX").string();
  const char* made = mkdtemp(pattern.data());
  if (!made) throw std::runtime_error("mkdtemp failed");
  return made;
}

/// The compiled-in example: small, valid, written synchronously.
inline attnlab::Scenario SmallScenario(double scale) {
  attnlab::Scenario s = BuiltInExample({}).scenario;
  s.scale.kind = attnlab::Scale::Kind::value;
  s.scale.value = scale;
  return s;
}

/// tokens x width x heads, random: large enough to be read (and written) off the UI thread.
inline attnlab::Scenario RandomScenario(int tokens, int width, int heads) {
  attnlab::Scenario s;
  s.num_heads = heads;
  attnlab::RandomSpec normal, xavier;
  xavier.kind = attnlab::RandomSpec::Kind::xavier;
  s.X = attnlab::random_matrix(tokens, width, normal, 1);
  s.full.W_q = attnlab::random_matrix(width, width, xavier, 2);
  s.full.W_k = attnlab::random_matrix(width, width, xavier, 3);
  s.full.W_v = attnlab::random_matrix(width, width, xavier, 4);
  return s;
}

// A pid that was running a moment ago and is gone now (reaped): its autosave is an orphan.
inline pid_t DeadPid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

inline double ScaleIn(const std::string& path) {
  const attnlab::Scenario s = attnlab::load_scenario(path);
  return s.scale.kind == attnlab::Scale::Kind::value ? s.scale.value : -1.0;
}

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    for (const char* sub : {"home", "config", "state", "files"}) fs::create_directories(dir_ / sub);
    setenv("HOME", (dir_ / "home").c_str(), 1);
    setenv("XDG_CONFIG_HOME", (dir_ / "config").c_str(), 1);
    setenv("XDG_STATE_HOME", (dir_ / "state").c_str(), 1);
    unsetenv("DISPLAY");
    session_.Init(doc_, presets_, ConfigDir(), StateDir());
    session_.OpenAtStart("", false, false);  // the built-in example, as the window starts
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }

  std::string ConfigDir() const { return (dir_ / "config").string(); }
  std::string StateDir() const { return (dir_ / "state").string(); }
  std::string File(const std::string& name) const { return (dir_ / "files" / name).string(); }

  std::string Write(const std::string& name, const attnlab::Scenario& s) {
    attnlab::save_scenario(s, File(name));
    return File(name);
  }
  /// Opens `path` on a clean document; fails the test if anything is asked.
  void OpenClean(const std::string& path) {
    session_.RequestOpen(path);
    PollUntilIdle();
    ASSERT_EQ(session_.Pending(), nullptr);
    ASSERT_EQ(doc_.path, path);
  }
  bool EditScale(double scale) {
    return doc_.ApplyEdit("scale", [scale](attnlab::Scenario& s) {
      s.scale.kind = attnlab::Scale::Kind::value;
      s.scale.value = scale;
    });
  }
  double Scale() const { return doc_.GetScenario().scale.value; }
  /// Polls like the window's frames until `done` or 60 s.
  bool PollUntil(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (;;) {
      session_.Poll();
      if (done()) return true;
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  void PollUntilIdle() {
    ASSERT_TRUE(PollUntil([this] { return !session_.Busy() && !session_.Tasks().Busy(); }));
  }
  Question::Kind Asked() const {
    const Question* q = session_.Pending();
    return q ? q->kind : static_cast<Question::Kind>(-1);
  }

  fs::path dir_;
  Document doc_;
  std::vector<PresetInfo> presets_;
  Session session_;  ///< last: it refers to the document and the presets
};

}  // namespace attnlab::app::testing
