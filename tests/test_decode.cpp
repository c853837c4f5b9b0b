// The KV cache, token by token (core/include/attnlab/decode.h): every decoded row against the full
// causal trace, on the presets that are causal self-attention and on random scenarios with windows,
// sinks, GQA, RoPE and ALiBi; what the cache holds; its size in bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>

#include "attnlab/attention.h"
#include "attnlab/decode.h"
#include "attnlab/edits.h"
#include "attnlab/scenario_io.h"
#include "test_support.h"

namespace test_decode {

using attnlab::Decode;
using attnlab::Scenario;

/// Largest |a - b| / max(1, |b|) between the decoded rows and the rows-layout trace: every step's
/// weights (zero outside the cache) and its output row. Also checks what is outside the cache is 0.
double decode_error(const Scenario& s, int prefill) {
  const attnlab::Model model = attnlab::resolve(s);
  const attnlab::Trace trace = attnlab::compute(model, attnlab::Layout::rows);
  const Decode d = attnlab::decode(s, model, prefill);
  double worst = 0;
  const auto rel = [](double a, double b) { return std::abs(a - b) / std::max(1.0, std::abs(b)); };
  for (const attnlab::DecodeStep& step : d.steps) {
    for (std::size_t h = 0; h < step.weights.size(); ++h) {
      attnlab::Vector full = attnlab::Vector::Zero(trace.heads[h].weights.cols());
      for (std::size_t c = 0; c < step.cache.size(); ++c) full(step.cache[c]) = step.weights[h](Eigen::Index(c));
      for (Eigen::Index j = 0; j < full.size(); ++j) worst = std::max(worst, rel(full(j), trace.heads[h].weights(step.token, j)));
    }
    for (Eigen::Index c = 0; c < step.output.size(); ++c)
      worst = std::max(worst, rel(step.output(c), trace.output(step.token, c)));
  }
  return worst;
}

Scenario random_causal(std::uint64_t seed, int n = 9) {
  Scenario s = attnlab::testing::random_scenario(n, 8, 4, seed);
  s.mask.causal = true;
  return s;
}

TEST(Decode, EveryCausalSelfAttentionPresetDecodesToItsTraceRows) {
  int decoded = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(ATTNLAB_SOURCE_DIR) + "/assets/presets")) {
    const Scenario s = attnlab::load_scenario(e.path().string());
    if (s.cross_attention() || !s.mask.causal) continue;
    for (int prefill : {0, s.n_x() / 2, s.n_x() - 1}) {
      const double err = decode_error(s, prefill);
      EXPECT_LT(err, 1e-12) << e.path().filename() << " prefill " << prefill << ": max relative difference " << err;
    }
    ++decoded;
  }
  std::cout << "  " << decoded << " causal self-attention presets decoded\n";
  EXPECT_GE(decoded, 3);
}

TEST(Decode, RandomScenariosWithWindowsSinksGqaRopeAndAlibiDecodeToTheirTraceRows) {
  double worst = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    Scenario s = random_causal(seed);
    s.mask.window = int(seed % 4) + 1;
    s.mask.sinks = int(seed % 3);
    attnlab::set_kv_head_count(s, seed % 3 == 0 ? 1 : seed % 3 == 1 ? 2 : 4);
    if (seed % 2) s.rope = attnlab::Rope{};
    if (seed % 4 == 2) s.alibi = attnlab::Alibi{};
    if (seed % 5 == 0) s.positions = {2, 3, 5, 8, 9, 10, 14, 15, 20};
    if (seed % 6 == 0) s.heads_off = {1};
    const double err = decode_error(s, int(seed % 5));
    EXPECT_LT(err, 1e-12) << "seed " << seed << ": max relative difference " << err;
    worst = std::max(worst, err);
  }
  std::cout << "  12 random scenarios: max relative difference " << worst << "\n";
}

