// attnlab-cli model: the JSON of every layer and head, a layer written as a scenario that
// `attnlab-cli compute` computes, heads switched off, against the PyTorch reference of
// scripts/gen_models.py; bad usage is one line and exit status 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../test_support.h"
#include "attnlab/attention.h"
#include "attnlab/models/hf_model.h"
#include "attnlab/scenario_io.h"
#include "attnlab/trace_io.h"
#include "model_folders.h"

namespace test_model_cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
namespace model_folders = attnlab::testing::model_folders;

const fs::path kModels = fs::path(ATTNLAB_SOURCE_DIR) / "tests/fixtures/models";
const std::string kGpt2 = (kModels / "gpt2-f32").string();

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

std::string id_list(const json& ids) {
  std::string list;
  for (const json& id : ids) list += (list.empty() ? "" : ",") + std::to_string(id.get<int>());
  return list;
}

/// The words that give a reference case's input: its ids, or an encoder's sentence pair (whose
/// token types its ids alone do not carry).
std::string input_args(const json& expected) {
  if (expected.contains("pair"))
    return "--text '" + expected["text"].get<std::string>() + "' --pair '" +
           expected["pair"].get<std::string>() + "'";
  return "--ids " + id_list(expected.at("ids"));
}

/// Writes layer `layer` of `model` on `input` with --layer and computes the file as `attnlab-cli
/// compute` does (load_scenario, compute, trace_to_json: the command's whole body, in-process, so
/// 44 layers cost 44 sanitized launches, not 88).
json layer_trace(const std::string& model, const std::string& input, int layer,
                 const fs::path& file) {
  const auto written =
      cli(model + " " + input + " --layer " + std::to_string(layer) + " --out " + file.string());
  EXPECT_EQ(written.status, 0) << written.err;
  if (written.status != 0) return json();
  try {
    return json::parse(attnlab::trace_to_json(attnlab::compute(attnlab::load_scenario(file.string()))).dump());
  } catch (const attnlab::ScenarioError& e) {
    ADD_FAILURE() << model << " layer " << layer << ": " << e.what();
    return json();
  }
}

/// The reference case with the most tokens: past a sliding window, a sentence pair, a long
/// RoPE factor, where a folder's reference has them.
std::size_t longest_case(const std::string& model) {
  std::ifstream in(kModels / model / "reference.json");
  const json cases = json::parse(in).at("cases");
  std::size_t longest = 0;
  for (std::size_t c = 1; c < cases.size(); ++c)
    if (cases[c].at("ids").size() > cases[longest].at("ids").size()) longest = c;
  return longest;
}

TEST(ModelCli, EveryLayerOfEveryTestModelReopensAsItsLayer) {
  const attnlab::testing::ScratchDir scratch("attnlab_model_layers_");
  int layers_checked = 0;
  for (const auto& entry : fs::directory_iterator(kModels)) {
    const std::string name = entry.path().filename().string();
    const std::size_t c = longest_case(name);
    const json expected = reference_case(name, c);
    for (std::size_t l = 0; l < expected.at("layers").size(); ++l) {
      const fs::path file = scratch.fresh(name + "-" + std::to_string(l)) / "layer.json";
      const json trace = layer_trace(entry.path().string(), input_args(expected), int(l), file);
      const json& layer = expected["layers"][l];
      ASSERT_EQ(trace.at("heads").size(), layer.at("heads").size()) << name;
      double worst = 0;
      for (std::size_t h = 0; h < layer["heads"].size(); ++h)
        worst = std::max(worst, max_error(trace["heads"][h].at("weights"), layer["heads"][h].at("weights")));
      EXPECT_LT(worst, 1e-5) << name << " case " << c << " layer " << l;
      EXPECT_LT(max_error(trace.at("output"), layer.at("attn_out")), 1e-4) << name << " case " << c << " layer " << l;
      ++layers_checked;
    }
  }
  std::cout << layers_checked << " layers written with --layer and computed as compute does\n";
  EXPECT_GE(layers_checked, 40);
}

