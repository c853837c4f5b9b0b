// The exported NumPy script, run with Debian's /usr/bin/python3 (python3-numpy; the `python3` on
// PATH may be a pyenv without NumPy), prints the same trace as `attnlab-cli compute` to 1e-9.

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "attnlab/attention.h"
#include "attnlab/export/numpy_script.h"
#include "attnlab/scenario_io.h"
#include "attnlab/trace_io.h"
#include "test_support.h"
#include <nlohmann/json.hpp>

namespace test_export_numpy {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using attnlab::Scenario;

constexpr double kTolerance = 1e-9;  // relative to max(1, |value|)
const char* const kPython = "/usr/bin/python3";

using Output = attnlab::testing::ShellResult;
using attnlab::testing::run_shell;
Output run(const std::string& command) { return run_shell(command); }

const attnlab::testing::ScratchDir scratch("attnlab_numpy_");

std::string cli() { return "env -u DISPLAY " + std::string(ATTNLAB_CLI); }

/// Walks both documents; numbers within tolerance, everything else equal. Returns the worst error.
double compare(const json& want, const json& got, const std::string& where) {
  if (want.is_number() && got.is_number()) {
    const double a = want.get<double>(), b = got.get<double>();
    const double err = std::abs(a - b) / std::max(1.0, std::abs(a));
    EXPECT_LE(err, kTolerance) << where << ": cli " << a << ", numpy " << b;
    return err;
  }
  EXPECT_EQ(want.type_name(), std::string(got.type_name())) << where;
  double worst = 0;
  if (want.is_array() && got.is_array()) {
    EXPECT_EQ(want.size(), got.size()) << where;
    for (std::size_t k = 0; k < std::min(want.size(), got.size()); ++k)
      worst = std::max(worst, compare(want[k], got[k], where + "[" + std::to_string(k) + "]"));
  } else if (want.is_object() && got.is_object()) {
    for (const auto& [key, value] : want.items()) {
      EXPECT_TRUE(got.contains(key)) << where << "." << key;
      if (got.contains(key)) worst = std::max(worst, compare(value, got[key], where + "." + key));
    }
    EXPECT_EQ(want.size(), got.size()) << where;
  } else if (!want.is_array() && !want.is_object()) {
    EXPECT_EQ(want, got) << where;
  }
  return worst;
}

/// Scripts and the traces they must print, checked in one Python: each script runs as its own
/// __main__ with fresh globals (80 interpreters importing NumPy took most of a minute under ASan).
class ScriptBatch {
 public:
  explicit ScriptBatch(const std::string& name) : dir_(scratch.fresh(name)) {}

  /// The trace as `attnlab-cli compute` prints it, the script as `export --format numpy` writes it.
  void add_through_cli(const fs::path& scenario) {
    const Output computed = run(cli() + " compute " + scenario.string());
    ASSERT_EQ(computed.status, 0) << scenario << ": " << computed.out;
    const fs::path script = dir_ / (scenario.filename().string() + ".py");
    const Output exported = run(cli() + " export " + scenario.string() + " --format numpy --out - > " + script.string());
    ASSERT_EQ(exported.status, 0) << scenario;
    want_[script.filename().string()] = json::parse(computed.out);
  }

  /// The same in-process: compute's trace through text (a non-finite number becomes null there) and
  /// the exporter's script.
  void add(const std::string& name, const Scenario& scenario) {
    const fs::path script = dir_ / (name + ".py");
    std::ofstream(script) << attnlab::exporter::numpy_script(scenario, name);
    want_[script.filename().string()] = json::parse(attnlab::trace_to_json(attnlab::compute(scenario)).dump());
  }

  void expect_scripts_print_their_traces() const {
    ASSERT_TRUE(fs::exists(kPython)) << "Debian's python3 with python3-numpy is needed (scripts/install-deps.sh)";
    std::ofstream(dir_ / "run_all.py") << "import contextlib, io, json, pathlib, runpy, sys\n"
                                          "out = {}\n"
                                          "for path in sorted(pathlib.Path(sys.argv[1]).glob('*.py')):\n"
                                          "    if path.name == 'run_all.py': continue\n"
                                          "    printed = io.StringIO()\n"
                                          "    with contextlib.redirect_stdout(printed):\n"
                                          "        runpy.run_path(str(path), run_name='__main__')\n"
                                          "    out[path.name] = json.loads(printed.getvalue())\n"
                                          "print(json.dumps(out))\n";
    const Output python = run(std::string(kPython) + " " + (dir_ / "run_all.py").string() + " " + dir_.string() + " 2>&1");
    ASSERT_EQ(python.status, 0) << python.out;
    const json got = json::parse(python.out);
    EXPECT_EQ(got.size(), want_.size());
    for (const auto& [script, trace] : want_) {
      ASSERT_TRUE(got.contains(script)) << script;
      const double worst = compare(trace, got.at(script), script);
      std::cout << "  " << script << ": max relative error " << worst << "\n";
    }
  }

