// Encoders (issue 40): tiny random BERT, RoBERTa and DistilBERT folders against the float64
// reference scripts/gen_models.py computed from transformers' modeling_bert.py, modeling_roberta.py
// and modeling_distilbert.py: every layer's and head's weights (no causal mask), the masked-word
// prediction at each [MASK], a sentence pair with its token types, a head switched off both in
// the forward pass and in the layer opened as a scenario.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "../test_support.h"
#include "attnlab/attention.h"
#include "attnlab/edits.h"
#include "attnlab/models/hf_model.h"

namespace attnlab::models {
namespace test_encoders {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const kEncoders[] = {"bert-f32", "roberta-f32", "distilbert-f32"};

fs::path model_dir(const std::string& name) {
  return fs::path(ATTNLAB_SOURCE_DIR) / "tests/fixtures/models" / name;
}

json reference(const std::string& name) {
  std::ifstream in(model_dir(name) / "reference.json");
  return json::parse(in);
}

Matrix matrix(const json& rows) {
  Matrix m(Eigen::Index(rows.size()), Eigen::Index(rows.at(0).size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      m(i, j) = rows[std::size_t(i)][std::size_t(j)].get<double>();
  return m;
}

double max_error(const Matrix& a, const Matrix& b) {
  EXPECT_EQ(a.rows(), b.rows());
  EXPECT_EQ(a.cols(), b.cols());
  if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
  const double error = (a - b).cwiseAbs().maxCoeff();
  return std::isnan(error) ? INFINITY : error;
}

/// The top 5 at each masked position: the same ids in the same order, p within 1e-5.
void expect_masked(const Transformer& model, const MatrixF& output, const json& expected,
                   const std::string& what) {
  for (const json& at : expected) {
    const int position = at.at("position").get<int>();
    const std::vector<Prediction> got = model.predict_at(output, position, 5);
    ASSERT_EQ(got.size(), at.at("top").size()) << what;
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].id, at["top"][i].at("id").get<int>())
          << what << " position " << position << " rank " << i;
      EXPECT_NEAR(got[i].p, at["top"][i].at("p").get<double>(), 1e-5)
          << what << " position " << position << " rank " << i;
    }
  }
}

/// The ids and token types the reference used: from the tokenizer (one text or a pair), or as
/// given.
Tokenizer::Encoding encoding(const HfModel& model, const json& c, const std::string& name) {
  Tokenizer::Encoding e;
  e.ids = c.at("ids").get<std::vector<int>>();
  e.type_ids = c.at("types").get<std::vector<int>>();
  if (!c.contains("text")) return e;
  const Tokenizer::Encoding got =
      c.contains("pair") ? model.tokenizer()->encode_pair(c["text"].get<std::string>(),
                                                          c["pair"].get<std::string>())
                         : Tokenizer::Encoding{model.encode(c["text"].get<std::string>()), {}, {}};
  EXPECT_EQ(got.ids, e.ids) << name << ": " << c["text"];
  if (c.contains("pair") && model.config().type_vocab > 0)
    EXPECT_EQ(got.type_ids, e.type_ids) << name;
  return e;
}

TEST(Encoders, EveryLayerHeadAndMaskedWordMatchesPyTorch) {
  for (const char* name : kEncoders) {
    const auto model = HfModel::open(model_dir(name));
    EXPECT_FALSE(model->config().causal) << name;
    double worst_weights = 0, worst_activations = 0, worst_scenario = 0;
    bool some_pair = false;
    const json cases = reference(name).at("cases");
    ASSERT_GE(cases.size(), 2u) << name;
    for (const json& c : cases) {
      const Tokenizer::Encoding input = encoding(*model, c, name);
      some_pair = some_pair || c.contains("pair");
      const Transformer& t = model->transformer();
      const ForwardRun run = t.run(input.ids, 5, {}, Keep::all(), nullptr, nullptr, input.type_ids);
      EXPECT_TRUE(run.next.empty()) << name << ": an encoder predicts no next token";
      ASSERT_EQ(run.layers.size(), c.at("layers").size()) << name;
      for (std::size_t l = 0; l < run.layers.size(); ++l) {
        const json& layer = c["layers"][l];
        worst_activations = std::max(
            {worst_activations,
             max_error(run.layers[l].attn_in.cast<double>(), matrix(layer.at("attn_in"))),
             max_error(run.layers[l].attn_out.cast<double>(), matrix(layer.at("attn_out")))});
        ASSERT_EQ(run.layers[l].weights.size(), layer.at("heads").size()) << name;
        for (std::size_t h = 0; h < run.layers[l].weights.size(); ++h)
          worst_weights =
              std::max(worst_weights, max_error(run.layers[l].weights[h].cast<double>(),
                                                matrix(layer["heads"][h].at("weights"))));
        // The layer as a scenario: no causal mask, the same weights.
        const Scenario s = layer_scenario(*model, run, int(l));
        EXPECT_FALSE(s.mask.causal) << name;
        const Trace trace = compute(s);
        for (std::size_t h = 0; h < trace.heads.size(); ++h)
          worst_scenario =
              std::max(worst_scenario,
                       max_error(trace.heads[h].weights, matrix(layer["heads"][h].at("weights"))));
      }
      expect_masked(t, run.output, c.at("masked"), std::string(name) + " masked");
      // A head off: in the forward pass, and in the layer's scenario with the rest re-run after it.
      const json& off = c.at("head_off");
      const HeadRef head{off.at("layer").get<int>(), off.at("head").get<int>()};
      const ForwardRun without =
          t.run(input.ids, 5, {head}, Keep::none(), nullptr, nullptr, input.type_ids);
      expect_masked(t, without.output, off.at("masked"), std::string(name) + " head off");
      Scenario s = layer_scenario(*model, run, head.layer);
      set_head_off(s, head.head, true);
      expect_masked(t, t.output_after_layer(run, head.layer, compute(s).output), off.at("masked"),
                    std::string(name) + " head off in the scenario");
      try {  // an encoder has no next token to predict after an edit (the window says so in one
             // line)
        t.next_after_layer(run, head.layer, compute(s).output);
        ADD_FAILURE() << name << ": next_after_layer on an encoder";
      } catch (const ScenarioError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "model: " + model->config().model_type +
                      " is an encoder: it predicts the word at a mask token, not the next token");
      }
    }
    std::cout << "  " << name << ": weights max error " << worst_weights << ", scenario weights "
              << worst_scenario << ", attention input/output " << worst_activations << "\n";
    EXPECT_TRUE(some_pair) << name;
    EXPECT_LT(worst_weights, 1e-5) << name;
    EXPECT_LT(worst_scenario, 1e-5) << name;
    EXPECT_LT(worst_activations, 1e-4) << name;
  }
}

