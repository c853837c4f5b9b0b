// Issue 39's instruments on the tiny models: the named sites of the forward pass (read, replaced,
// restarted from), and the head finder's scores, the logit lens and activation patching against the
// float64 reference scripts/gen_models.py computes with PyTorch from the same definitions
// (instruments.json of gpt2-f32, llama-gqa-bf16 and qwen2-f32), to 1e-5.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "attnlab/models/head_finder.h"
#include "attnlab/models/hf_model.h"
#include "attnlab/models/logit_lens.h"
#include "attnlab/models/patching.h"

namespace attnlab::models {
namespace test_instruments {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The hand-built circuit (scripts/gen_induction_circuit.py) ships in assets/; its reference is a fixture.
const char* const kInstrumented[] = {"gpt2-f32", "llama-gqa-bf16", "qwen2-f32", "induction-circuit"};
constexpr double kTolerance = 1e-5;

const fs::path kFixtures = fs::path(ATTNLAB_SOURCE_DIR) / "tests/fixtures/models";
const fs::path kCircuit = fs::path(ATTNLAB_SOURCE_DIR) / "assets/models/induction-circuit";

fs::path model_dir(const std::string& name) { return name == "induction-circuit" ? kCircuit : kFixtures / name; }

json instruments(const std::string& name) {
  std::ifstream in(name == "induction-circuit" ? fs::path(ATTNLAB_SOURCE_DIR) / "tests/fixtures/instruments/induction-circuit.json"
                                               : kFixtures / name / "instruments.json");
  return json::parse(in);
}

/// The largest |got - expected| over a layers x columns table; a null expects NaN and a NaN
/// where a number is expected counts as infinite.
double table_error(const Eigen::MatrixXd& got, const json& expected) {
  EXPECT_EQ(got.rows(), Eigen::Index(expected.size()));
  double worst = 0;
  for (Eigen::Index r = 0; r < got.rows(); ++r)
    for (Eigen::Index c = 0; c < got.cols(); ++c) {
      const json& e = expected.at(std::size_t(r)).at(std::size_t(c));
      if (e.is_null()) worst = std::max(worst, std::isnan(got(r, c)) ? 0.0 : INFINITY);
      else worst = std::max(worst, std::isnan(got(r, c)) ? INFINITY : std::abs(got(r, c) - e.get<double>()));
    }
  return worst;
}

TEST(Sites, RecordWhatTheRunRecordsAndZeroedZIsAHeadOff) {
  const auto model = HfModel::open(model_dir("llama-gqa-bf16"));
  const Transformer& t = model->transformer();
  const std::vector<int> ids = {357, 269, 279, 266, 280, 258};
  SiteCache cache;
  for (Site s : {Site::resid_pre, Site::attn_out, Site::pattern, Site::resid_post, Site::q, Site::z}) cache.record(s);
  const ForwardRun run = t.run(ids, 5, {}, Keep::all(), nullptr, &cache);
  const ForwardRun plain = t.run(ids, 5);
  for (std::size_t i = 0; i < run.next.size(); ++i) EXPECT_EQ(run.next[i].p, plain.next[i].p) << "hooks that read change nothing";
  for (int l = 0; l < t.config().layers; ++l) {
    const LayerRun& layer = run.layers[std::size_t(l)];
    EXPECT_EQ(cache.get({Site::resid_pre, l}), layer.residual_in);
    EXPECT_EQ(cache.get({Site::attn_out, l}), layer.attn_out);
    for (int h = 0; h < t.config().heads; ++h) EXPECT_EQ(cache.get({Site::pattern, l, h}), layer.weights[std::size_t(h)]);
    EXPECT_EQ(cache.get({Site::q, l}).cols(), t.config().heads * t.config().head_dim);
    EXPECT_EQ(cache.get({Site::z, l, 0}).cols(), t.config().head_dim);
    if (l + 1 < t.config().layers) EXPECT_EQ(cache.get({Site::resid_post, l}), run.layers[std::size_t(l) + 1].residual_in);
  }
  // A head's z replaced by zeros is the head switched off; a restart from a cached residual stream
  // gives the full run's last residual stream.
  SitePatch zero;
  zero.replace({Site::z, 1, 2}, MatrixF::Zero(Eigen::Index(ids.size()), t.config().head_dim));
  const ForwardRun off = t.run(ids, 5, {{1, 2}});
  const ForwardRun zeroed = t.run(ids, 5, {}, Keep::none(), nullptr, &zero);
  for (std::size_t i = 0; i < off.next.size(); ++i) {
    EXPECT_EQ(zeroed.next[i].id, off.next[i].id);
    EXPECT_NEAR(zeroed.next[i].p, off.next[i].p, 1e-7);
  }
  const MatrixF restarted = t.run_from(1, cache.get({Site::resid_pre, 1}));
  EXPECT_EQ(restarted, cache.get({Site::resid_post, t.config().layers - 1}));
}

TEST(Sites, AReplacementOfAnotherShapeIsRefusedNamingTheSite) {
  const auto model = HfModel::open(model_dir("gpt2-f32"));
  SitePatch wrong;
  wrong.replace({Site::z, 0, 1}, MatrixF::Zero(2, 3));
  try {
    model->transformer().run({1, 2, 3}, 5, {}, Keep::none(), nullptr, &wrong);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "site: layer 0 z of head 1: expected 3x8, got 2x3");
  }
}

TEST(HeadFinder, EveryScoreOfEveryHeadMatchesTheReference) {
  for (const char* name : kInstrumented) {
    const auto model = HfModel::open(model_dir(name));
    const json cases = instruments(name).at("heads");
    ASSERT_EQ(cases.size(), 2u) << name;
    for (const json& c : cases) {
      std::optional<Repeat> repeat;
      if (c.contains("repeat")) repeat = Repeat{c["repeat"].at("length").get<int>(), c["repeat"].at("first").get<int>()};
      const HeadScores scores = find_heads(model->transformer(), c.at("ids").get<std::vector<int>>(), repeat);
      for (int s = 0; s < kHeadScores; ++s) {
        const char* score = score_name(HeadScore(s));
        const double error = table_error(scores.scores[std::size_t(s)], c.at("scores").at(score));
        EXPECT_LE(error, kTolerance) << name << " " << score;
        std::cout << "  " << name << (repeat ? " repeat " : " text ") << score << ": max error " << error << "\n";
      }
    }
  }
}

TEST(HeadFinder, RandomRepeatIsTwiceTheSameTokensAfterTheBos) {
  const std::vector<int> ids = random_repeat(6, 42, 100, 7, 64);
  ASSERT_EQ(ids.size(), 13u);
  EXPECT_EQ(ids[0], 7);
  for (int i = 1; i <= 6; ++i) {
    EXPECT_EQ(ids[std::size_t(i)], ids[std::size_t(i + 6)]);
    EXPECT_NE(ids[std::size_t(i)], 7);
    EXPECT_LT(ids[std::size_t(i)], 100);
  }
  EXPECT_EQ(random_repeat(6, 42, 100, 7, 64), ids) << "the same seed, the same ids";
  EXPECT_EQ(random_repeat(3, 1, 100, std::nullopt, 6).size(), 6u);
  try {
    random_repeat(32, 1, 100, 7, 64);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "--random-repeat: 32 tokens twice after the BOS make 65, more than the model's 64 positions");
  }
}

