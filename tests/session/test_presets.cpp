// session/presets.h: the preset list (every .json of the folder, sorted by file name, titled from
// the file), every shipped preset loading and validating, the example the window starts on (the
// preferred preset, the next good one, or the compiled-in scenario) and refusals naming the file.
// The numbers inside the presets are checked against their notebooks in tests/test_preset_files.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "attnlab/model.h"
#include "attnlab/scenario_io.h"
#include "session/presets.h"
#include "session_test_support.h"

namespace attnlab::app::testing {
namespace test_presets {
namespace {

const std::string kShippedDir = std::string(ATTNLAB_SOURCE_DIR) + "/assets/presets";

std::vector<std::string> Stems(const std::vector<PresetInfo>& presets) {
  std::vector<std::string> stems;
  for (const PresetInfo& p : presets) stems.push_back(p.stem);
  return stems;
}

class PresetFolder : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir(); }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string Put(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  std::string PutScenario(const std::string& name, const std::string& title) const {
    attnlab::Scenario s = SmallScenario(0.5);
    s.title = title;
    const std::string path = (dir_ / name).string();
    attnlab::save_scenario(s, path);
    return path;
  }

  fs::path dir_;
};

TEST(ShippedPresets, EveryJsonFileIsListedSortedWithItsTitle) {
  std::vector<std::string> expected;
  for (const fs::directory_entry& e : fs::directory_iterator(kShippedDir))
    if (e.path().extension() == ".json") expected.push_back(e.path().stem().string());
  std::sort(expected.begin(), expected.end());
  ASSERT_FALSE(expected.empty());

  const std::vector<PresetInfo> presets = ListPresets(kShippedDir);
  EXPECT_EQ(Stems(presets), expected);
  for (const PresetInfo& p : presets) {
    EXPECT_EQ(fs::path(p.path).stem().string(), p.stem);
    EXPECT_EQ(p.title, attnlab::load_scenario(p.path).title) << p.stem;
    EXPECT_FALSE(p.title.empty()) << p.stem;
  }
}

TEST(ShippedPresets, EveryPresetLoadsValidatesAndResolves) {
  for (const PresetInfo& p : ListPresets(kShippedDir)) {
    SCOPED_TRACE(p.stem);
    attnlab::Scenario s;
    ASSERT_NO_THROW(s = LoadAndValidate(p.path));
    EXPECT_NO_THROW(attnlab::resolve(s));
    EXPECT_GT(s.n_x(), 0);
  }
}

TEST(ShippedPresets, TheWindowStartsOnThePreferredPreset) {
  const LoadedScenario start = BuiltInExample(ListPresets(kShippedDir));
  EXPECT_EQ(start.name, "vaswani-q2-is-attends");
  EXPECT_EQ(fs::path(start.path).filename(), "vaswani-q2-is-attends.json");
  EXPECT_TRUE(start.is_preset);
}

TEST(ShippedPresets, WithoutPresetsTheCompiledInExampleIsValid) {
  const LoadedScenario start = BuiltInExample({});
  EXPECT_EQ(start.path, "");
  EXPECT_TRUE(start.is_preset) << "Save must write a copy, never nothing";
  EXPECT_NO_THROW(attnlab::validate(start.scenario));
  EXPECT_EQ(start.scenario.tokens, (std::vector<std::string>{"the", "cat", "sat"}));
}

TEST(ShippedPresets, TheFolderFoundIsAnAbsoluteDirectoryOrNothing) {
  // The test binary lies outside an install and outside the window's build folder: whatever it
  // finds must be a real folder, never a guessed path.
  const std::string dir = FindPresetDir();
  if (!dir.empty()) {
    EXPECT_TRUE(fs::path(dir).is_absolute()) << dir;
    EXPECT_TRUE(fs::is_directory(dir)) << dir;
  }
}

TEST_F(PresetFolder, OnlyJsonFilesAreListedAndABrokenOneKeepsItsStemAsTitle) {
  PutScenario("b-good.json", "A good one");
  Put("a-broken.json", "{ not a scenario");
  Put("notes.txt", "not a preset");
  const std::vector<PresetInfo> presets = ListPresets(dir_.string());
  ASSERT_EQ(Stems(presets), (std::vector<std::string>{"a-broken", "b-good"}));
  EXPECT_EQ(presets[0].title, "a-broken");
  EXPECT_EQ(presets[1].title, "A good one");
}

// Issue 39: the shipped lesson names its model "../models/induction-circuit". A relative folder is
// read from the file's folder, through a link to it (the build tree's presets), when it is there;
// else it stays as written (read from the working folder, as before); an absolute one stays.
TEST_F(PresetFolder, ARelativeModelFolderIsReadFromTheFilesFolderWhenItIsThere) {
  fs::create_directories(dir_ / "share/models/circuit");
  fs::create_directories(dir_ / "share/presets");
  fs::create_directories(dir_ / "build");
  fs::create_directory_symlink(dir_ / "share/presets", dir_ / "build/presets");
  const auto folder_after_load = [](const std::string& folder, const fs::path& file) {
    attnlab::Scenario s = SmallScenario(0.5);
    s.view["model"] = {{"folder", folder}};
    attnlab::save_scenario(s, file.string());
    return LoadAndValidate(file.string()).view["model"]["folder"].get<std::string>();
  };
  const fs::path circuit = fs::canonical(dir_ / "share/models/circuit");
  EXPECT_EQ(folder_after_load("../models/circuit", dir_ / "share/presets/a.json"), circuit.string());
  EXPECT_EQ(folder_after_load("../models/circuit", dir_ / "build/presets/b.json"), circuit.string());
  EXPECT_EQ(folder_after_load("../models/missing", dir_ / "share/presets/c.json"), "../models/missing");
  EXPECT_EQ(folder_after_load("/somewhere/else", dir_ / "share/presets/d.json"), "/somewhere/else");
}

TEST_F(PresetFolder, NoFolderListsNothing) {
  EXPECT_TRUE(ListPresets("").empty());
  EXPECT_TRUE(ListPresets((dir_ / "missing").string()).empty());
}

TEST_F(PresetFolder, ABrokenPreferredPresetGivesWayToTheNextGoodOne) {
  Put("vaswani-q2-is-attends.json", "{ broken");
  PutScenario("z-fallback.json", "Next");
  const LoadedScenario start = BuiltInExample(ListPresets(dir_.string()));
  EXPECT_EQ(start.name, "z-fallback");
  EXPECT_EQ(start.scenario.title, "Next");
}

TEST_F(PresetFolder, OnlyBrokenPresetsGiveTheCompiledInExample) {
  Put("a.json", "{ broken");
  Put("b.json", "[]");
  const LoadedScenario start = BuiltInExample(ListPresets(dir_.string()));
  EXPECT_EQ(start.path, "");
  EXPECT_EQ(start.name, "built-in example");
}

TEST_F(PresetFolder, LoadAndValidateRefusesAnInvalidScenarioInOneLine) {
  // Parses, but the weights do not fit X (4 wide): refused by validation, naming the field.
  const std::string path = Put("bad.json", R"({"format": "attnlab/1", "X": [[1, 2, 3, 4]],
      "W_q": [[1, 0], [0, 1]]})");
  try {
    LoadAndValidate(path);
    FAIL() << "accepted";
  } catch (const attnlab::ScenarioError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("W_q"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_THROW(LoadAndValidate((dir_ / "missing.json").string()), attnlab::ScenarioError);
}

}  // namespace
}  // namespace test_presets
}  // namespace attnlab::app::testing