// Tokenizer::id_of, the token -> id lookup the mask token is found by: every token as the
// vocabulary spells it (WordPiece's "##s", byte-level "Ġcat", added tokens) gives its id back.
TEST(Encoders, IdOfEveryTokenGivesItsIdAndTheMaskIsFound) {
  for (const char* name : kEncoders) {
    const auto model = HfModel::open(model_dir(name));
    const Tokenizer& tokenizer = *model->tokenizer();
    for (int id = 0; id < tokenizer.id_limit(); ++id)
      if (tokenizer.contains(id))
        EXPECT_EQ(tokenizer.id_of(tokenizer.token(id)), id) << name << " " << tokenizer.token(id);
    EXPECT_FALSE(tokenizer.id_of("[NOT A TOKEN]").has_value()) << name;
    ASSERT_TRUE(model->mask_id().has_value()) << name;
    EXPECT_EQ(tokenizer.token(*model->mask_id()),
              std::string(name) == "roberta-f32" ? "<mask>" : "[MASK]")
        << name;
  }
}

// The CLI on a pair: --attention prints the token types, every layer's weights and, for each
// [MASK], the reference's top 5 in place of "next".
TEST(Encoders, TheCliPrintsAPairsWeightsAndMaskedWords) {
  const json cases = reference("bert-f32").at("cases");
  const json& c = cases.at(1);
  ASSERT_TRUE(c.contains("pair"));
  const auto r = attnlab::testing::run_shell_apart(
      std::string(ATTNLAB_CLI) + " model " + model_dir("bert-f32").string() + " --text '" +
      c["text"].get<std::string>() + "' --pair '" + c["pair"].get<std::string>() + "' --attention");
  ASSERT_EQ(r.status, 0) << r.err;
  const json out = json::parse(r.out);
  EXPECT_EQ(out.at("ids"), c.at("ids"));
  EXPECT_EQ(out.at("types"), c.at("types"));
  EXPECT_FALSE(out.contains("next"));
  double worst = 0;
  for (std::size_t l = 0; l < c["layers"].size(); ++l)
    for (std::size_t h = 0; h < c["layers"][l]["heads"].size(); ++h)
      worst = std::max(worst, max_error(matrix(out["layers"][l]["heads"][h]["weights"]),
                                        matrix(c["layers"][l]["heads"][h]["weights"])));
  EXPECT_LT(worst, 1e-5);
  ASSERT_EQ(out.at("masked").size(), c.at("masked").size());
  for (std::size_t m = 0; m < c["masked"].size(); ++m) {
    EXPECT_EQ(out["masked"][m].at("position"), c["masked"][m].at("position"));
    ASSERT_EQ(out["masked"][m].at("top").size(), 5u);
    for (std::size_t i = 0; i < 5; ++i) {
      EXPECT_EQ(out["masked"][m]["top"][i].at("id"), c["masked"][m]["top"][i].at("id"))
          << m << " " << i;
      EXPECT_NEAR(out["masked"][m]["top"][i].at("p").get<double>(),
                  c["masked"][m]["top"][i].at("p").get<double>(), 1e-5);
    }
  }
}

}  // namespace
}  // namespace test_encoders
}  // namespace attnlab::models
