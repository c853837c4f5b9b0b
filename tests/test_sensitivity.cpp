// Sensitivity (core/include/attnlab/sensitivity.h): the analytic gradient of one trace cell checked
// against central finite differences of the core's own forward pass, on random scenarios covering
// every stage the backward pass goes through.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attnlab/attention.h"
#include "attnlab/model.h"
#include "attnlab/random.h"
#include "attnlab/scenario_io.h"
#include "attnlab/sensitivity.h"
#include "test_support.h"

namespace test_sensitivity {

namespace {

using namespace attnlab;

/// The cell `ref` names, read from the trace as stored (the scenario's layout), independently of
/// trace_cell()'s mapping to the rows convention.
double stored_cell(const Trace& t, const CellRef& ref) {
  const Eigen::Index r = ref.index[0], c = ref.index[1];
  if (ref.head < 0) return ref.name == "output" ? t.output(r, c) : t.concat(r, c);
  const HeadTrace& h = t.heads[std::size_t(ref.head)];
  return ref.name == "weights"  ? h.weights(r, c)
         : ref.name == "scores" ? h.scores(r, c)
                                : h.output(r, c);
}

/// One number of the scenario, its analytic gradient and its name for messages.
struct Param {
  std::string name;
  std::function<double&(Scenario&)> cell;
  double grad;
};

void add_matrix(std::vector<Param>& out, const std::string& name,
                const std::function<Matrix&(Scenario&)>& of, const Scenario& s,
                const std::optional<Matrix>& grad) {
  ASSERT_TRUE(grad.has_value()) << name << ": no gradient";
  const Matrix& m = of(const_cast<Scenario&>(s));
  ASSERT_EQ(grad->rows(), m.rows()) << name;
  ASSERT_EQ(grad->cols(), m.cols()) << name;
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      out.push_back({name + "[" + std::to_string(r) + "][" + std::to_string(c) + "]",
                     [of, r, c](Scenario& x) -> double& { return of(x)(r, c); }, (*grad)(r, c)});
}

void add_vector(std::vector<Param>& out, const std::string& name,
                const std::function<Vector&(Scenario&)>& of, const Scenario& s,
                const std::optional<Vector>& grad) {
  ASSERT_TRUE(grad.has_value()) << name << ": no gradient";
  const Vector& v = of(const_cast<Scenario&>(s));
  ASSERT_EQ(grad->size(), v.size()) << name;
  for (Eigen::Index i = 0; i < v.size(); ++i)
    out.push_back({name + "[" + std::to_string(i) + "]",
                   [of, i](Scenario& x) -> double& { return of(x)(i); }, (*grad)(i)});
}

/// The projections' numbers, where the scenario has them; a gradient only where it does.
void add_projections(std::vector<Param>& out, const std::string& prefix,
                     const std::function<Projections&(Scenario&)>& of, const Scenario& s,
                     const ProjectionGradients& g, bool queries_only = false) {
  const Projections& p = of(const_cast<Scenario&>(s));
  using W = std::optional<Matrix> Projections::*;
  using B = std::optional<Vector> Projections::*;
  const auto matrix = [&](const char* name, W field, const std::optional<Matrix>& grad) {
    EXPECT_EQ((p.*field).has_value(), grad.has_value()) << prefix << name;
    if (p.*field)
      add_matrix(
          out, prefix + name, [of, field](Scenario& x) -> Matrix& { return *(of(x).*field); }, s,
          grad);
  };
  const auto vector = [&](const char* name, B field, const std::optional<Vector>& grad) {
    EXPECT_EQ((p.*field).has_value(), grad.has_value()) << prefix << name;
    if (p.*field)
      add_vector(
          out, prefix + name, [of, field](Scenario& x) -> Vector& { return *(of(x).*field); }, s,
          grad);
  };
  matrix("W_q", &Projections::W_q, g.W_q);
  vector("b_q", &Projections::b_q, g.b_q);
  if (queries_only) return;
  matrix("W_k", &Projections::W_k, g.W_k);
  matrix("W_v", &Projections::W_v, g.W_v);
  vector("b_k", &Projections::b_k, g.b_k);
  vector("b_v", &Projections::b_v, g.b_v);
}

/// Every number of the scenario with its analytic gradient; checks that each gradient is present
/// exactly where the scenario has the matrix and shaped like it.
std::vector<Param> params(const Scenario& s, const Sensitivity& g) {
  std::vector<Param> out;
  add_matrix(
      out, "X", [](Scenario& x) -> Matrix& { return x.X; }, s, g.X);
  EXPECT_EQ(s.Z.has_value(), g.Z.has_value());
  if (s.Z)
    add_matrix(
        out, "Z", [](Scenario& x) -> Matrix& { return *x.Z; }, s, g.Z);
  if (!s.per_head())
    add_projections(
        out, "", [](Scenario& x) -> Projections& { return x.full; }, s, g.full);
  EXPECT_EQ(g.heads.size(), s.heads.size());
  EXPECT_EQ(g.kv_heads.size(), s.kv_heads.size());
  for (std::size_t h = 0; h < std::min(s.heads.size(), g.heads.size()); ++h)
    add_projections(
        out, "heads[" + std::to_string(h) + "].",
        [h](Scenario& x) -> Projections& { return x.heads[h]; }, s, g.heads[h],
        !s.kv_heads.empty());
  for (std::size_t k = 0; k < std::min(s.kv_heads.size(), g.kv_heads.size()); ++k)
    add_projections(
        out, "kv_heads[" + std::to_string(k) + "].",
        [k](Scenario& x) -> Projections& { return x.kv_heads[k]; }, s, g.kv_heads[k]);
  EXPECT_EQ(s.W_o.has_value(), g.W_o.has_value());
  if (s.W_o)
    add_matrix(
        out, "W_o", [](Scenario& x) -> Matrix& { return *x.W_o; }, s, g.W_o);
  EXPECT_EQ(s.b_o.has_value(), g.b_o.has_value());
  if (s.b_o)
    add_vector(
        out, "b_o", [](Scenario& x) -> Vector& { return *x.b_o; }, s, g.b_o);
  return out;
}

/// Central differences of the forward pass for every number, against the analytic gradient:
/// |fd - analytic| <= 1e-6 max(1, |analytic|) (rounding in fd ~ 1e-16 / 1e-6 = 1e-10).
void expect_matches_finite_differences(const Scenario& s, const std::string& of) {
  SCOPED_TRACE(of + " (" + s.title + ")");
  const CellRef ref = parse_cell_ref(of);
  const Sensitivity g = sensitivity(s, ref);
  EXPECT_EQ(g.value, stored_cell(compute(s), ref)) << "the target's value is the trace's cell";
  const std::vector<Param> ps = params(s, g);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  constexpr double step = 1e-6;
  double worst = 0, largest = 0;
  std::string worst_name;
  for (const Param& p : ps) {
    Scenario plus = s, minus = s;
    p.cell(plus) += step;
    p.cell(minus) -= step;
    const double fd =
        (stored_cell(compute(plus), ref) - stored_cell(compute(minus), ref)) / (2 * step);
    const double err = std::abs(fd - p.grad) / std::max(1.0, std::abs(p.grad));
    largest = std::max(largest, std::abs(p.grad));
    if (err > worst) worst = err, worst_name = p.name;
  }
  EXPECT_LE(worst, 1e-6) << "worst relative error " << worst << " at " << worst_name;
  EXPECT_GT(largest, 0.0) << "every gradient is zero: the check would prove nothing";
  std::printf("  %s (%s): %zu numbers, worst relative error %.2e (%s)\n", of.c_str(),
              s.title.c_str(), ps.size(), worst, worst_name.c_str());
}

RandomSpec spec(std::uint64_t seed) {
  RandomSpec r;
  r.seed = seed;
  return r;
}

Vector random_vector(int n, std::uint64_t seed, std::uint64_t stream) {
  return random_matrix(n, 1, spec(seed), stream).col(0);
}

/// Self-attention, full matrices with every bias, W_o and b_o, H = 2 heads of d_k = 2, d_v = 3.
Scenario full_self(std::uint64_t seed) {
  Scenario s;
  s.title = "full self";
  const RandomSpec r = spec(seed);
  s.X = random_matrix(4, 3, r, 1);
  s.num_heads = 2;
  s.full.W_q = random_matrix(3, 4, r, 2);
  s.full.W_k = random_matrix(3, 4, r, 3);
  s.full.W_v = random_matrix(3, 6, r, 4);
  s.full.b_q = random_vector(4, seed, 5);
  s.full.b_k = random_vector(4, seed, 6);
  s.full.b_v = random_vector(6, seed, 7);
  s.W_o = random_matrix(6, 5, r, 8);
  s.b_o = random_vector(5, seed, 9);
  s.mask.causal = true;
  return s;
}

/// Cross-attention with per-head weights (some omitted), padding and explicit cells, no W_o.
Scenario per_head_cross(std::uint64_t seed) {
  Scenario s;
  s.title = "per-head cross";
  const RandomSpec r = spec(seed);
  s.X = random_matrix(3, 4, r, 1);
  s.Z = random_matrix(5, 2, r, 2);
  for (int h = 0; h < 2; ++h) {
    Projections p;
    p.W_q = random_matrix(4, 2, r, 10 + h);
    if (h == 0) p.W_k = random_matrix(2, 2, r, 20);  // head 1: W_k omitted (identity, d_z = d_k)
    p.W_v = random_matrix(2, 3, r, 30 + h);
    if (h == 1) p.b_q = random_vector(2, seed, 40), p.b_v = random_vector(3, seed, 41);
    if (h == 0) p.b_k = random_vector(2, seed, 42);
    s.heads.push_back(p);
  }
  s.mask.padding = {3};
  Matrix cells = Matrix::Ones(3, 5);
  cells(0, 1) = 0;
  cells(2, 0) = 0;
  s.mask.cells = cells;
  s.scale = Scale{Scale::Kind::value, 0.7};
  return s;
}

/// Grouped-query attention (H = 4, G = 2, full matrices), RoPE (half), ALiBi, positions.
Scenario gqa_rope_alibi(std::uint64_t seed) {
  Scenario s;
  s.title = "GQA RoPE ALiBi";
  const RandomSpec r = spec(seed);
  s.X = random_matrix(5, 4, r, 1);
  s.num_heads = 4;
  s.num_kv_heads = 2;
  s.full.W_q = random_matrix(4, 16, r, 2);
  s.full.W_k = random_matrix(4, 8, r, 3);
  s.full.W_v = random_matrix(4, 6, r, 4);
  s.full.b_k = random_vector(8, seed, 5);
  s.W_o = random_matrix(12, 3, r, 6);
  s.positions = {3, 0, 7, 2, 5};
  s.rope = Rope{};
  s.alibi = Alibi{};
  s.mask.causal = true;
  return s;
}

/// Per-head grouped (kv_heads), cross-attention, RoPE interleaved on part of d_k, sinusoidal PE.
Scenario kv_heads_encoded(std::uint64_t seed) {
  Scenario s;
  s.title = "kv_heads encoded";
  const RandomSpec r = spec(seed);
  s.X = random_matrix(4, 4, r, 1);
  s.Z = random_matrix(3, 2, r, 2);
  for (int h = 0; h < 2; ++h) {
    Projections p;
    p.W_q = random_matrix(4, 4, r, 10 + h);
    p.b_q = random_vector(4, seed, 20 + h);
    s.heads.push_back(p);
  }
  Projections kv;
  kv.W_k = random_matrix(2, 4, r, 30);
  kv.b_k = random_vector(4, seed, 31);
  kv.b_v = random_vector(2, seed, 32);  // W_v omitted: identity, d_v = d_z = 2
  s.kv_heads.push_back(kv);
  s.W_o = random_matrix(4, 3, r, 40);
  s.b_o = random_vector(3, seed, 41);
  s.context_positions = {4, 1, 2};
  s.rope = Rope{Rope::Style::interleaved, 100.0, 2, {}};
  s.positional_encoding = PositionalEncoding::sinusoidal;
  s.mask.window = 3;
  return s;
}

struct Case {
  Scenario scenario;
  std::vector<std::string> targets;  ///< rows layout; the columns variant swaps the indices
};

std::string swapped(const std::string& of) {
  CellRef r = parse_cell_ref(of);
  std::swap(r.index[0], r.index[1]);
  return r.text();
}

/// gqa_rope_alibi with head 1 switched off: its output is the constant 0.
Scenario head_off(unsigned seed) {
  Scenario s = gqa_rope_alibi(seed);
  s.heads_off = {1};
  return s;
}

/// gqa_rope_alibi with a softcap that bends its scores (Gemma 2) and Llama 3's RoPE scaling.
Scenario softcap_scaled_rope(unsigned seed) {
  Scenario s = gqa_rope_alibi(seed);
  s.softcap = 0.5;
  s.positions = {0, 30, 60, 90, 120};
  s.rope->scaling.kind = attnlab::RopeScaling::Kind::llama3;
  s.rope->scaling.original_positions = 64;
  s.rope->scaling.factor = 4;
  return s;
}

std::vector<Case> cases() {
  return {
      {softcap_scaled_rope(7), {"output[4][1]", "heads[3].weights[4][3]", "heads[2].scores[2][4]"}},
      {full_self(1),
       {"output[2][4]", "concat[3][1]", "heads[1].weights[2][1]", "heads[0].scores[3][0]",
        "heads[1].output[1][2]"}},
      {per_head_cross(2),
       {"output[1][4]", "concat[0][2]", "heads[0].weights[1][2]", "heads[1].weights[0][4]"}},
      {gqa_rope_alibi(3),
       {"output[4][1]", "concat[2][7]", "heads[3].weights[4][3]", "heads[2].scores[2][4]"}},
      {kv_heads_encoded(4), {"output[3][2]", "concat[1][3]", "heads[1].weights[2][1]"}},
      {head_off(6), {"output[4][1]", "concat[2][0]", "heads[1].weights[4][3]", "heads[0].output[3][1]"}},
  };
}

TEST(Sensitivity, MatchesFiniteDifferencesInTheRowsLayout) {
  for (const Case& c : cases())
    for (const std::string& of : c.targets) expect_matches_finite_differences(c.scenario, of);
}

TEST(Sensitivity, MatchesFiniteDifferencesInTheColumnsLayout) {
  for (const Case& c : cases()) {
    Scenario s = with_layout(c.scenario, Layout::columns);
    s.title += " columns";
    for (const std::string& of : c.targets) expect_matches_finite_differences(s, swapped(of));
  }
}

// A switched-off head's output is the constant 0: nothing moves it (its weights still have gradients).
TEST(Sensitivity, ASwitchedOffHeadsOutputHasNoGradient) {
  const Scenario s = head_off(7);
  for (const char* of : {"heads[1].output[3][1]", "concat[2][3]"}) {
    const Sensitivity g = sensitivity(s, parse_cell_ref(of));
    EXPECT_EQ(g.value, 0.0) << of;
    for (const Param& p : params(s, g)) EXPECT_EQ(p.grad, 0.0) << of << " " << p.name;
  }
}

TEST(Sensitivity, ColumnsLayoutGradientsAreTheRowsLayoutsTransposed) {
  const Scenario rows = full_self(5), columns = with_layout(rows, Layout::columns);
  const Sensitivity a = sensitivity(rows, parse_cell_ref("output[1][2]"));
  const Sensitivity b = sensitivity(columns, parse_cell_ref("output[2][1]"));
  EXPECT_EQ(a.value, b.value);
  EXPECT_LE((a.X - b.X.transpose()).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LE((*a.full.W_q - b.full.W_q->transpose()).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LE((*a.W_o - b.W_o->transpose()).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LE((*a.full.b_v - *b.full.b_v).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(Sensitivity, AQueryThatMayAttendNothingHasOnlyTheOutputBiasAsGradient) {
  Scenario s = full_self(6);
  s.mask = MaskSpec{};
  Matrix cells = Matrix::Ones(4, 4);
  cells.row(2).setZero();  // query 2 may attend nothing: its head outputs are 0, its output b_o
  s.mask.cells = cells;
  const Sensitivity g = sensitivity(s, parse_cell_ref("output[2][3]"));
  EXPECT_EQ(g.value, (*s.b_o)(3));
  EXPECT_EQ(g.X.cwiseAbs().maxCoeff(), 0.0);
  for (const auto* m : {&g.full.W_q, &g.full.W_k, &g.full.W_v, &g.W_o})
    EXPECT_EQ((*m)->cwiseAbs().maxCoeff(), 0.0);
  for (const auto* b : {&g.full.b_q, &g.full.b_k, &g.full.b_v})
    EXPECT_EQ((*b)->cwiseAbs().maxCoeff(), 0.0);
  Vector unit = Vector::Zero(5);
  unit(3) = 1;
  EXPECT_EQ(*g.b_o, unit);
  // Its weights too: a row of zeros, and a zero gradient.
  const Sensitivity w = sensitivity(s, parse_cell_ref("heads[0].weights[2][1]"));
  EXPECT_EQ(w.value, 0.0);
  EXPECT_EQ(w.X.cwiseAbs().maxCoeff(), 0.0);
}

TEST(Sensitivity, AMaskedWeightHasZeroValueAndGradient) {
  const Scenario s = full_self(7);  // causal: query 0 may not attend key 3
  const Sensitivity g = sensitivity(s, parse_cell_ref("heads[0].weights[0][3]"));
  EXPECT_EQ(g.value, 0.0);
  EXPECT_EQ(g.X.cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(g.full.W_q->cwiseAbs().maxCoeff(), 0.0);
}

TEST(Sensitivity, OmittedMatricesHaveNoGradient) {
  Scenario s = full_self(8);
  s.full.W_q.reset();  // identity: d_k = d_x = 3 would not split in 2 heads
  s.num_heads = 1;
  s.full.W_k = random_matrix(3, 3, spec(8), 30);
  s.full.b_q = random_vector(3, 8, 31);
  s.full.b_k.reset();
  s.W_o = random_matrix(6, 2, spec(8), 32);
  s.b_o.reset();
  const Sensitivity g = sensitivity(s, parse_cell_ref("output[3][1]"));
  EXPECT_FALSE(g.full.W_q.has_value());
  EXPECT_FALSE(g.full.b_k.has_value());
  EXPECT_FALSE(g.b_o.has_value());
  EXPECT_FALSE(g.Z.has_value());
  expect_matches_finite_differences(s, "output[3][1]");
}

TEST(Sensitivity, RefusesReferencesThatNameNoCell) {
  const Model m = resolve(full_self(9));  // output 4x5, concat 4x6, weights 4x4, 2 heads
  const auto message = [&](const std::string& of, Layout layout = Layout::rows) {
    try {
      trace_cell(m, layout, parse_cell_ref(of));
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(message("output[9][0]"), "output[9][0]: no such cell in a 4x5 matrix");
  EXPECT_EQ(message("output[0][4]", Layout::columns), "output[0][4]: no such cell in a 5x4 matrix");
  EXPECT_EQ(message("output[4][3]", Layout::columns), "(accepted)");  // stored d_out by n_x
  EXPECT_EQ(message("heads[1].weights[0][4]"),
            "heads[1].weights[0][4]: no such cell in a 4x4 matrix");
  EXPECT_EQ(message("heads[2].weights[0][0]"),
            "heads[2].weights[0][0]: no such head (the scenario has 2, numbered from 0)");
  EXPECT_NE(message("X[0][0]").find("X[0][0]: expected output[i][j]"), std::string::npos);
  EXPECT_NE(message("output[0]").find("output[0]: expected output[row][col]"), std::string::npos);
  EXPECT_NE(message("kv_heads[0].W_k[0][0]").find("expected output[i][j]"), std::string::npos);
  EXPECT_EQ(message("concat[-1][0]"), "concat[-1][0]: no such cell in a 4x6 matrix");
}

// ---- PyTorch autograd references (scripts/gen_fixtures_sensitivity.py)
// ------------------------------

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<fs::path> sensitivity_fixtures() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(ATTNLAB_SOURCE_DIR) / "tests" / "fixtures"))
    if (e.path().filename().string().rfind("sensitivity_", 0) == 0) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

/// The worst |a - b| / max(1, |b|) over two JSON documents of the same shape; a difference in
/// shape or keys is a failure naming the path.
struct Comparison {
  double worst = 0;
  std::string worst_at, mismatch;
};

void compare(const json& actual, const json& expected, const std::string& path, Comparison& c) {
  if (!c.mismatch.empty()) return;
  if (expected.is_number()) {
    if (!actual.is_number()) {
      c.mismatch = path + ": expected a number";
      return;
    }
    const double a = actual.get<double>(), b = expected.get<double>();
    const double err = std::abs(a - b) / std::max(1.0, std::abs(b));
    if (err > c.worst || !(err == err)) c.worst = err, c.worst_at = path;
  } else if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size()) {
      c.mismatch = path + ": expected an array of " + std::to_string(expected.size()) + ", got " +
                   actual.dump().substr(0, 40);
      return;
    }
    for (std::size_t i = 0; i < expected.size(); ++i)
      compare(actual[i], expected[i], path + "[" + std::to_string(i) + "]", c);
  } else if (expected.is_object()) {
    for (const auto& [key, value] : expected.items()) {
      if (!actual.contains(key)) {
        c.mismatch = path + "." + key + ": missing";
        return;
      }
      compare(actual[key], value, path + "." + key, c);
    }
    for (const auto& [key, value] : actual.items())
      if (!expected.contains(key)) c.mismatch = path + "." + key + ": not in the reference";
  }
}

/// Checks {"of", "value", "grad"} against a fixture, to 1e-7 relative to max(1, |reference|).
void expect_matches_fixture(const json& actual, const json& fixture, const std::string& what) {
  EXPECT_EQ(actual["of"], fixture["of"]) << what;
  Comparison c;
  compare(actual["value"], fixture["value"], "value", c);
  compare(actual["grad"], fixture["grad"], "grad", c);
  EXPECT_TRUE(c.mismatch.empty()) << what << ": " << c.mismatch;
  EXPECT_LE(c.worst, 1e-7) << what << ": worst relative error " << c.worst << " at " << c.worst_at;
  std::printf("  %s: worst relative error against torch %.2e (%s)\n", what.c_str(), c.worst,
              c.worst_at.c_str());
}

json read_json(const fs::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

TEST(SensitivityFixtures, CoreMatchesTorchAutograd) {
  const std::vector<fs::path> files = sensitivity_fixtures();
  ASSERT_GE(files.size(), 8u) << "run /usr/bin/python3 scripts/gen_fixtures_sensitivity.py";
  for (const fs::path& file : files) {
    const json fixture = read_json(file);
    const Scenario s = scenario_from_json(fixture["scenario"]);
    const json actual =
        sensitivity_to_json(sensitivity(s, parse_cell_ref(fixture["of"].get<std::string>())));
    expect_matches_fixture(actual, fixture, file.filename().string());
  }
}

TEST(SensitivityFixtures, CliMatchesTorchAutograd) {
  const attnlab::testing::ScratchDir scratch("attnlab_sensitivity_");
  const fs::path dir = scratch.fresh("scenarios");
  for (const fs::path& file : sensitivity_fixtures()) {
    const json fixture = read_json(file);
    const fs::path scenario = dir / file.filename();
    std::ofstream(scenario) << fixture["scenario"].dump();
    const auto run =
        attnlab::testing::run_shell(std::string(ATTNLAB_CLI) + " sensitivity " + scenario.string() +
                                    " --of '" + fixture["of"].get<std::string>() + "'");
    ASSERT_EQ(run.status, 0) << file;
    expect_matches_fixture(json::parse(run.out), fixture, "cli " + file.filename().string());
  }
}

}  // namespace

}  // namespace test_sensitivity
