// The forward pass, a layer as a Scenario and the prediction after an edit, against the float64
// reference scripts/gen_models.py computed with PyTorch from the published architectures, on tiny
// random GPT-2, Llama (GQA, MQA) and Qwen2 models in F32, F16 and BF16, single files and shards.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <iostream>
#include <set>

#include <nlohmann/json.hpp>

#include "attnlab/attention.h"
#include "attnlab/decode.h"
#include "attnlab/edits.h"
#include "attnlab/models/hf_model.h"
#include "../test_support.h"
#include "model_folders.h"

namespace attnlab::models {
namespace test_reference {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// One or more folders per family (model_type): F32, F16 and BF16, single files and shards.
const char* const kModels[] = {
    "gpt2-f32",         "gpt2-f16-sharded", "llama-gqa-bf16",   "llama-mqa-f32",           "llama3-rope-f32",
    "llama-linear-f32", "qwen2-f32",        "qwen2-bf16-sharded", "qwen3-bf16",            "pythia-f16",
    "gpt-neox-sequential-f16", "gemma2-f32", "gemma3-text-bf16", "mistral-f32",            "smollm3-f32",
    "olmo2-f32",        "phi3-longrope-f32"};

fs::path model_dir(const std::string& name) { return fs::path(ATTNLAB_SOURCE_DIR) / "tests/fixtures/models" / name; }

json reference(const std::string& name) {
  std::ifstream in(model_dir(name) / "reference.json");
  return json::parse(in);
}

Matrix matrix(const json& rows) {
  Matrix m(Eigen::Index(rows.size()), Eigen::Index(rows.at(0).size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = rows[std::size_t(i)][std::size_t(j)].get<double>();
  return m;
}

/// The largest |a - b|; infinite when the shapes differ or either holds a NaN.
double max_error(const Matrix& a, const Matrix& b) {
  EXPECT_EQ(a.rows(), b.rows());
  EXPECT_EQ(a.cols(), b.cols());
  if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
  const double error = (a - b).cwiseAbs().maxCoeff();
  return std::isnan(error) ? INFINITY : error;
}

/// Same tokens in the same order, probabilities within 1e-5.
void expect_predictions(const std::vector<Prediction>& got, const json& expected, const std::string& what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].id, expected[i].at("id").get<int>()) << what << " rank " << i;
    EXPECT_NEAR(got[i].p, expected[i].at("p").get<double>(), 1e-5) << what << " rank " << i;
  }
}

TEST(ModelReference, EveryLayerHeadAndPredictionMatchesPyTorch) {
  for (const char* name : kModels) {
    const auto model = HfModel::open(model_dir(name));
    double worst_weights = 0, worst_activations = 0;
    const json cases = reference(name).at("cases");
    ASSERT_GE(cases.size(), 2u) << name;
    for (const json& c : cases) {
      const std::vector<int> ids = c.at("ids").get<std::vector<int>>();
      if (c.contains("text")) {
        EXPECT_EQ(model->encode(c["text"].get<std::string>()), ids) << name;
      }
      const ForwardRun run = model->transformer().run(ids);
      ASSERT_EQ(run.layers.size(), c.at("layers").size()) << name;
      for (std::size_t l = 0; l < run.layers.size(); ++l) {
        const json& layer = c["layers"][l];
        worst_activations = std::max({worst_activations,
                                      max_error(run.layers[l].attn_in.cast<double>(), matrix(layer.at("attn_in"))),
                                      max_error(run.layers[l].attn_out.cast<double>(), matrix(layer.at("attn_out")))});
        ASSERT_EQ(run.layers[l].weights.size(), layer.at("heads").size()) << name;
        for (std::size_t h = 0; h < run.layers[l].weights.size(); ++h)
          worst_weights = std::max(worst_weights, max_error(run.layers[l].weights[h].cast<double>(),
                                                            matrix(layer["heads"][h].at("weights"))));
      }
      expect_predictions(run.next, c.at("next"), std::string(name) + " next");
      const int replaced = c.at("replaced").at("layer").get<int>();
      const Matrix zeros = Matrix::Zero(Eigen::Index(ids.size()), model->config().d_model);
      expect_predictions(model->transformer().next_after_layer(run, replaced, zeros), c["replaced"].at("next"),
                         std::string(name) + " layer " + std::to_string(replaced) + " replaced by zeros");
    }
    std::cout << "  " << name << ": weights max error " << worst_weights << ", attention input/output "
              << worst_activations << "\n";
    EXPECT_LT(worst_weights, 1e-5) << name;
    EXPECT_LT(worst_activations, 1e-4) << name;
  }
}

// The layer as a Scenario: the core computes the model's own weights per query head and, as its
// output, the attention block's contribution; switching a head off in it and re-running the rest of
// the model gives the reference's prediction with that head zeroed.
TEST(ModelReference, ALayerAsAScenarioComputesTheLayerAndHeadsOffChangeThePrediction) {
  for (const char* name : kModels) {
    const auto model = HfModel::open(model_dir(name));
    double worst_weights = 0, worst_output = 0;
    const json cases = reference(name).at("cases");
    ASSERT_GE(cases.size(), 2u) << name;
    for (const json& c : cases) {
      const ForwardRun run = model->transformer().run(c.at("ids").get<std::vector<int>>());
      for (std::size_t l = 0; l < run.layers.size(); ++l) {
        const Scenario s = layer_scenario(*model, run, int(l));
        EXPECT_EQ(s.tokens.size(), run.ids.size());
        const Trace t = compute(s);
        const json& layer = c["layers"][l];
        for (std::size_t h = 0; h < t.heads.size(); ++h)
          worst_weights = std::max(worst_weights, max_error(t.heads[h].weights, matrix(layer["heads"][h].at("weights"))));
        worst_output = std::max(worst_output, max_error(t.output, matrix(layer.at("attn_out"))));
      }
      const json& off = c.at("head_off");
      Scenario s = layer_scenario(*model, run, off.at("layer").get<int>());
      set_head_off(s, off.at("head").get<int>(), true);
      expect_predictions(model->transformer().next_after_layer(run, off["layer"].get<int>(), compute(s).output),
                         off.at("next"), std::string(name) + " head off");
    }
    std::cout << "  " << name << ": the layer scenarios' weights max error " << worst_weights << ", output "
              << worst_output << "\n";
    EXPECT_LT(worst_weights, 1e-5) << name;
    EXPECT_LT(worst_output, 1e-4) << name;
  }
}

TEST(ModelReference, TokenizersEncodeTheReferenceTexts) {
  for (const char* name : kModels) {
    const auto model = HfModel::open(model_dir(name));
    const json texts = reference(name).value("encode", json::array());
    if (texts.empty()) continue;  // the cases' texts only (checked above), or ids only (Gemma, Mistral, Phi-3 here)
    ASSERT_NE(model->tokenizer(), nullptr) << name << ": " << model->tokenizer_error();
    for (const json& e : texts)
      EXPECT_EQ(model->encode(e.at("text").get<std::string>()), e.at("ids").get<std::vector<int>>())
          << name << ": " << e["text"];
  }
}

TEST(ModelReference, IdsOutsideTheModelAreRefusedNamingThem) {
  const auto model = HfModel::open(model_dir("gpt2-f32"));
  const auto refusal = [&](const std::vector<int>& ids) {
    try {
      model->transformer().run(ids);
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal({}), "ids: empty: give at least one token");
  EXPECT_EQ(refusal({1, 357}), "ids[1]: 357 is outside the vocabulary (0 to 356)");
  EXPECT_EQ(refusal(std::vector<int>(33, 1)), "ids: 33 tokens, more than the model's 32 positions");
  const ForwardRun run = model->transformer().run({1, 2});
  try {
    layer_scenario(*model, run, 2);
    ADD_FAILURE() << "layer 2 of 2";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "layer: 2 is out of range: the model has layers 0 to 1");
  }
}

// The float dtypes of the tensors in a folder's safetensors files, read here from their headers (an
// 8-byte little-endian length, then JSON), joined as "BF16+F32": what a layer records (a U8 buffer,
// GPT-2's causal mask, is not read).
std::string header_dtypes(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".safetensors") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    unsigned char length[8] = {};
    in.read(reinterpret_cast<char*>(length), 8);
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = n * 256 + length[i];
    std::string header(n, '\0');
    in.read(header.data(), std::streamsize(n));
    const json entries = json::parse(header);
    for (const auto& [name, tensor] : entries.items())
      if (name != "__metadata__" && std::set<std::string>{"F64", "F32", "F16", "BF16"}.count(tensor.at("dtype")))
        names.insert(tensor.at("dtype").get<std::string>());
  }
  std::string joined;
  for (const std::string& name : names) joined += (joined.empty() ? "" : "+") + name;
  return joined;
}

