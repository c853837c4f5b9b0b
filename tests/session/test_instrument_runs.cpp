// The head finder and the logit lens as the window runs them (app/session/instrument_runs.h), off
// the UI thread on the session's TaskRunner, without a display: the scores and the lens of a text
// against the float64 references of tests/fixtures (PyTorch, scripts/gen_models.py and
// scripts/gen_induction_circuit.py) to 1e-5, the induction score on the random repeat the CLI
// draws, the hand-built circuit's induction head found, a newer ask stopping the running one, and a
// refusal in one line.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/models/token_text.h"
#include "session/instrument_runs.h"
#include "session/model_lab.h"
#include "session_test_support.h"

namespace attnlab::app::testing {
namespace test_instrument_runs {
namespace {

using nlohmann::json;

constexpr double kTolerance = 1e-5;  // float forward pass against the float64 reference

const fs::path kSource = ATTNLAB_SOURCE_DIR;

std::shared_ptr<const models::HfModel> Open(const std::string& name) {
  return models::HfModel::open(name == "induction-circuit" ? kSource / "assets/models/induction-circuit"
                                                           : kSource / "tests/fixtures/models" / name);
}

json Reference(const std::string& name) {
  std::ifstream in(name == "induction-circuit" ? kSource / "tests/fixtures/instruments/induction-circuit.json"
                                               : kSource / "tests/fixtures/models" / name / "instruments.json");
  return json::parse(in);
}

/// The largest |got - expected| of a layers x columns table; null expects NaN.
double TableError(const Eigen::MatrixXd& got, const json& expected) {
  EXPECT_EQ(got.rows(), Eigen::Index(expected.size()));
  double worst = 0;
  for (Eigen::Index r = 0; r < got.rows(); ++r)
    for (Eigen::Index c = 0; c < got.cols(); ++c) {
      const json& e = expected.at(std::size_t(r)).at(std::size_t(c));
      const double error = e.is_null() ? (std::isnan(got(r, c)) ? 0.0 : INFINITY)
                                       : (std::isnan(got(r, c)) ? INFINITY : std::abs(got(r, c) - e.get<double>()));
      worst = std::max(worst, error);
    }
  return worst;
}

class InstrumentRunsTest : public SessionTest {
 protected:
  template <typename Run>
  bool Settle(const Run& run) {
    return PollUntil([&run] { return !run.Stale(); });
  }
};

TEST_F(InstrumentRunsTest, TextScoresMatchTheReferenceAndInductionIsTheCliRepeat) {
  for (const char* name : {"gpt2-f32", "induction-circuit"}) {
    const auto model = Open(name);
    const json text_case = Reference(name).at("heads").at(0);
    HeadFinderRun run;
    run.Request(session_.Tasks(), {model, text_case.at("ids").get<std::vector<int>>(), 10, 3});
    EXPECT_TRUE(run.Stale()) << "computed off the UI thread, delivered by Poll()";
    ASSERT_TRUE(Settle(run));
    ASSERT_NE(run.Get(), nullptr) << run.Error();
    const HeadFinderResult& r = *run.Get();
    EXPECT_TRUE(r.on_text);
    EXPECT_EQ(r.labels, model->labels(text_case.at("ids").get<std::vector<int>>()));
    for (models::HeadScore s : {models::HeadScore::previous_token, models::HeadScore::first_token,
                                models::HeadScore::duplicate_token, models::HeadScore::local_span}) {
      const double error = TableError(r.scores[s], text_case.at("scores").at(models::score_name(s)));
      EXPECT_LE(error, kTolerance) << name << " " << models::score_name(s);
      std::cout << "  " << name << " " << models::score_name(s) << ": max error " << error << "\n";
    }
    // The induction score reads the repeat `attnlab-cli heads --random-repeat 10 --seed 3` draws.
    const models::RepeatedIds repeated = models::random_repeat(*model, 10, 3);
    EXPECT_EQ(r.repeat_ids, repeated.ids);
    const models::HeadScores expected = models::find_heads(model->transformer(), repeated.ids, repeated.repeat);
    EXPECT_EQ(r.scores[models::HeadScore::induction], expected[models::HeadScore::induction]);
  }
}

TEST_F(InstrumentRunsTest, TheCircuitsInductionHeadIsFoundOnTheRepeatAlone) {
  const auto model = Open("induction-circuit");
  HeadFinderRun run;
  run.Request(session_.Tasks(), {model, {}, 12, 0});
  ASSERT_TRUE(Settle(run));
  ASSERT_NE(run.Get(), nullptr) << run.Error();
  const HeadFinderResult& r = *run.Get();
  EXPECT_FALSE(r.on_text);
  EXPECT_EQ(r.scores.ids, r.repeat_ids) << "without a text every score reads the repeat";
  const Eigen::MatrixXd& induction = r.scores[models::HeadScore::induction];
  const Eigen::MatrixXd& previous = r.scores[models::HeadScore::previous_token];
  std::cout << "  induction\n" << induction << "\n  previous-token\n" << previous << "\n";
  Eigen::Index layer = 0, head = 0;
  induction.maxCoeff(&layer, &head);
  EXPECT_EQ(layer, 1);
  EXPECT_EQ(head, 1) << "head 1.1 is the induction head as built";
  EXPECT_GT(induction(1, 1), 0.5);
  previous.maxCoeff(&layer, &head);
  EXPECT_EQ(layer, 0);
  EXPECT_EQ(head, 0) << "head 0.0 is the previous-token head as built";
}

TEST_F(InstrumentRunsTest, LensMatchesTheReference) {
  for (const char* name : {"gpt2-f32", "induction-circuit"}) {
    const auto model = Open(name);
    const json expected = Reference(name).at("lens");
    LensRun run;
    run.Request(session_.Tasks(), {model, expected.at("ids").get<std::vector<int>>(), expected.at("chosen").get<int>(), {}});
    ASSERT_TRUE(Settle(run));
    ASSERT_NE(run.Get(), nullptr) << run.Error();
    const LensResult& r = *run.Get();
    double worst = 0;
    for (std::size_t l = 0; l < r.lens.top.size(); ++l) {
      const json& layer = expected.at("layers").at(l);
      for (std::size_t i = 0; i < r.lens.top[l].size(); ++i) {
        EXPECT_EQ(r.lens.top[l][i].id, layer.at("top_id").at(i).get<int>()) << name << " layer " << l << " position " << i;
        EXPECT_EQ(r.top_labels[l][i], model->label(r.lens.top[l][i].id));
        worst = std::max(worst, std::abs(r.lens.top[l][i].p - layer.at("top_p").at(i).get<double>()));
        worst = std::max(worst, std::abs(r.lens.chosen(Eigen::Index(l), Eigen::Index(i)) -
                                         layer.at("chosen_p").at(i).get<double>()));
      }
    }
    EXPECT_LE(worst, kTolerance) << name;
    std::cout << "  " << name << " lens: max error " << worst << "\n";
  }
}

// Issue 39: a layer document with a head switched off. The lens runs the model with it off, and after
// the last layer says what Next token says: the rest of the model run on the core's attention of
// that layer's scenario with the head off (ModelLab's path, apart from the lens's hooks).
TEST_F(InstrumentRunsTest, LensFollowsTheDocumentsHeadsSwitchedOffAsNextTokenDoes) {
  const auto model = Open("induction-circuit");
  const std::vector<int> ids = model->encode("the cat sat on a mat . the cat");
  const int vocab = model->config().vocab, last = int(ids.size()) - 1;
  const models::ForwardRun run = model->transformer().run(ids, vocab);
  attnlab::Scenario layer = models::layer_scenario(*model, run, 1);
  layer.heads_off = {1};  // the induction head, switched off in the document
  const std::vector<models::Prediction> next =
      model->transformer().next_after_layer(run, 1, LayerOutput(layer), vocab);
  LensRun unedited, edited;  // one after the other: the runner keeps one task of a kind
  unedited.Request(session_.Tasks(), {model, ids, {}, {}});
  ASSERT_TRUE(Settle(unedited));
  edited.Request(session_.Tasks(), {model, ids, {}, {{1, 1}}});
  ASSERT_TRUE(Settle(edited));
  ASSERT_NE(unedited.Get(), nullptr) << unedited.Error();
  ASSERT_NE(edited.Get(), nullptr) << edited.Error();
  const models::Prediction before = unedited.Get()->lens.top.back()[std::size_t(last)];
  const models::Prediction after = edited.Get()->lens.top.back()[std::size_t(last)];
  EXPECT_EQ(model->label(before.id), model->label(model->encode(" sat").back()));
  EXPECT_GT(before.p, 0.9);
  EXPECT_NE(after.id, before.id) << "the lens ignored the head switched off";
  EXPECT_EQ(after.id, next.at(0).id);
  EXPECT_NEAR(after.p, next.at(0).p, kTolerance);
  std::cout << "  unedited " << model->label(before.id) << " " << before.p << "; head 1.1 off: lens "
            << model->label(after.id) << " " << after.p << ", Next token " << model->label(next[0].id) << " "
            << next[0].p << "\n";
}

TEST_F(InstrumentRunsTest, ANewerAskStopsTheRunningOneAndTheSameAskIsNotComputedAgain) {
  const auto model = Open("gpt2-f32");
  const std::vector<int> first = {269, 272, 325}, second = {269, 272, 325, 275, 258};
  LensRun run;
  run.Request(session_.Tasks(), {model, first, std::nullopt, {}});
  run.Request(session_.Tasks(), {model, second, std::nullopt, {}});  // typed on: the first is dropped
  ASSERT_TRUE(Settle(run));
  ASSERT_NE(run.Get(), nullptr) << run.Error();
  EXPECT_EQ(run.Get()->lens.ids, second);
  const TaskRunner::Stats stats = session_.Tasks().GetStats();
  EXPECT_EQ(stats.cancelled + stats.superseded, 1);
  const std::uint64_t serial = run.Serial();
  run.Request(session_.Tasks(), {model, second, std::nullopt, {}});
  EXPECT_FALSE(run.Stale()) << "the same ask again computes nothing";
  EXPECT_EQ(run.Serial(), serial);
  run.Clear(session_.Tasks());
  EXPECT_EQ(run.Get(), nullptr);
}

TEST_F(InstrumentRunsTest, TooLongARepeatAndTwoTokensAreRefusedInOneLine) {
  const auto model = Open("induction-circuit");  // 48 positions
  HeadFinderRun run;
  run.Request(session_.Tasks(), {model, {}, 24, 0});
  ASSERT_TRUE(Settle(run));
  EXPECT_EQ(run.Get(), nullptr);
  EXPECT_EQ(run.Error(), "--random-repeat: 24 tokens twice after the BOS make 49, more than the model's 48 positions");
  EXPECT_EQ(models::one_token(*model, "token", " cat"), 2);
  try {
    models::one_token(*model, "token", " the cat");
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "token: \" the cat\" is 2 tokens (\" the\", \" cat\"): give the text of one token");
  }
}

TEST_F(InstrumentRunsTest, AnEncoderIsRefusedInOneLineByTheHeadFinderAndTheLens) {
  // Both read a model left to right; an encoder's tokens see the whole text. The panels say the
  // same line instead of their controls (panel_head_finder.cpp, panel_lens.cpp).
  const auto bert = Open("bert-f32");
  const std::vector<int> ids = bert->encode("the cat sat.");
  HeadFinderRun heads;
  heads.Request(session_.Tasks(), {bert, ids, 3, 0});
  LensRun lens;
  lens.Request(session_.Tasks(), {bert, ids, std::nullopt, {}});
  ASSERT_TRUE(Settle(heads));
  ASSERT_TRUE(Settle(lens));
  EXPECT_EQ(heads.Get(), nullptr);
  EXPECT_EQ(lens.Get(), nullptr);
  EXPECT_EQ(heads.Error(), "model: " + models::head_finder_refusal(bert->config()));
  EXPECT_EQ(lens.Error(), "model: " + models::logit_lens_refusal(bert->config()));
  EXPECT_EQ(models::logit_lens_refusal(bert->config()).rfind("bert is an encoder: ", 0), 0u);
  EXPECT_EQ(models::head_finder_refusal(Open("gpt2-f32")->config()), "");
}

}  // namespace
}  // namespace test_instrument_runs
}  // namespace attnlab::app::testing
