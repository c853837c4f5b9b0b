// PatchingRun (app/session/patching_run.h) on the hand-built induction circuit
// (assets/models/induction-circuit), without a display: the fields read as the Patching panel types
// them (token counts, the one line that refuses them), the suggested induction pair, a run on the
// session's kind of TaskRunner against the float64 reference of scripts/gen_induction_circuit.py
// (tests/fixtures/instruments/induction-circuit.json), and Cancel.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "session/patching_run.h"

namespace attnlab::app::testing {
namespace test_patching_run {
namespace {

constexpr double kTolerance = 1e-5;  // float forward pass against the float64 reference
const std::string kCircuit = std::string(ATTNLAB_SOURCE_DIR) + "/assets/models/induction-circuit";
const std::string kClean = "the cat sat on a mat . the cat";

nlohmann::json Reference() {
  std::ifstream in(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/instruments/induction-circuit.json");
  return nlohmann::json::parse(in)["patch"];
}

class PatchingRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = models::HfModel::open(kCircuit);
    run_.Init(tasks_);
  }
  /// Polls like the window's frames until `done` holds (false after 30 s).
  bool PollUntil(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      tasks_.Poll();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }
  bool Settle() { return PollUntil([this] { return !run_.Busy(); }); }
  PatchingInput Read(const PatchingFields& fields) { return ReadPatchingFields(model_, fields); }