TEST(LogitLens, TopTokensAndProbabilitiesMatchTheReference) {
  for (const char* name : kInstrumented) {
    const auto model = HfModel::open(model_dir(name));
    const json expected = instruments(name).at("lens");
    const std::vector<int> ids = expected.at("ids").get<std::vector<int>>();
    const LogitLens lens = logit_lens(model->transformer(), ids, expected.at("chosen").get<int>());
    double worst = 0;
    for (std::size_t l = 0; l < lens.top.size(); ++l) {
      const json& layer = expected.at("layers").at(l);
      for (std::size_t i = 0; i < ids.size(); ++i) {
        EXPECT_EQ(lens.top[l][i].id, layer.at("top_id").at(i).get<int>()) << name << " layer " << l << " position " << i;
        worst = std::max(worst, std::abs(lens.top[l][i].p - layer.at("top_p").at(i).get<double>()));
        worst = std::max(worst, std::abs(lens.chosen(Eigen::Index(l), Eigen::Index(i)) - layer.at("chosen_p").at(i).get<double>()));
      }
    }
    EXPECT_LE(worst, kTolerance) << name;
    std::cout << "  " << name << " lens: max error " << worst << "\n";
    // after the last layer the lens is the model's own prediction
    const ForwardRun run = model->transformer().run(ids, 1, {}, Keep::none());
    EXPECT_EQ(lens.top.back().back().id, run.next[0].id);
    EXPECT_NEAR(lens.top.back().back().p, run.next[0].p, 1e-6);
  }
}

