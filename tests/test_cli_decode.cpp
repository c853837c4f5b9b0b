// attnlab-cli decode FILE --prefill P: its JSON against `compute`'s trace, its text, and its
// refusals (a file that is not causal self-attention: exit 1; --prefill out of range: exit 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support.h"

namespace test_cli_decode {

using nlohmann::json;
using attnlab::testing::Outputs;

std::string cli() { return "env -u DISPLAY " + std::string(ATTNLAB_CLI); }
Outputs run(const std::string& args) { return attnlab::testing::run_shell_apart(cli() + " " + args); }
std::string preset(const std::string& name) { return attnlab::testing::preset_path(name); }

TEST(CliDecode, EveryStepsWeightsAndOutputAreTheComputedTracesRow) {
  const std::string file = preset("modern-mistral-sliding-window");  // causal, window, 8 tokens
  const Outputs decoded = run("decode " + file + " --prefill 2");
  const Outputs computed = run("compute " + file);
  ASSERT_EQ(decoded.status, 0) << decoded.err;
  ASSERT_EQ(computed.status, 0) << computed.err;
  const json d = json::parse(decoded.out), t = json::parse(computed.out);
  EXPECT_EQ(d.at("prefill"), 2);
  ASSERT_EQ(d.at("steps").size(), t.at("output").size() - 2);
  double worst = 0;
  for (const json& step : d.at("steps")) {
    const int i = step.at("token");
    const json& cache = step.at("cache");
    for (std::size_t h = 0; h < step.at("weights").size(); ++h) {
      const json& row = t.at("heads")[h].at("weights")[std::size_t(i)];
      double held = 0;
      for (std::size_t c = 0; c < cache.size(); ++c) {
        const double w = step.at("weights")[h][c], want = row[cache[c].get<std::size_t>()];
        worst = std::max(worst, std::abs(w - want));
        held += want;
      }
      EXPECT_NEAR(held, 1.0, 1e-12) << "the trace's weights outside the cache are 0 (token " << i << ")";
    }
    for (std::size_t c = 0; c < step.at("output").size(); ++c)
      worst = std::max(worst, std::abs(step.at("output")[c].get<double>() - t.at("output")[std::size_t(i)][c].get<double>()) /
                                  std::max(1.0, std::abs(t.at("output")[std::size_t(i)][c].get<double>())));
  }
  std::cout << "  decode vs compute: max difference " << worst << "\n";
  EXPECT_LT(worst, 1e-12);
  const json& bytes = d.at("cache_bytes");
  EXPECT_EQ(bytes.at("bytes_per_number"), 8);
  EXPECT_EQ(bytes.at("scenario").at("sequence").get<long>(), 8 * bytes.at("scenario").at("per_token").get<long>());
}

TEST(CliDecode, TextListsEachStepsCacheAndTheCacheSize) {
  const Outputs r = run("decode " + preset("modern-llama-gqa-rope") + " --prefill 4 --format text --precision 3");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("prefill 4 tokens: cache [0 1 2 3]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("token 5: cache [0 1 2 3 4 5]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nMQA "), std::string::npos) << r.out;
}

TEST(CliDecode, TextMarksTheSinksAndWhatEachStepEvicted) {
  // Window 4 and 2 sinks: token 6's window starts at 3, so token 2 leaves; 0 and 1 stay as sinks.
  const Outputs r = run("decode " + preset("modern-kv-cache-window-sinks") + " --prefill 3 --format text");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* text : {"prefill 3 tokens: cache [0s 1s 2]\n", "token 5: cache [0s 1s 2 3 4 5]\n",
                           "token 6: cache [0s 1s 3 4 5 6]; evicted 2\n", "token 7: cache [0s 1s 4 5 6 7]; evicted 3\n",
                           "KV cache per layer: 2 K/V heads \xC3\x97 4 numbers (a key of 2 and a value of 2) \xC3\x97 "
                           "8 bytes (float64) = 64 bytes per token per layer\n",
                           "\nthis scenario         2           64           768           384\n"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
}

TEST(CliDecode, RefusesWhatIsNotCausalSelfAttentionAndAPrefillOutOfRangeInOneLine) {
  const Outputs cross = run("decode " + preset("vaswani-q1-decoder-over-encoder") + " --prefill 0");
  EXPECT_EQ(cross.status, 1);
  EXPECT_TRUE(cross.out.empty());
  EXPECT_NE(cross.err.find(": Z: decode needs self-attention"), std::string::npos) << cross.err;
  EXPECT_EQ(std::count(cross.err.begin(), cross.err.end(), '\n'), 1) << cross.err;
  const Outputs plain = run("decode " + preset("vaswani-q2-is-attends") + " --prefill 0");
  EXPECT_EQ(plain.status, 1);
  EXPECT_NE(plain.err.find(": mask.causal: decode needs a causal mask"), std::string::npos) << plain.err;
  const Outputs range = run("decode " + preset("modern-mistral-sliding-window") + " --prefill 8");
  EXPECT_EQ(range.status, 2);
  EXPECT_EQ(range.err.rfind("attnlab-cli: --prefill expects a whole number from 0 to 7, got '8'", 0), 0u) << range.err;
  const Outputs missing = run("decode " + preset("modern-mistral-sliding-window"));
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("--prefill"), std::string::npos) << missing.err;
}

}  // namespace test_cli_decode