  std::shared_ptr<const models::HfModel> model_;
  TaskRunner tasks_;  // before the run: it outlives it
  PatchingRun run_;
};

TEST_F(PatchingRunTest, FieldsReadAsTheTokenizerSplitsThem) {
  const PatchingInput in = Read({kClean, "the dog sat on a mat . the cat", " sat", " ran"});
  const nlohmann::json ref = Reference();
  EXPECT_EQ(in.error, "");
  EXPECT_EQ(in.request.clean, ref["clean"].get<std::vector<int>>());
  EXPECT_EQ(in.request.corrupted, ref["corrupted"].get<std::vector<int>>());
  EXPECT_EQ(in.request.answer, ref["answer"].get<int>());
  EXPECT_EQ(in.request.wrong, ref["wrong"].get<int>());
  EXPECT_EQ(in.clean_labels.size(), 10u);  // <|bos|> and nine words
  EXPECT_EQ(in.corrupt_labels[2], model_->label(3));
}

// Every row of docs/HOSTILE_INPUT.md's "The window's fields" (tests/hostile/cases.json).
TEST(PatchingFields, EveryHostileRowGivesItsOneLine) {
  std::ifstream in(std::string(ATTNLAB_SOURCE_DIR) + "/tests/hostile/cases.json");
  const nlohmann::json cases = nlohmann::json::parse(in)["window_cases"];
  ASSERT_GE(cases.size(), 5u);
  const auto text = [](const nlohmann::json& v) {  // a text, or {"repeat": S, "times": N}
    if (v.is_string()) return v.get<std::string>();
    std::string out;
    for (int i = 0; i < v["times"].get<int>(); ++i) out += v["repeat"].get<std::string>();
    return out;
  };
  for (const nlohmann::json& c : cases) {
    const std::string name = c["model"];
    const std::string dir = name == "induction-circuit" ? kCircuit : std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/models/" + name;
    const nlohmann::json& f = c["fields"];
    const PatchingInput read = ReadPatchingFields(models::HfModel::open(dir), {text(f["clean"]), text(f["corrupt"]),
                                                                              text(f["answer"]), text(f["wrong"])});
    EXPECT_EQ(read.error, c["message"].get<std::string>()) << c["case"];
    EXPECT_FALSE(read.Ready()) << c["case"];
  }
}

TEST_F(PatchingRunTest, ACountIsRefusedBeforeTheAnswersAreTyped) {
  const PatchingInput counts = Read({kClean, "the dog sat", "", ""});
  EXPECT_EQ(counts.error, "corrupt: 4 tokens, the clean prompt has 10: patching needs the same count");
  EXPECT_FALSE(counts.incomplete);  // a refusal, not the hint that the answers are empty
  const PatchingInput empty = Read({kClean, "", "", ""});
  EXPECT_TRUE(empty.incomplete);
  EXPECT_EQ(empty.clean_labels.size(), 10u);  // the clean prompt's count is shown meanwhile
}

TEST_F(PatchingRunTest, SuggestsTheCircuitsInductionPair) {
  const std::optional<PatchingFields> s = SuggestInductionPair(*model_, kClean);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->clean, kClean);
  EXPECT_EQ(s->corrupt, "the dog sat on a mat . the cat");
  EXPECT_EQ(s->answer, " sat");
  EXPECT_EQ(s->wrong, " ran");
  std::string why;
  EXPECT_FALSE(SuggestInductionPair(*model_, "the cat sat on a mat .", &why).has_value());  // "." is new
  EXPECT_NE(why.find("does not come earlier"), std::string::npos) << why;
  EXPECT_TRUE(Read({kClean, "", "", ""}).suggestion.has_value());
}

TEST_F(PatchingRunTest, RunEqualsTheFloat64Reference) {
  run_.SetFields(model_, {kClean, "the dog sat on a mat . the cat", " sat", " ran"});
  ASSERT_TRUE(Settle());
  ASSERT_TRUE(run_.CanRun()) << (run_.Input() ? run_.Input()->error : "no input");
  run_.Run();
  EXPECT_TRUE(run_.Running());
  ASSERT_TRUE(Settle());
  ASSERT_NE(run_.Result(), nullptr) << run_.Note();
  EXPECT_EQ(run_.Done(), run_.Total());
  EXPECT_EQ(run_.Total(), 2 * 2 + 2 * 10);  // every head, every layer x position
  const PatchingResult& r = *run_.Result();
  const nlohmann::json ref = Reference();
  double worst = std::max(std::abs(r.patching.clean - ref["ld_clean"].get<double>()),
                          std::abs(r.patching.corrupted - ref["ld_corrupted"].get<double>()));
  for (int l = 0; l < 2; ++l) {
    for (int h = 0; h < 2; ++h) worst = std::max(worst, std::abs(r.patching.heads(l, h) - ref["heads"][l][h].get<double>()));
    for (int p = 0; p < 10; ++p)
      worst = std::max(worst, std::abs(r.patching.positions(l, p) - ref["positions"][l][p].get<double>()));
  }
  std::cout << "largest error against the float64 reference: " << worst << "\n";
  EXPECT_LT(worst, kTolerance);
  EXPECT_NEAR(r.Raw(1.0), r.patching.clean, 1e-12);
  EXPECT_NEAR(r.Raw(0.0), r.patching.corrupted, 1e-12);
  run_.SetFields(model_, {kClean, "the dog sat on a mat . the cat", " sat", " on"});
  EXPECT_TRUE(run_.ResultStale());
}

TEST_F(PatchingRunTest, CancelStopsTheRunAndKeepsTheLastResult) {
  run_.SetFields(model_, {kClean, "the dog sat on a mat . the cat", " sat", " ran"});
  ASSERT_TRUE(Settle());
  run_.Run();
  ASSERT_TRUE(Settle());
  const PatchingResult* first = run_.Result();
  ASSERT_NE(first, nullptr);
  run_.HoldNextRun();  // waits after its first patched run until cancelled
  run_.Run();
  ASSERT_TRUE(PollUntil([this] { return run_.Done() >= 1; }));
  EXPECT_TRUE(run_.Running());
  run_.Cancel();
  EXPECT_FALSE(run_.Running());
  EXPECT_EQ(run_.Note(), "run: cancelled after 1 of 24 patched runs");
  ASSERT_TRUE(Settle());
  tasks_.Poll();
  EXPECT_EQ(run_.Result(), first);  // the cancelled run's result (none) replaced nothing
  run_.Run();  // not held: runs to the end
  ASSERT_TRUE(Settle());
  EXPECT_NE(run_.Result(), first);
  EXPECT_EQ(run_.Note(), "");
}

TEST_F(PatchingRunTest, AnotherModelDropsTheResult) {
  run_.SetFields(model_, {kClean, "the dog sat on a mat . the cat", " sat", " ran"});
  ASSERT_TRUE(Settle());
  run_.Run();
  ASSERT_TRUE(Settle());
  ASSERT_NE(run_.Result(), nullptr);
  run_.SetFields(models::HfModel::open(kCircuit), run_.Fields());
  EXPECT_EQ(run_.Result(), nullptr);
  EXPECT_TRUE(run_.InputStale());
  ASSERT_TRUE(Settle());
  EXPECT_TRUE(run_.CanRun());
}

}  // namespace
}  // namespace test_patching_run
}  // namespace attnlab::app::testing