// A layer records the dtype its model stores its weights in, and its KV cache counts that many
// bytes a number: by hand, K/V heads x (d_k + d_v) x 4 for F32, x 2 for BF16 and F16.
TEST(ModelReference, ALayerRecordsItsModelsDtypeAndItsCacheCountsItsBytes) {
  for (const char* name : {"gpt2-f32", "qwen3-bf16", "gpt2-f16-sharded", "llama-gqa-bf16"}) {
    SCOPED_TRACE(name);
    const auto model = HfModel::open(model_dir(name));
    const Scenario s = layer_scenario(*model, model->transformer().run({1, 2, 3}), 0);
    const std::string dtypes = header_dtypes(model_dir(name));
    EXPECT_EQ(s.view.at("model").at("dtype"), dtypes);
    const int bytes = dtypes.find("16") != std::string::npos ? 2 : 4;  // these fixtures: F32, or 16-bit matrices
    const Model m = resolve(s);
    const CacheBytes b = decode(s, m, 0).bytes;
    std::cout << name << ": " << dtypes << ", " << cache_bytes_sentence(b, m.d_k, m.d_v) << "\n";
    EXPECT_EQ(b.scenario.per_token, long(m.num_kv_heads) * (m.d_k + m.d_v) * bytes);
  }
}