TEST(Decode, AWindowEvictsWhatNoLaterQuerySeesAndSinksStay) {
  Scenario s = random_causal(3, 12);
  s.mask.window = 4;
  s.mask.sinks = 2;
  const Decode d = attnlab::decode(s, 3);
  EXPECT_EQ(d.prefill_cache, (std::vector<int>{0, 1, 2}));
  ASSERT_EQ(d.steps.size(), 9u);
  EXPECT_EQ(d.steps[0].cache, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(d.steps[2].cache, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(d.steps[3].cache, (std::vector<int>{0, 1, 3, 4, 5, 6}));  // token 2 leaves: 6 - 2 = 4
  EXPECT_EQ(d.steps[8].cache, (std::vector<int>{0, 1, 8, 9, 10, 11}));
  EXPECT_EQ(d.bytes.peak_tokens, 6);
  for (const attnlab::DecodeStep& step : d.steps)
    for (const attnlab::Vector& w : step.weights) {
      EXPECT_EQ(w.size(), Eigen::Index(step.cache.size()));
      EXPECT_NEAR(w.sum(), 1.0, 1e-12);
    }
}

TEST(Decode, CacheBytesAreTwoTimesKvHeadsTimesHeadWidthTimesEightPerToken) {
  Scenario s = random_causal(5, 12);  // H = 4, d_k = d_v = 2
  attnlab::set_kv_head_count(s, 2);
  s.mask.window = 4;
  const Decode d = attnlab::decode(s, 0);
  EXPECT_EQ(d.bytes.scenario.per_token, 2 * 2 * 2 * 8);
  EXPECT_EQ(d.bytes.scenario.sequence, 12 * 64);
  EXPECT_EQ(d.bytes.scenario.held, 4 * 64);
  ASSERT_EQ(d.bytes.variants.size(), 3u);
  EXPECT_EQ(d.bytes.variants[0].name, "MHA");
  EXPECT_EQ(d.bytes.variants[0].per_token, 2 * 4 * 2 * 8);
  EXPECT_EQ(d.bytes.variants[1].kv_heads, 2);
  EXPECT_EQ(d.bytes.variants[2].per_token, 2 * 1 * 2 * 8);
}

// A model layer's cache holds its numbers as the model stores them (view.model.dtype): by hand, 2
// K/V heads x (a key of 2 + a value of 2) x 4 bytes of F32 = 32 bytes a token; BF16 beside F32
// norms is counted at the matrices' 2 bytes; a plain scenario keeps attnlab's 8-byte doubles.
TEST(Decode, AModelLayersCacheCountsItsDtypesBytes) {
  Scenario s = random_causal(5, 12);  // H = 4, d_k = d_v = 2
  attnlab::set_kv_head_count(s, 2);
  s.mask.window = 4;
  s.view["model"] = {{"folder", "gpt2"}, {"layer", 3}, {"dtype", "F32"}};
  Decode d = attnlab::decode(s, 0);
  EXPECT_EQ(d.bytes.bytes_per_number, 4);
  EXPECT_EQ(d.bytes.scenario.per_token, 32);
  EXPECT_EQ(d.bytes.scenario.sequence, 12 * 32);
  EXPECT_EQ(d.bytes.scenario.held, 4 * 32);
  EXPECT_EQ(d.bytes.variants[0].per_token, 4 * 4 * 4);  // MHA: 4 K/V heads
  EXPECT_EQ(attnlab::cache_bytes_sentence(d.bytes, 2, 2),
            "2 K/V heads \xC3\x97 4 numbers (a key of 2 and a value of 2) \xC3\x97 4 bytes (F32, "
            "as the model "
            "stores its weights) = 32 bytes per token per layer");
  EXPECT_EQ(attnlab::decode_to_json(d)["cache_bytes"]["number"], "F32");
  s.view["model"]["dtype"] = "BF16+F32";
  d = attnlab::decode(s, 0);
  EXPECT_EQ(d.bytes.scenario.per_token, 2 * 4 * 2);
  EXPECT_NE(attnlab::cache_bytes_sentence(d.bytes, 2, 2)
                .find("2 bytes (BF16, the narrowest of the model's BF16+F32)"),
            std::string::npos);
  s.view.erase("model");
  EXPECT_EQ(attnlab::decode(s, 0).bytes.scenario.per_token, 2 * 4 * 8);
}

TEST(Decode, AnUnknownDtypeIsRefusedNamingTheFieldWhenTheFileIsRead) {
  for (const char* dtype : {R"("F8_E4M3")", R"("F32+")", "4", R"("")"}) {
    const std::string file =
        std::string(R"({"format": "attnlab/1", "X": [[1, 0], [0, 1]], "mask": "causal", )") +
        R"("view": {"model": {"dtype": )" + dtype + "}}}";
    try {
      (void)attnlab::scenario_from_string(file);
      ADD_FAILURE() << "not refused: " << dtype;
    } catch (const attnlab::ScenarioError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(
                    "view.model.dtype: expected the model's safetensors dtypes", 0),
                0u)
          << e.what();
    }
  }
}

TEST(Decode, RefusesCrossAttentionNoCausalMaskDecreasingPositionsAndAPrefillOutOfRange) {
  const auto refused = [](const Scenario& s, int prefill, const std::string& field) {
    try {
      (void)attnlab::decode(s, prefill);
      ADD_FAILURE() << "not refused: " << field;
    } catch (const attnlab::ScenarioError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(field + ": ", 0), 0u) << e.what();
    }
  };
  Scenario cross = random_causal(1);
  cross.Z = cross.X;
  refused(cross, 0, "Z");
  Scenario plain = random_causal(1);
  plain.mask.causal = false;
  refused(plain, 0, "mask.causal");
  Scenario backwards = random_causal(1, 3);
  backwards.positions = {0, 2, 1};
  refused(backwards, 0, "positions");
  refused(random_causal(1, 3), 3, "prefill");
  refused(random_causal(1, 3), -1, "prefill");
}

}  // namespace test_decode