 private:
  fs::path dir_;
  std::map<std::string, json> want_;
};

TEST(ExportNumpy, ScriptAgreesWithComputeOnEveryPreset) {
  ScriptBatch batch("presets");
  int presets = 0;
  for (const auto& e : fs::directory_iterator(fs::path(ATTNLAB_SOURCE_DIR) / "assets" / "presets"))
    if (e.path().extension() == ".json") {
      batch.add_through_cli(e.path());
      ++presets;
    }
  EXPECT_GE(presets, 9);
  batch.expect_scripts_print_their_traces();
}

TEST(ExportNumpy, ScriptAgreesWithComputeOnFixturesCoveringEveryFeature) {
  // Both layouts of: cross-attention with causal and padding masks, custom cells, a combined mask,
  // fully masked queries, per-head weights with partial biases, identity projections, no W_o,
  // scale none and a number, d_v != d_k, split heads, huge logits.
  const char* const names[] = {
      "causal_cross_nx_gt_nz", "padding_cross_h1", "cells_object_cross_h2", "combined_mask_h2",
      "fully_masked_row_causal_padding", "fully_masked_row_no_wo_h4", "perhead_partial_biases_h2",
      "identity_projections_biases_scale_none", "identity_v_only_cross", "scale_number_temperature",
      "cross_h2_dv_ne_dk", "split_full_h4_cross", "large_logits_stability", "single_token", "torch_self_h2_bias",
      // Positions, GQA (full and kv_heads), RoPE in both styles, partial, ALiBi, windows, X + PE and Z + PE.
      "modern_gqa_h4_g2_causal_wo", "modern_mqa_h4_perhead_kv_heads", "modern_rope_half_h2",
      "modern_rope_interleaved_positions", "modern_rope_partial_base500_cross", "modern_alibi_h6_paper_rule",
      "modern_alibi_given_slopes_cross", "modern_window_cross_padding", "modern_sinusoidal_cross",
      "modern_everything_perhead", "modern_everything_full_h4_g1",
      // Attention sinks with a window, causal, cells, padding, GQA, RoPE and ALiBi.
      "modern_sinks2_window3_causal_8_tokens", "modern_sinks_cells_gqa_rope", "modern_sinks_padding_no_causal",
      // QK-norm (over a head, 1 + w, over the width, cross), the softcap, RoPE scaling (each rule).
      "stages_softcap_h2_causal", "stages_softcap_alibi_cross_window", "stages_qknorm_head_qwen3_gqa_rope",
      "stages_qknorm_plus_one_gemma3_perhead_softcap", "stages_qknorm_width_olmo2_gqa",
      "stages_qknorm_width_cross_no_weights", "stages_rope_linear_factor4", "stages_rope_llama3_three_bands",
      "stages_rope_longrope_long_partial", "stages_rope_longrope_short", "stages_everything_llama3_qknorm_softcap_alibi"};
  // In-process: the CLI's own path is the presets' test above.
  ScriptBatch batch("fixtures");
  for (const char* name : names)
    for (const char* layout : {"_rows", "_columns"}) {
      const fs::path fixture = fs::path(ATTNLAB_SOURCE_DIR) / "tests" / "fixtures" / (std::string(name) + layout + ".json");
      ASSERT_TRUE(fs::exists(fixture)) << fixture;
      std::ifstream in(fixture);
      const json doc = json::parse(in);  // {"scenario", "expected", ...}: the script needs the scenario alone
      batch.add(fixture.filename().string(), attnlab::scenario_from_json(doc.at("scenario")));
    }
  batch.expect_scripts_print_their_traces();
}

TEST(ExportNumpy, ScriptZeroesTheHeadsSwitchedOff) {
  Scenario s = attnlab::load_scenario(attnlab::testing::preset_path("vaswani-q3-two-heads"));
  s.heads_off = {0};
  const fs::path path = scratch.fresh("heads_off") / "heads_off.json";
  attnlab::save_scenario(s, path.string());
  ScriptBatch batch("heads_off_script");
  batch.add_through_cli(path);
  batch.expect_scripts_print_their_traces();
}

TEST(ExportNumpy, ScriptIsWrittenToTheOutputDirectory) {
  const fs::path dir = scratch.fresh("dir", false);
  const Output r = run(cli() + " export " + std::string(ATTNLAB_SOURCE_DIR) +
                       "/assets/presets/udl-12-2-multihead.json --format numpy,csv --what weights --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::exists(dir / "attention.py"));
  EXPECT_TRUE(fs::exists(dir / "head1_weights.csv"));
  std::ifstream in(dir / "attention.py");
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  // The columns layout in Prince's notation.
  EXPECT_NE(text.find("Q = w[\"W_q\"] @ X + w[\"b_q\"][:, None]"), std::string::npos);
  EXPECT_NE(text.find("S = K.T @ Q"), std::string::npos);
  EXPECT_NE(text.find("axis=0"), std::string::npos);
}

}  // namespace

}  // namespace test_export_numpy