TEST(Patching, LogitDifferencesPerHeadAndPositionMatchTheReference) {
  for (const char* name : kInstrumented) {
    const auto model = HfModel::open(model_dir(name));
    const json expected = instruments(name).at("patch");
    PatchRequest request;
    request.clean = expected.at("clean").get<std::vector<int>>();
    request.corrupted = expected.at("corrupted").get<std::vector<int>>();
    request.answer = expected.at("answer").get<int>();
    request.wrong = expected.at("wrong").get<int>();
    int calls = 0, last_total = 0;
    const Patching p = patch(model->transformer(), request, [&](int done, int total) { calls = done, last_total = total; });
    EXPECT_NEAR(p.clean, expected.at("ld_clean").get<double>(), kTolerance) << name;
    EXPECT_NEAR(p.corrupted, expected.at("ld_corrupted").get<double>(), kTolerance) << name;
    const double heads = table_error(p.heads, expected.at("heads")), positions = table_error(p.positions, expected.at("positions"));
    EXPECT_LE(heads, kTolerance) << name;
    EXPECT_LE(positions, kTolerance) << name;
    std::cout << "  " << name << " patching: max error heads " << heads << ", positions " << positions << "\n";
    EXPECT_EQ(calls, last_total);
    EXPECT_EQ(last_total, int(p.heads.size() + p.positions.size()));
  }
}

TEST(Patching, RefusesPromptsOfDifferentLengthsAndEqualAnswers) {
  const auto model = HfModel::open(model_dir("gpt2-f32"));
  const auto refusal = [&](const PatchRequest& r) {
    try {
      patch(model->transformer(), r);
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal({{1, 2, 3}, {1, 2}, 5, 6}), "corrupt: 2 tokens, the clean prompt has 3: patching needs the same count");
  EXPECT_EQ(refusal({{}, {}, 5, 6}), "clean: empty: give a prompt of at least one token");
  EXPECT_EQ(refusal({{1, 2}, {1, 3}, 5, 5}), "wrong: the same token as the answer: the logit difference is always 0");
  EXPECT_EQ(refusal({{1, 2}, {1, 2}, 5, 6}).rfind("corrupt: gives the same logit difference as the clean prompt", 0), 0u);
}

// The circuit as built: 0.0 a previous-token head, 1.1 an induction head reading 0.0's output
// (K-composition), 0.1 and 1.0 idle. The finder names them on a random repeated sequence, as
// `attnlab-cli heads --random-repeat` draws it, and patching shows that they alone carry the answer.
TEST(InductionCircuit, TheFinderFindsTheBuiltHeadsAndPatchingShowsTheyMatter) {
  const auto model = HfModel::open(kCircuit);
  const Transformer& t = model->transformer();
  const auto top = [](const Eigen::MatrixXd& score) {
    Eigen::Index layer = 0, head = 0;
    score.maxCoeff(&layer, &head);
    return HeadRef{int(layer), int(head)};
  };
  for (std::uint64_t seed : {0u, 1u, 2u}) {
    const int R = 12;
    const std::vector<int> ids = random_repeat(R, seed, model->tokenizer()->id_limit(), model->tokenizer()->bos(), 48);
    const HeadScores scores = find_heads(t, ids, Repeat{R, 1});
    EXPECT_EQ(top(scores[HeadScore::previous_token]), (HeadRef{0, 0})) << "seed " << seed;
    EXPECT_EQ(top(scores[HeadScore::induction]), (HeadRef{1, 1})) << "seed " << seed;
    EXPECT_GT(scores[HeadScore::previous_token](0, 0), 0.99);
    std::cout << "  seed " << seed << ": previous-token 0.0 " << scores[HeadScore::previous_token](0, 0)
              << ", induction 1.1 " << scores[HeadScore::induction](1, 1) << "\n";
  }
  PatchRequest request;
  request.clean = model->encode("the cat sat on a mat . the cat");
  request.corrupted = model->encode("the dog sat on a mat . the cat");  // nothing to copy "sat" from
  request.answer = model->encode(" sat").back();
  request.wrong = model->encode(" ran").back();
  const Patching p = patch(t, request);
  std::cout << "  logit difference clean " << p.clean << ", corrupted " << p.corrupted << ", heads\n" << p.heads << "\n";
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 2; ++h) {
      const bool built = (l == 0 && h == 0) || (l == 1 && h == 1);
      if (built) EXPECT_GT(std::abs(p.heads(l, h)), 0.5) << l << "." << h;
      else EXPECT_LT(std::abs(p.heads(l, h)), 0.05) << l << "." << h;
    }
}

}  // namespace
}  // namespace test_instruments
}  // namespace attnlab::models
