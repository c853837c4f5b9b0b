// attnlab-cli heads, lens and patch print what the float64 reference computes: on the hand-built
// induction circuit (assets/models/induction-circuit), against its reference
// (scripts/gen_induction_circuit.py), to 1e-5.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../test_support.h"

namespace test_instruments_cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kCircuit = (fs::path(ATTNLAB_SOURCE_DIR) / "assets/models/induction-circuit").string();
const std::string kSentence = "the cat sat on a mat . the cat";

json reference() {
  std::ifstream in(fs::path(ATTNLAB_SOURCE_DIR) / "tests/fixtures/instruments/induction-circuit.json");
  return json::parse(in);
}

json cli_json(const std::string& args) {
  const auto r = attnlab::testing::run_shell_apart(std::string(ATTNLAB_CLI) + " " + args);
  EXPECT_EQ(r.status, 0) << args << ": " << r.err;
  return r.status == 0 ? json::parse(r.out) : json();
}

/// The largest difference between two nested arrays of numbers; null must meet null.
double max_error(const json& a, const json& b) {
  if (a.is_null() || b.is_null()) return a.is_null() && b.is_null() ? 0 : INFINITY;
  if (a.is_number()) return std::abs(a.get<double>() - b.get<double>());
  if (a.size() != b.size()) return INFINITY;
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, max_error(a[i], b[i]));
  return worst;
}

TEST(InstrumentsCli, HeadsLensAndPatchPrintTheReference) {
  const json expected = reference();
  const json heads = cli_json("heads " + kCircuit + " --text '" + kSentence + "' --json");
  EXPECT_EQ(heads.at("ids"), expected.at("heads").at(0).at("ids"));
  for (const auto& [name, scores] : expected.at("heads").at(0).at("scores").items())
    EXPECT_LE(max_error(heads.at("scores").at(name), scores), 1e-5) << name;

  const json lens = cli_json("lens " + kCircuit + " --text '" + kSentence + "' --token ' sat' --json");
  EXPECT_EQ(lens.at("chosen").at("id"), expected.at("lens").at("chosen"));
  for (std::size_t l = 0; l < 2; ++l) {
    const json& want = expected.at("lens").at("layers").at(l);
    const json& got = lens.at("layers").at(l);
    for (std::size_t i = 0; i < want.at("top_id").size(); ++i) {
      EXPECT_EQ(got.at("top").at(i).at("id"), want.at("top_id").at(i)) << "layer " << l << " position " << i;
      EXPECT_NEAR(got.at("top").at(i).at("p").get<double>(), want.at("top_p").at(i).get<double>(), 1e-5);
    }
    EXPECT_LE(max_error(got.at("chosen_p"), want.at("chosen_p")), 1e-5) << "layer " << l;
  }

  const json patch = cli_json("patch " + kCircuit + " --clean '" + kSentence + "' --corrupt 'the dog sat on a mat . the cat'" +
                              " --answer ' sat' --wrong ' ran' --json");
  const json& want = expected.at("patch");
  EXPECT_EQ(patch.at("corrupt").at("ids"), want.at("corrupted"));
  EXPECT_NEAR(patch.at("logit_difference").at("clean").get<double>(), want.at("ld_clean").get<double>(), 1e-5);
  EXPECT_NEAR(patch.at("logit_difference").at("corrupted").get<double>(), want.at("ld_corrupted").get<double>(), 1e-5);
  EXPECT_LE(max_error(patch.at("heads"), want.at("heads")), 1e-5);
  EXPECT_LE(max_error(patch.at("positions"), want.at("positions")), 1e-5);
}

TEST(InstrumentsCli, RandomRepeatIsTheSequenceItScores) {
  const json heads = cli_json("heads " + kCircuit + " --random-repeat 12 --seed 5 --json");
  const std::vector<int> ids = heads.at("ids").get<std::vector<int>>();
  ASSERT_EQ(ids.size(), 25u);
  EXPECT_EQ(ids.front(), 31) << "<|bos|> first";
  for (std::size_t i = 1; i <= 12; ++i) EXPECT_EQ(ids[i], ids[i + 12]);
  EXPECT_EQ(heads.at("repeat").at("ids"), heads.at("ids"));
  const json& induction = heads.at("scores").at("induction");
  EXPECT_GT(induction.at(1).at(1).get<double>(), induction.at(0).at(0).get<double>());
  EXPECT_GT(induction.at(1).at(1).get<double>(), 0.5);
}

}  // namespace
}  // namespace test_instruments_cli