TEST(ModelCli, ALayerWithTheLargestRealRopeThetaReopens) {
  // Gradient's Llama-3-8B-1048k: rope_theta 3,580,165,449, beyond the 1e9 scenario files once held.
  const attnlab::testing::ScratchDir scratch("attnlab_model_theta_");
  const fs::path dir = scratch.fresh("model") / "llama";
  fs::copy(kModels / "llama-mqa-f32", dir);
  model_folders::update_json_file(dir / "config.json", {{"rope_theta", 3580165449.0}});
  const fs::path file = scratch.fresh("out") / "layer.json";
  const json trace = layer_trace(dir.string(), "--ids 1,2,3,4", 1, file);
  ASSERT_TRUE(trace.contains("heads"));
  std::ifstream in(file);
  EXPECT_EQ(json::parse(in).at("rope").at("base"), 3580165449.0);
}

TEST(ModelCli, IdsThatCutACharacterAreWrittenEscaped) {
  // Byte-level BPE gives an emoji's four bytes as tokens of their own: ids that stop inside it
  // label a partial UTF-8 sequence, which JSON cannot hold as text. The file holds it escaped.
  const auto model = attnlab::models::HfModel::open(kGpt2);
  const std::vector<int> emoji = model->encode("\xF0\x9F\x98\x80");
  ASSERT_GE(emoji.size(), 2u) << "the fixture's vocabulary merges the emoji";
  const std::string ids = "83," + std::to_string(emoji[0]);
  const attnlab::testing::ScratchDir scratch("attnlab_model_bytes_");
  const fs::path file = scratch.fresh("out") / "layer.json";
  const json trace = layer_trace(kGpt2, "--ids " + ids, 0, file);
  ASSERT_TRUE(trace.contains("heads"));
  std::ifstream in(file);
  const json scenario = json::parse(in);
  EXPECT_EQ(scenario.at("tokens")[1], model->label(emoji[0]));
  EXPECT_NE(scenario.at("tokens")[1].get<std::string>().find("\\x"), std::string::npos) << scenario["tokens"][1];
  EXPECT_NE(scenario.at("notes").get<std::string>().find("\\x"), std::string::npos) << scenario["notes"];
}

TEST(ModelCli, OutIsCheckedBeforeTheModelRuns) {
  const attnlab::testing::ScratchDir scratch("attnlab_model_out_");
  const fs::path folder = scratch.fresh("out");
  const auto missing = cli(kGpt2 + " --ids 1,2 --layer 0 --out " + (folder / "no" / "layer.json").string());
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err.substr(0, missing.err.find('\n')), "attnlab-cli: --out '" + (folder / "no" / "layer.json").string() +
                                                               "': the folder '" + (folder / "no").string() + "' does not exist");
  const auto is_folder = cli(kGpt2 + " --ids 1,2 --layer 0 --out " + folder.string());
  EXPECT_EQ(is_folder.status, 2);
  EXPECT_EQ(is_folder.err.substr(0, is_folder.err.find('\n')),
            "attnlab-cli: --out '" + folder.string() + "' is a folder: give the name of a file to write in it");
  EXPECT_TRUE(fs::is_empty(folder));
}

TEST(ModelCli, ARunThatCannotFitIsRefusedBeforeItStarts) {
  // 64 layers of 64 heads: at 8192 tokens every layer's and head's weights take 1 TiB, their JSON
  // ten times more. Refused at once in one line naming the estimate and the limit.
  const attnlab::testing::ScratchDir scratch("attnlab_model_memory_");
  const fs::path dir = scratch.fresh("wide") / "wide";
  model_folders::write_wide_qwen2(kModels, dir, 64, 64, 8192);
  std::string ids;
  for (int i = 0; i < 8192; ++i) ids += i ? ",5" : "5";
  const auto r = cli(dir.string() + " --ids " + ids + " --attention");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  const std::string expected = dir.string() + ": ids: 8192 tokens printed with every layer's and head's 8192 x 8192 "
                                              "weights (--attention) need about ";
  EXPECT_EQ(r.err.substr(0, expected.size()), expected) << r.err;
  EXPECT_NE(r.err.find(" GiB; this machine allows "), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
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
