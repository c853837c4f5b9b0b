// attnlab-cli model: the JSON of every layer and head, a layer written as a scenario that
// `attnlab-cli compute` computes, heads switched off, against the PyTorch reference of
// scripts/gen_models.py; bad usage is one line and exit status 2.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../test_support.h"

namespace test_model_cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kGpt2 = std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/models/gpt2-f32";

json reference_case(const std::string& model, std::size_t index) {
  std::ifstream in(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/models/" + model + "/reference.json");
  return json::parse(in).at("cases").at(index);
}

double max_error(const json& a, const json& b) {
  if (a.is_number()) return std::abs(a.get<double>() - b.get<double>());
  EXPECT_EQ(a.size(), b.size());
  double worst = a.size() == b.size() ? 0 : INFINITY;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) worst = std::max(worst, max_error(a[i], b[i]));
  return worst;
}

void expect_next(const json& got, const json& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].at("id"), expected[i].at("id")) << "rank " << i;
    EXPECT_NEAR(got[i].at("p").get<double>(), expected[i].at("p").get<double>(), 1e-5) << "rank " << i;
  }
}

attnlab::testing::Outputs cli(const std::string& args) {
  return attnlab::testing::run_shell_apart(std::string(ATTNLAB_CLI) + " model " + args);
}

TEST(ModelCli, AttentionJsonIsEveryLayerAndHeadOfTheReference) {
  const json expected = reference_case("gpt2-f32", 0);
  const auto r = cli(kGpt2 + " --text '" + expected.at("text").get<std::string>() + "' --attention");
  ASSERT_EQ(r.status, 0) << r.err;
  const json got = json::parse(r.out);
  EXPECT_EQ(got.at("ids"), expected.at("ids"));
  EXPECT_EQ(got.at("tokens").size(), expected.at("ids").size());
  EXPECT_EQ(got.at("tokens")[1], " cat");
  ASSERT_EQ(got.at("layers").size(), expected.at("layers").size());
  for (std::size_t l = 0; l < got["layers"].size(); ++l)
    for (std::size_t h = 0; h < got["layers"][l].at("heads").size(); ++h)
      EXPECT_LT(max_error(got["layers"][l]["heads"][h].at("weights"), expected["layers"][l]["heads"][h].at("weights")),
                1e-5)
          << "layer " << l << " head " << h;
  expect_next(got.at("next"), expected.at("next"));
}

TEST(ModelCli, ALayerWrittenAsAScenarioComputesAsTheLayer) {
  const json expected = reference_case("llama-gqa-bf16", 1);
  std::string ids;
  for (const json& id : expected.at("ids")) ids += (ids.empty() ? "" : ",") + std::to_string(id.get<int>());
  const attnlab::testing::ScratchDir scratch("attnlab_model_cli_");
  const fs::path file = scratch.fresh("layer") / "layer1.json";
  const auto written = cli(kGpt2.substr(0, kGpt2.size() - 8) + "llama-gqa-bf16 --ids " + ids + " --layer 1 --out " +
                           file.string());
  ASSERT_EQ(written.status, 0) << written.err;
  const auto computed = attnlab::testing::run_shell_apart(std::string(ATTNLAB_CLI) + " compute " + file.string());
  ASSERT_EQ(computed.status, 0) << computed.err;
  const json trace = json::parse(computed.out);
  const json& layer = expected.at("layers").at(1);
  ASSERT_EQ(trace.at("heads").size(), layer.at("heads").size());
  for (std::size_t h = 0; h < layer["heads"].size(); ++h)
    EXPECT_LT(max_error(trace["heads"][h].at("weights"), layer["heads"][h].at("weights")), 1e-5) << "head " << h;
  EXPECT_LT(max_error(trace.at("output"), layer.at("attn_out")), 1e-4);
}

TEST(ModelCli, HeadsOffChangeThePredictionAsTheReference) {
  const json expected = reference_case("gpt2-f32", 0);
  const json& off = expected.at("head_off");
  const std::string head = std::to_string(off.at("layer").get<int>()) + "." + std::to_string(off.at("head").get<int>());
  const auto r = cli(kGpt2 + " --text '" + expected.at("text").get<std::string>() + "' --attention --heads-off " + head);
  ASSERT_EQ(r.status, 0) << r.err;
  expect_next(json::parse(r.out).at("next"), off.at("next"));
}

TEST(ModelCli, BadUsageIsOneLineAndStatusTwo) {
  for (const char* args : {" --text a --ids 1", "", " --ids 1 --layer 0", " --ids 1 --out x.json", " --ids 1,x",
                           " --ids 1 --heads-off 3"}) {
    const auto r = cli(kGpt2 + args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << args << ": " << r.err;
  }
}

}  // namespace

}  // namespace test_model_cli