TEST(ModelReference, Gpt2WithItsOwnLmHeadPredictsWithIt) {
  // tie_word_embeddings false and lm_head.weight = 2 wte: Hugging Face's logits are 2 z, so every
  // probability becomes p^2 / sum p^2 of the tied model's. The embedding alone would leave p as is.
  const testing::ScratchDir scratch("attnlab_lm_head_");
  const fs::path dir = scratch.fresh("model") / "gpt2";
  fs::copy(model_dir("gpt2-f32"), dir);
  testing::model_folders::update_json_file(dir / "config.json", {{"tie_word_embeddings", false}});
  auto st = testing::model_folders::Safetensors::read(dir / "model.safetensors");
  const json wte = st.header.at("wte.weight");
  const std::size_t begin = wte.at("data_offsets")[0], end = wte.at("data_offsets")[1];
  std::string doubled = st.data.substr(begin, end - begin);
  for (std::size_t i = 0; i < doubled.size(); i += 4) {
    float f;
    std::memcpy(&f, &doubled[i], 4);
    f *= 2;
    std::memcpy(&doubled[i], &f, 4);
  }
  st.header["lm_head.weight"] = {{"dtype", "F32"}, {"shape", wte.at("shape")}, {"data_offsets", {st.data.size(), st.data.size() + doubled.size()}}};
  st.data += doubled;
  st.write(dir / "model.safetensors");

  const std::vector<int> ids = {83, 9, 40, 7};
  const auto tied = HfModel::open(model_dir("gpt2-f32"));
  const auto untied = HfModel::open(dir);
  const int vocab = tied->config().vocab;
  const ForwardRun a = tied->transformer().run(ids, vocab), b = untied->transformer().run(ids, vocab);
  std::vector<double> p(std::size_t(vocab), 0.0);
  double sum_squares = 0;
  for (const Prediction& x : a.next) sum_squares += x.p * x.p;
  for (const Prediction& x : a.next) p[std::size_t(x.id)] = x.p * x.p / sum_squares;
  double worst = 0;
  for (const Prediction& x : b.next) worst = std::max(worst, std::abs(x.p - p[std::size_t(x.id)]));
  std::cout << "max |p_untied - p^2 / sum p^2| = " << worst << "\n";
  EXPECT_LT(worst, 1e-6);
  EXPECT_GT(std::abs(b.next[0].p - a.next[0].p), 1e-3);  // the head made a difference
}

TEST(ModelReference, ACancelledRunStopsBeforeItsNextLayer) {
  const auto model = HfModel::open(model_dir("qwen2-f32"));
  std::atomic<bool> cancelled{true};
  try {
    model->transformer().run({5, 6, 7}, 5, {}, Keep::all(), &cancelled);
    ADD_FAILURE() << "a cancelled run finished";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "run: cancelled");
  }
  cancelled = false;
  EXPECT_EQ(model->transformer().run({5, 6, 7}, 5, {}, Keep::all(), &cancelled).next[0].id,
            model->transformer().run({5, 6, 7}).next[0].id);
}

TEST(ModelReference, ARunKeepsOnlyTheLayersAskedFor) {
  const auto model = HfModel::open(model_dir("qwen2-f32"));
  const std::vector<int> ids = {5, 6, 7, 8, 9};
  const ForwardRun all = model->transformer().run(ids), one = model->transformer().run(ids, 5, {}, Keep::only(1)),
                   none = model->transformer().run(ids, 5, {}, Keep::none());
  EXPECT_EQ(one.layers.size(), 2u);
  EXPECT_EQ(one.layers[0].weights.size(), 0u);
  EXPECT_EQ(none.layers[1].weights.size(), 0u);
  ASSERT_EQ(one.layers[1].weights.size(), all.layers[1].weights.size());
  for (std::size_t h = 0; h < all.layers[1].weights.size(); ++h)
    EXPECT_EQ(one.layers[1].weights[h], all.layers[1].weights[h]);
  for (std::size_t i = 0; i < all.next.size(); ++i) {
    EXPECT_EQ(one.next[i].id, all.next[i].id);
    EXPECT_EQ(none.next[i].p, all.next[i].p);
  }
  EXPECT_EQ(layer_scenario(*model, one, 1).X, layer_scenario(*model, all, 1).X);
  try {
    layer_scenario(*model, one, 0);
    ADD_FAILURE() << "layer 0 was not kept";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "layer: 0 was not kept by the run");
  }
  // The estimate: every layer's n x n weights dominate a long run; one layer's, a plain one none.
  const Transformer& t = model->transformer();
  EXPECT_LT(t.run_bytes(4096, Keep::none()), t.run_bytes(4096, Keep::only(0)));
  EXPECT_LT(t.run_bytes(4096, Keep::only(0)), t.run_bytes(4096, Keep::all()));
  EXPECT_GE(t.run_bytes(4096, Keep::all()), 2.0 * 4 * 4096.0 * 4096 * 4);  // 2 layers x 4 heads x n^2 floats
}

}  // namespace
}  // namespace test_reference
}  // namespace attnlab::models
