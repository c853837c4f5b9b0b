// attnlab-cli end to end: the real binary, its stdout, stderr and exit status.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace test_cli {

namespace {

using CliRun = attnlab::testing::Outputs;

/// Runs attnlab-cli with `args` (shell words), capturing stdout and stderr.
CliRun cli(const std::string& args) { return attnlab::testing::run_shell_apart(std::string(ATTNLAB_CLI) + " " + args); }

using attnlab::testing::preset_path;

std::string temp_file(const std::string& name, const std::string& contents) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << contents;
  return path.string();
}

TEST(Cli, ComputePrintsTheTraceAsJsonWithNullForMinusInfinity) {
  const CliRun r = cli("compute " + preset_path("phuong-hutter-alg4-masked"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto trace = nlohmann::json::parse(r.out);
  for (const char* key : {"Q", "K", "V", "scores", "scaled", "masked", "weights", "output"})
    EXPECT_TRUE(trace["heads"][0].contains(key)) << key;
  EXPECT_TRUE(trace.contains("concat"));
  EXPECT_EQ(trace["layout"], "columns");
  EXPECT_TRUE(trace["heads"][0]["masked"][0][0].is_null());  // Mask[0][0] = 0 in the notebook
  EXPECT_FALSE(trace["warnings"].empty());
}

TEST(Cli, ComputeGivesEveryHeadItsStatisticsOnePerQuery) {
  const CliRun r = cli("compute " + preset_path("phuong-hutter-alg4-masked"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto trace = nlohmann::json::parse(r.out);
  const std::size_t n_x = trace["heads"][0]["weights"][0].size();  // columns layout: a query per column
  for (const auto& head : trace["heads"]) {
    const auto& stats = head["stats"];
    EXPECT_EQ(stats.size(), 6u) << stats.dump();
    for (const char* key : {"entropy", "max_weight", "argmax", "keys_for_90", "first_key", "mean_distance"})
      EXPECT_EQ(stats[key].size(), n_x) << key;
  }
  const CliRun text = cli("compute " + preset_path("phuong-hutter-alg4-masked") + " --format text");
  EXPECT_NE(text.out.find("head 0 stats"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  keys_for_90   ["), std::string::npos) << text.out;
}

TEST(Cli, ComputeOnUdl122PrintsTheBooksXPrimeTo1e3) {
  const CliRun r = cli("compute " + preset_path("udl-12-2-multihead"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto output = nlohmann::json::parse(r.out)["output"];
  // Seed 002's printed "True values" (8 x 6, tokens as columns).
  const double expected[8][6] = {{-21.207, -5.373, -20.933, -9.179, -11.319, -17.812},
                                 {-1.995, 7.906, -10.516, 3.452, 9.863, -7.24},
                                 {5.479, 1.115, 9.244, 0.453, 5.656, 7.089},
                                 {-7.413, -7.416, 0.363, -5.573, -6.736, -0.848},
                                 {-11.261, -9.937, -4.848, -8.915, -13.378, -5.761},
                                 {3.548, 10.036, -2.244, 1.604, 12.113, -2.557},
                                 {4.888, -5.814, 2.407, 3.228, -4.232, 3.71},
                                 {1.248, 18.894, -6.409, 3.224, 19.717, -5.629}};
  ASSERT_EQ(output.size(), 8u);
  double worst = 0;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 6; ++j) worst = std::max(worst, std::abs(output[i][j].get<double>() - expected[i][j]));
  EXPECT_LE(worst, 1e-3) << "max |X' - printed| = " << worst;
}

TEST(Cli, TextFormatPrintsAlignedMatricesWithTheGivenPrecision) {
  const CliRun r = cli("compute " + preset_path("vaswani-q2-is-attends") + " --format text --precision 4");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("head 0 weights:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[ 0.4579 -1.3416  0.3622  0.8046]"), std::string::npos) << r.out;  // Q of "is"
}

TEST(Cli, ValidateSaysValidAndExitsZero) {
  const CliRun r = cli("validate " + preset_path("mlm-general-attention"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("valid"), std::string::npos);
}

TEST(Cli, InvalidInputExitsOneWithOneLineNamingTheField) {
  const std::string bad = temp_file("attnlab_cli_bad.json", R"({"X": [[1, 2]], "W_Q": [[1]]})");
  for (const char* command : {"validate", "compute"}) {
    const CliRun r = cli(std::string(command) + " " + bad);
    EXPECT_EQ(r.status, 1) << command;
    EXPECT_TRUE(r.out.empty()) << command;
    EXPECT_EQ(r.err, bad + ": W_Q: unknown key (did you mean \"W_q\"?)\n") << command;
  }
  std::filesystem::remove(bad);
}

TEST(Cli, MissingFileExitsOne) {
  const CliRun r = cli("validate /nonexistent/x.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("cannot open"), std::string::npos) << r.err;
}

TEST(Cli, BadUsageExitsTwo) {
  EXPECT_EQ(cli("").status, 2);
  EXPECT_EQ(cli("frobnicate x.json").status, 2);
  EXPECT_EQ(cli("compute").status, 2);
  EXPECT_EQ(cli("compute " + preset_path("mlm-general-attention") + " --format xml").status, 2);
  EXPECT_EQ(cli("compute " + preset_path("mlm-general-attention") + " --precision many").status, 2);
  EXPECT_EQ(cli("compute " + preset_path("mlm-general-attention") + " --colour red").status, 2);
}

TEST(Cli, BenchPrintsItsTimesFlopsAndBackendAsJson) {
  const CliRun r = cli("bench --shape 12x8x2 --repeats 3 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["shape"], "12x8x2");
  EXPECT_EQ(j["repeats"], 3);
  EXPECT_EQ(j["layout"], "rows");
  EXPECT_EQ(j["flops"].get<double>(), 8.0 * 12 * 8 * 8 + 4.0 * 12 * 12 * 8);  // 8NE^2 + 4N^2E
  const double best = j["seconds"], median = j["median_seconds"], resolve = j["resolve_seconds"];
  EXPECT_GT(best, 0.0);
  EXPECT_LE(best, median);
  EXPECT_GT(resolve, 0.0);
  EXPECT_LT(resolve, median);  // resolve() is a part of each repeat
  EXPECT_NEAR(j["gflops"].get<double>(), j["flops"].get<double>() / best / 1e9, 1e-3 * j["gflops"].get<double>());
  EXPECT_TRUE(j["products"] == "OpenBLAS" || j["products"] == "Eigen") << j["products"];
  EXPECT_GE(j["threads"].get<int>(), 1);
  EXPECT_TRUE(j["kernels"] == "AVX2+FMA" || j["kernels"] == "portable") << j["kernels"];
  EXPECT_EQ(cli("bench --shape 12x8x2 --repeats 1 --json --layout columns").status, 0);
}

// ATTNLAB_KERNELS=portable is how attnlab_tests_portable_kernels runs the core's plain loops on a
// machine with AVX2: the bench names the kernels it ran, so that test is known to run them.
TEST(Cli, BenchRunsThePortableKernelsWhenAsked) {
  const CliRun r = attnlab::testing::run_shell_apart("ATTNLAB_KERNELS=portable " + std::string(ATTNLAB_CLI) +
                                                     " bench --shape 12x8x2 --repeats 1 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["kernels"], "portable");
}

TEST(Cli, BenchEditsRecomputeOnlyWhatTheEditChanges) {
  const std::pair<const char*, const char*> expected[] = {{"none", "projections,attention,output"},
                                                          {"x", "projections,attention,output"},
                                                          {"scale", "attention,output"},
                                                          {"wq", "projections,attention,output"},
                                                          {"wo", "output"}};
  for (const auto& [edit, recomputed] : expected) {
    const CliRun r = cli(std::string("bench --shape 12x8x2 --repeats 3 --json --edit ") + edit);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["edit"], edit);
    EXPECT_EQ(j["recomputed"], recomputed) << edit;
    EXPECT_EQ(j["gflops"].is_null(), std::string(edit) != "none") << edit;  // a rate of the whole trace only
  }
  const CliRun bad = cli("bench --shape 12x8x2 --edit W_q");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--edit"), std::string::npos) << bad.err;
}

TEST(Cli, BenchRefusesShapesItCannotBuildAndNamesThem) {
  for (const char* shape : {"8x10x3", "abc", "8x8", "0x8x2", "8x8x2x1", "100000x100000x1", "8x8x512"}) {
    const CliRun r = cli(std::string("bench --shape ") + shape);
    EXPECT_EQ(r.status, 2) << shape;
    EXPECT_NE(r.err.find(std::string("--shape")), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << shape;
  }
  EXPECT_EQ(cli("bench").status, 2);  // --shape is required
}

TEST(Cli, SensitivityPrintsTheGradientOfOneCellAsJson) {
  const CliRun r = cli("sensitivity " + preset_path("phuong-hutter-alg5-multihead") + " --of 'output[1][2]'");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["of"], "output[1][2]");
  EXPECT_TRUE(j["value"].is_number());
  // Cross-attention with per-head weights, W_o and b_o: no full matrices.
  for (const char* key : {"X", "Z", "heads", "W_o", "b_o"}) EXPECT_TRUE(j["grad"].contains(key)) << key;
  EXPECT_FALSE(j["grad"].contains("W_q"));
  EXPECT_TRUE(j["grad"]["b_o"][0].is_number());  // a bias: a plain array
  const CliRun heads = cli("sensitivity " + preset_path("phuong-hutter-alg5-multihead") + " --of 'heads[1].weights[0][1]'");
  EXPECT_EQ(heads.status, 0) << heads.err;
}

TEST(Cli, SensitivityRefusesAnOfThatNamesNoCellNamingIt) {
  const std::string file = preset_path("mlm-general-attention");
  for (const char* of : {"output[99][0]", "nonsense", "X[0][0]", "heads[7].weights[0][0]", "output[0", "concat[-1][0]"}) {
    const CliRun r = cli("sensitivity " + file + " --of '" + of + "'");
    EXPECT_EQ(r.status, 2) << of;
    EXPECT_TRUE(r.out.empty()) << of;
    const std::string first_line = r.err.substr(0, r.err.find('\n'));
    EXPECT_EQ(first_line.rfind("attnlab-cli: --of", 0), 0u) << first_line;
  }
  EXPECT_NE(cli("sensitivity " + file + " --of 'output[99][0]'").err.find("--of output[99][0]: no such cell in a "),
            std::string::npos);
  const CliRun missing = cli("sensitivity " + file);
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.substr(0, missing.err.find('\n')).find("--of"), std::string::npos) << missing.err;
  EXPECT_EQ(cli("sensitivity --of 'output[0][0]'").status, 2);  // no FILE
  EXPECT_EQ(cli("sensitivity " + file + " --of 'output[0][0]' --at 3").status, 2);
}

TEST(Cli, SensitivityOnABrokenFileExitsOne) {
  const std::string bad = temp_file("attnlab_cli_sens_bad.json", R"({"X": [[1, 2]], "W_q": [[1, 2, 3]]})");
  const CliRun r = cli("sensitivity " + bad + " --of 'output[0][0]'");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.err.rfind(bad + ": W_q: expected", 0), 0u) << r.err;
  std::filesystem::remove(bad);
  EXPECT_EQ(cli("sensitivity /nonexistent/x.json --of 'output[0][0]'").status, 1);
}

TEST(Cli, HelpExitsZero) {
  const CliRun r = cli("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("compute FILE"), std::string::npos);
}

}  // namespace

}  // namespace test_cli
