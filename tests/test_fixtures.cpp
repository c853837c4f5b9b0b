// The C++ core against independent references (scripts/gen_fixtures.py: NumPy written from the
// math, and torch.nn.MultiheadAttention in float64), plus invariants on seeded random scenarios.
//
// Fixtures: tests/fixtures/*.json, each {"scenario", "expected", "source", "description"}; every
// expected matrix is compared to a relative 1e-7: |a - b| <= 1e-7 * max(1, |b|); null = -inf.
// Each expected head's "stats" (scripts/fixture_stats.py) to 1e-9 the same way, integers exactly.
// Regenerate with: /usr/bin/python3 scripts/gen_fixtures.py
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/attention.h"
#include "attnlab/head_stats.h"
#include "attnlab/model.h"
#include "attnlab/scenario.h"
#include "attnlab/scenario_io.h"
#include "attnlab/trace.h"
#include "attnlab/trace_io.h"

namespace test_fixtures {

namespace {

using attnlab::Layout;
using attnlab::Matrix;
using attnlab::Scenario;
using attnlab::Trace;
using attnlab::Vector;
using nlohmann::json;
namespace fs = std::filesystem;

constexpr double kFixtureTolerance = 1e-7;  // acceptance: relative 1e-7
constexpr double kStatsTolerance = 1e-9;    // the per-head statistics, relative as above
constexpr std::size_t kMinFixtures = 60;    // gen_fixtures.py writes 72
constexpr std::size_t kMinTorchFixtures = 8;
constexpr double kInf = std::numeric_limits<double>::infinity();

const char* const kTraceKeys[] = {"Q", "K", "V", "scores", "scaled", "masked", "weights", "output"};


fs::path fixture_dir() { return fs::path(ATTNLAB_SOURCE_DIR) / "tests" / "fixtures"; }

std::vector<std::string> fixture_files() {
  std::vector<std::string> names;
  std::error_code ec;
  if (!fs::is_directory(fixture_dir(), ec)) return names;
  for (const auto& entry : fs::directory_iterator(fixture_dir(), ec)) {
    // sensitivity_*.json hold gradients, not traces: test_sensitivity.cpp reads them.
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && entry.path().extension() == ".json" && name.rfind("sensitivity_", 0) != 0)
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

json read_fixture(const std::string& name) {
  std::ifstream in(fixture_dir() / name);
  if (!in) throw std::runtime_error("cannot open fixture " + name);
  return json::parse(in);
}

/// Compares one matrix with its expected JSON (array of rows, null = -inf). Updates `max_err` with
/// the largest |a - b| / max(1, |b|) seen; returns a failure describing the first mismatches.
::testing::AssertionResult matches(const std::string& what, const json& expected,
                                   const Matrix& actual, double& max_err) {
  if (!expected.is_array())
    return ::testing::AssertionFailure() << what << ": expected is not an array";
  const auto rows = static_cast<Eigen::Index>(expected.size());
  const auto cols = rows > 0 ? static_cast<Eigen::Index>(expected[0].size()) : Eigen::Index(0);
  if (actual.rows() != rows || actual.cols() != cols)
    return ::testing::AssertionFailure() << what << ": shape " << actual.rows() << "x"
                                         << actual.cols() << ", expected " << rows << "x" << cols;
  std::ostringstream bad;
  int nbad = 0;
  for (Eigen::Index i = 0; i < rows; ++i) {
    if (static_cast<Eigen::Index>(expected[i].size()) != cols)
      return ::testing::AssertionFailure() << what << ": ragged expected row " << i;
    for (Eigen::Index j = 0; j < cols; ++j) {
      const json& e = expected[i][j];
      const double a = actual(i, j);
      bool ok;
      if (e.is_null()) {
        ok = std::isinf(a) && a < 0;
        if (!ok) max_err = kInf;
      } else {
        const double b = e.get<double>();
        const double err = std::abs(a - b) / std::max(1.0, std::abs(b));
        ok = std::isfinite(a) && err <= kFixtureTolerance;
        max_err = std::max(max_err, std::isfinite(a) ? err : kInf);
      }
      if (!ok && nbad++ < 5) {
        bad << "\n    " << what << "(" << i << "," << j << "): got " << a << ", expected "
            << (e.is_null() ? std::string("-inf (null)") : e.dump());
      }
    }
  }
  if (nbad > 0)
    return ::testing::AssertionFailure() << what << ": " << nbad << " entries differ" << bad.str();
  return ::testing::AssertionSuccess();
}

/// Does some query attend nothing? Rows layout: a query is a row of weights; columns: a column.
bool has_fully_masked_query(const json& masked, Layout layout) {
  const std::size_t rows = masked.size(), cols = rows ? masked[0].size() : 0;
  const std::size_t queries = layout == Layout::rows ? rows : cols;
  const std::size_t keys = layout == Layout::rows ? cols : rows;
  for (std::size_t q = 0; q < queries; ++q) {
    bool all_null = keys > 0;
    for (std::size_t k = 0; k < keys && all_null; ++k)
      all_null = (layout == Layout::rows ? masked[q][k] : masked[k][q]).is_null();
    if (all_null) return true;
  }
  return false;
}

struct FixtureResult {
  double max_err = 0;
  double max_stats_err = 0;
  std::vector<std::string> failures;
};

/// Compares head h's statistics with the reference's "stats": real values to kStatsTolerance,
/// argmax and keys_for_90 exactly.
void check_stats(const std::string& what, const json& expected, const attnlab::HeadStats& s, FixtureResult& r) {
  const std::pair<const char*, const std::vector<double>*> reals[] = {
      {"entropy", &s.entropy}, {"max_weight", &s.max_weight}, {"first_key", &s.first_key},
      {"mean_distance", &s.mean_distance}};
  const std::pair<const char*, const std::vector<int>*> ints[] = {{"argmax", &s.argmax},
                                                                  {"keys_for_90", &s.keys_for_90}};
  if (expected.size() != std::size(reals) + std::size(ints))
    r.failures.push_back(what + ": " + std::to_string(expected.size()) + " statistics in the reference, expected 6");
  const auto sized = [&](const char* name, std::size_t n) {
    if (!expected.contains(name) || expected.at(name).size() != n) {
      r.failures.push_back(what + "." + name + ": missing, or not one entry per query (" + std::to_string(n) + ")");
      return false;
    }
    return true;
  };
  for (const auto& [name, got] : reals) {
    if (!sized(name, got->size())) continue;
    for (std::size_t i = 0; i < got->size(); ++i) {
      const double a = (*got)[i], b = expected.at(name)[i].get<double>();
      const double err = std::abs(a - b) / std::max(1.0, std::abs(b));
      r.max_stats_err = std::max(r.max_stats_err, std::isfinite(a) ? err : kInf);
      if (!(err <= kStatsTolerance))
        r.failures.push_back(what + "." + name + "[" + std::to_string(i) + "]: got " + std::to_string(a) +
                             ", expected " + expected.at(name)[i].dump());
    }
  }
  for (const auto& [name, got] : ints) {
    if (!sized(name, got->size())) continue;
    for (std::size_t i = 0; i < got->size(); ++i)
      if ((*got)[i] != expected.at(name)[i].get<int>())
        r.failures.push_back(what + "." + name + "[" + std::to_string(i) + "]: got " + std::to_string((*got)[i]) +
                             ", expected " + expected.at(name)[i].dump());
  }
}

/// Computes one fixture and compares every expected matrix.
FixtureResult check_fixture(const std::string& name) {
  FixtureResult r;
  const json doc = read_fixture(name);
  const Scenario scenario = attnlab::scenario_from_json(doc.at("scenario"));
  const Trace trace = attnlab::compute(scenario);
  const json& expected = doc.at("expected");
  if (trace.layout != scenario.layout) r.failures.push_back("trace layout differs from scenario");
  const json& heads = expected.at("heads");
  if (trace.heads.size() != heads.size()) {
    r.failures.push_back("head count " + std::to_string(trace.heads.size()) + ", expected " +
                         std::to_string(heads.size()));
    return r;
  }
  auto check = [&](const std::string& what, const json& e, const Matrix& a) {
    auto res = matches(what, e, a, r.max_err);
    if (!res) r.failures.push_back(res.message());
  };
  const std::vector<std::string> stages = attnlab::head_stage_names(trace);
  for (std::size_t h = 0; h < heads.size(); ++h) {
    const std::string head = "heads[" + std::to_string(h) + "].";
    // The reference and the trace have the same stages (Q_rot and K_rot with RoPE, bias with
    // ALiBi), every one compared; kv_head names the key/value head the query head reads.
    for (const auto& item : heads[h].items())
      if (item.key() != "kv_head" && item.key() != "stats" && std::find(stages.begin(), stages.end(), item.key()) == stages.end())
        r.failures.push_back(head + item.key() + ": in the reference, not in the trace");
    for (const std::string& key : stages) {
      if (!heads[h].contains(key)) {
        r.failures.push_back(head + key + ": in the trace, not in the reference");
        continue;
      }
      check(head + key, heads[h].at(key), attnlab::head_stage(trace, h, key));
    }
    if (heads[h].contains("stats")) check_stats(head + "stats", heads[h].at("stats"), attnlab::head_stats(trace, h), r);
    else r.failures.push_back(head + "stats: not in the reference (run scripts/fixture_stats.py)");
    const int kv_head = heads[h].value("kv_head", int(h));
    if (trace.heads[h].kv_head != kv_head)
      r.failures.push_back(head + "kv_head: " + std::to_string(trace.heads[h].kv_head) + ", expected " +
                           std::to_string(kv_head));
  }
  for (const char* key : {"X_pos", "Z_pos"}) {
    const Matrix& m = std::string(key) == "X_pos" ? trace.X_pos : trace.Z_pos;
    if (expected.contains(key)) check(key, expected.at(key), m);
    else if (m.size()) r.failures.push_back(std::string(key) + ": in the trace, not in the reference");
  }
  check("concat", expected.at("concat"), trace.concat);
  check("output", expected.at("output"), trace.output);
  // FORMAT.md: a query that may attend no key gets a warning naming it.
  if (has_fully_masked_query(heads.at(0).at("masked"), scenario.layout) && trace.warnings.empty())
    r.failures.push_back("a query attends no key but the trace has no warning");
  return r;
}

// ------------------------------------------------------------------------------------------------
// One test per fixture file.

class FixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureTest, MatchesReference) {
  const std::string name = GetParam();
  FixtureResult r;
  try {
    r = check_fixture(name);
  } catch (const std::exception& e) {
    FAIL() << name << ": threw " << e.what();
  }
  RecordProperty("max_rel_error", std::to_string(r.max_err));
  std::ostringstream msg;
  for (const auto& f : r.failures) msg << "\n  " << f;
  EXPECT_TRUE(r.failures.empty()) << name << ": max relative error " << r.max_err
                                  << " (tolerance " << kFixtureTolerance << "), statistics " << r.max_stats_err
                                  << " (tolerance " << kStatsTolerance << ")" << msg.str();
}

std::string fixture_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = fs::path(info.param).stem().string();
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureTest, ::testing::ValuesIn(fixture_files()),
                         fixture_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FixtureTest);  // FixtureSuite.Count fails instead

TEST(FixtureSuite, CountAndSources) {
  const auto files = fixture_files();
  ASSERT_GE(files.size(), kMinFixtures)
      << "tests/fixtures/ holds too few fixtures; run /usr/bin/python3 scripts/gen_fixtures.py";
  std::size_t torch = 0, rows = 0, columns = 0;
  for (const auto& f : files) {
    const json doc = read_fixture(f);
    ASSERT_TRUE(doc.contains("scenario") && doc.contains("expected")) << f;
    const std::string source = doc.at("source").get<std::string>();
    EXPECT_TRUE(source == "numpy" || source == "torch") << f << ": source " << source;
    if (source == "torch") ++torch;
    const json& sc = doc.at("scenario");
    (sc.value("layout", std::string("rows")) == "columns" ? columns : rows) += 1;
  }
  EXPECT_GE(torch, kMinTorchFixtures);
  EXPECT_GE(rows, kMinFixtures / 2);
  EXPECT_GE(columns, kMinFixtures / 2);
}

/// One line for the log: the largest error over all fixtures, per source.
TEST(FixtureSuite, MaxErrorSummary) {
  double max_numpy = 0, max_torch = 0, max_stats = 0;
  std::string worst;
  double worst_err = -1;
  for (const auto& f : fixture_files()) {
    FixtureResult r;
    try {
      r = check_fixture(f);
    } catch (const std::exception&) {
      continue;  // reported by FixtureTest
    }
    const bool torch = read_fixture(f).at("source") == "torch";
    (torch ? max_torch : max_numpy) = std::max(torch ? max_torch : max_numpy, r.max_err);
    max_stats = std::max(max_stats, r.max_stats_err);
    if (r.max_err > worst_err) worst_err = r.max_err, worst = f;
  }
  std::cout << "[ fixtures ] max relative error: numpy " << max_numpy << ", torch " << max_torch
            << " (worst: " << worst << "); statistics " << max_stats << "\n";
  EXPECT_LE(max_stats, kStatsTolerance);
  EXPECT_LE(max_numpy, kFixtureTolerance);
  EXPECT_LE(max_torch, kFixtureTolerance);
}

// ------------------------------------------------------------------------------------------------
// Invariants on seeded random scenarios.

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : g_(seed) {}
  double uniform() { return static_cast<double>(g_() >> 11) * 0x1.0p-53; }  // [0, 1)
  double normal() {  // Box-Muller; only needs to be deterministic, not fast
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  int below(int n) { return static_cast<int>(g_() % static_cast<std::uint64_t>(n)); }
  Matrix matrix(int r, int c, double s = 1.0) {
    Matrix m(r, c);
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < c; ++j) m(i, j) = s * normal();
    return m;
  }
  Vector vector(int n, double s = 1.0) {
    Vector v(n);
    for (int i = 0; i < n; ++i) v(i) = s * normal();
    return v;
  }
  std::mt19937_64& engine() { return g_; }

 private:
  std::mt19937_64 g_;
};

enum class MaskKind { none, causal, padding, cells, combined };

struct RandomOptions {
  bool cross = false;
  int H = 2, d_k = 3, d_v = 2;
  bool W_o = true;
  MaskKind mask = MaskKind::none;
  bool allow_fully_masked = false;  ///< cells may hold an all-zero query row
};

/// A rows-layout scenario with full matrices split into H heads.
Scenario random_scenario(std::uint64_t seed, const RandomOptions& o) {
  Rng rng(seed);
  Scenario s;
  s.title = "random " + std::to_string(seed);
  s.layout = Layout::rows;
  const int n_x = 2 + rng.below(5), d_x = 2 + rng.below(5);
  const int n_z = o.cross ? 1 + rng.below(6) : n_x;
  const int d_z = o.cross ? 1 + rng.below(6) : d_x;
  s.X = rng.matrix(n_x, d_x);
  if (o.cross) s.Z = rng.matrix(n_z, d_z);
  s.num_heads = o.H;
  s.full.W_q = rng.matrix(d_x, o.H * o.d_k, 0.7);
  s.full.W_k = rng.matrix(d_z, o.H * o.d_k, 0.7);
  s.full.W_v = rng.matrix(d_z, o.H * o.d_v, 0.7);
  s.full.b_q = rng.vector(o.H * o.d_k, 0.3);
  s.full.b_k = rng.vector(o.H * o.d_k, 0.3);
  s.full.b_v = rng.vector(o.H * o.d_v, 0.3);
  if (o.W_o) {
    const int d_out = 1 + rng.below(5);
    s.W_o = rng.matrix(o.H * o.d_v, d_out, 0.5);
    s.b_o = rng.vector(d_out, 0.3);
  }
  auto cells = [&] {
    Matrix c(n_x, n_z);
    for (int i = 0; i < n_x; ++i) {
      for (int j = 0; j < n_z; ++j) c(i, j) = rng.uniform() < 0.6 ? 1.0 : 0.0;
      if (!o.allow_fully_masked) c(i, rng.below(n_z)) = 1.0;
    }
    return c;
  };
  switch (o.mask) {
    case MaskKind::none: break;
    case MaskKind::causal: s.mask.causal = true; break;
    case MaskKind::padding: s.mask.padding = {rng.below(n_z)}; break;
    case MaskKind::cells: s.mask.cells = cells(); break;
    case MaskKind::combined:
      s.mask.causal = true;
      s.mask.padding = {rng.below(n_z)};
      s.mask.cells = cells();
      break;
  }
  return s;
}

/// A spread of random scenarios: H = 1, 2, 4; self and cross; every mask kind; with/without W_o.
std::vector<Scenario> scenario_zoo(bool allow_fully_masked) {
  std::vector<Scenario> zoo;
  std::uint64_t seed = 20240601;
  const MaskKind masks[] = {MaskKind::none, MaskKind::causal, MaskKind::padding, MaskKind::cells,
                            MaskKind::combined};
  for (int H : {1, 2, 4}) {
    for (bool cross : {false, true}) {
      for (MaskKind m : masks) {
        RandomOptions o;
        o.H = H;
        o.cross = cross;
        o.mask = m;
        o.d_k = 1 + static_cast<int>(seed % 3);
        o.d_v = 1 + static_cast<int>((seed / 3) % 4);
        o.W_o = (seed % 2) == 0;
        o.allow_fully_masked = allow_fully_masked;
        zoo.push_back(random_scenario(seed++, o));
      }
    }
  }
  return zoo;
}

::testing::AssertionResult near(const std::string& what, const Matrix& a, const Matrix& b,
                                double tol = 1e-12) {
  if (a.rows() != b.rows() || a.cols() != b.cols())
    return ::testing::AssertionFailure() << what << ": shape " << a.rows() << "x" << a.cols()
                                         << " vs " << b.rows() << "x" << b.cols();
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) {
      const double x = a(i, j), y = b(i, j);
      if (std::isinf(x) || std::isinf(y)) {
        if (x != y)
          return ::testing::AssertionFailure() << what << "(" << i << "," << j << "): " << x
                                               << " vs " << y;
        continue;
      }
      if (!(std::abs(x - y) <= tol * std::max(1.0, std::abs(y))))
        return ::testing::AssertionFailure() << what << "(" << i << "," << j << "): " << x
                                             << " vs " << y;
    }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult near(const std::string& what, const Vector& a, const Vector& b,
                                double tol = 1e-12) {
  return near(what, Matrix(a.transpose()), Matrix(b.transpose()), tol);
}

/// Every matrix of `a` equals the transpose of the one in `b` (to `tol`).
void expect_transposed_traces(const Trace& a, const Trace& b, const std::string& ctx) {
  ASSERT_EQ(a.heads.size(), b.heads.size()) << ctx;
  for (std::size_t h = 0; h < a.heads.size(); ++h)
    for (const char* key : kTraceKeys) {
      const std::string what = ctx + " heads[" + std::to_string(h) + "]." + key;
      EXPECT_TRUE(near(what, attnlab::head_stage(a, h, key),
                       Matrix(attnlab::head_stage(b, h, key).transpose())));
    }
  EXPECT_TRUE(near(ctx + " concat", a.concat, Matrix(b.concat.transpose())));
  EXPECT_TRUE(near(ctx + " output", a.output, Matrix(b.output.transpose())));
}

void expect_equal_traces(const Trace& a, const Trace& b, const std::string& ctx) {
  ASSERT_EQ(a.heads.size(), b.heads.size()) << ctx;
  for (std::size_t h = 0; h < a.heads.size(); ++h)
    for (const char* key : kTraceKeys) {
      const std::string what = ctx + " heads[" + std::to_string(h) + "]." + key;
      EXPECT_TRUE(near(what, attnlab::head_stage(a, h, key), attnlab::head_stage(b, h, key)));
    }
  EXPECT_TRUE(near(ctx + " concat", a.concat, b.concat));
  EXPECT_TRUE(near(ctx + " output", a.output, b.output));
}

TEST(Invariant, WeightsSumToOnePerQuery) {
  int fully_masked_seen = 0;
  for (const Scenario& rows : scenario_zoo(true)) {
    for (Layout layout : {Layout::rows, Layout::columns}) {
      const Scenario s = attnlab::with_layout(rows, layout);
      const Trace t = attnlab::compute(s);
      ASSERT_EQ(t.layout, layout);
      for (std::size_t h = 0; h < t.heads.size(); ++h) {
        // Rows layout: one query per row; columns layout: one query per column.
        const Matrix A = layout == Layout::rows ? t.heads[h].weights
                                                : Matrix(t.heads[h].weights.transpose());
        const Matrix M = layout == Layout::rows ? t.masked(h)
                                                : Matrix(t.masked(h).transpose());
        for (Eigen::Index i = 0; i < A.rows(); ++i) {
          const bool any_allowed = (M.row(i).array() > -kInf).any();
          if (any_allowed) {
            EXPECT_NEAR(A.row(i).sum(), 1.0, 1e-12) << s.title << " " << layout_name(layout)
                                                    << " head " << h << " query " << i;
          } else {
            ++fully_masked_seen;
            EXPECT_TRUE((A.row(i).array() == 0.0).all()) << s.title << " query " << i;
            const Matrix Y = layout == Layout::rows ? t.heads[h].output
                                                    : Matrix(t.heads[h].output.transpose());
            EXPECT_TRUE((Y.row(i).array() == 0.0).all()) << s.title << " query " << i;
          }
          EXPECT_TRUE((A.row(i).array() >= 0.0).all()) << s.title;
        }
      }
    }
  }
  EXPECT_GT(fully_masked_seen, 0) << "the zoo should include a fully-masked query";
}

TEST(Invariant, MaskedWeightsAreExactlyZero) {
  for (const Scenario& rows : scenario_zoo(true)) {
    const attnlab::Model model = attnlab::resolve(rows);
    for (Layout layout : {Layout::rows, Layout::columns}) {
      const Trace t = attnlab::compute(attnlab::with_layout(rows, layout));
      bool any_query_empty = false;
      for (Eigen::Index i = 0; i < model.allowed.rows(); ++i)
        any_query_empty |= !model.allowed.row(i).any();
      if (any_query_empty) {
        EXPECT_FALSE(t.warnings.empty()) << rows.title;
      }
      for (std::size_t h = 0; h < t.heads.size(); ++h) {
        const Matrix A = layout == Layout::rows ? t.heads[h].weights
                                                : Matrix(t.heads[h].weights.transpose());
        const Matrix M = layout == Layout::rows ? t.masked(h)
                                                : Matrix(t.masked(h).transpose());
        const Matrix C = layout == Layout::rows ? t.scaled(h)
                                                : Matrix(t.scaled(h).transpose());
        ASSERT_EQ(A.rows(), model.allowed.rows());
        ASSERT_EQ(A.cols(), model.allowed.cols());
        for (Eigen::Index i = 0; i < A.rows(); ++i)
          for (Eigen::Index j = 0; j < A.cols(); ++j) {
            if (model.allowed(i, j)) {
              EXPECT_EQ(M(i, j), C(i, j)) << rows.title << " (" << i << "," << j << ")";
              EXPECT_GT(A(i, j), 0.0) << rows.title << " (" << i << "," << j << ")";
            } else {
              EXPECT_EQ(M(i, j), -kInf) << rows.title << " (" << i << "," << j << ")";
              EXPECT_EQ(A(i, j), 0.0) << rows.title << " (" << i << "," << j << ")";
            }
          }
      }
    }
  }
}

TEST(Invariant, ColumnsLayoutGivesTransposedTrace) {
  for (const Scenario& rows : scenario_zoo(true)) {
    const Scenario cols = attnlab::with_layout(rows, Layout::columns);
    ASSERT_EQ(cols.layout, Layout::columns);
    EXPECT_TRUE(near("X", cols.X, Matrix(rows.X.transpose())));
    const Trace tr = attnlab::compute(rows);
    const Trace tc = attnlab::compute(cols);
    EXPECT_EQ(tr.layout, Layout::rows);
    EXPECT_EQ(tc.layout, Layout::columns);
    expect_transposed_traces(tc, tr, rows.title + " columns vs rows");
    // And back again.
    const Trace back = attnlab::compute(attnlab::with_layout(cols, Layout::rows));
    expect_equal_traces(back, tr, rows.title + " round trip");
  }
}

TEST(Invariant, SplitFullMatricesEqualPerHeadBlocks) {
  for (const Scenario& full : scenario_zoo(false)) {
    const int H = full.num_heads;
    // Rows layout: head h takes column block h of each full matrix (and slice h of each bias).
    Scenario per = full;
    per.full = attnlab::Projections{};
    per.heads.assign(H, attnlab::Projections{});
    const int wk = static_cast<int>(full.full.W_q->cols()) / H;
    const int wv = static_cast<int>(full.full.W_v->cols()) / H;
    for (int h = 0; h < H; ++h) {
      per.heads[h].W_q = Matrix(full.full.W_q->middleCols(h * wk, wk));
      per.heads[h].W_k = Matrix(full.full.W_k->middleCols(h * wk, wk));
      per.heads[h].W_v = Matrix(full.full.W_v->middleCols(h * wv, wv));
      per.heads[h].b_q = Vector(full.full.b_q->segment(h * wk, wk));
      per.heads[h].b_k = Vector(full.full.b_k->segment(h * wk, wk));
      per.heads[h].b_v = Vector(full.full.b_v->segment(h * wv, wv));
    }
    ASSERT_TRUE(per.per_head());
    expect_equal_traces(attnlab::compute(per), attnlab::compute(full), full.title + " rows");

    // Columns layout: the full matrices split by rows, head h taking row block h.
    const Scenario full_c = attnlab::with_layout(full, Layout::columns);
    Scenario per_c = full_c;
    per_c.full = attnlab::Projections{};
    per_c.heads.assign(H, attnlab::Projections{});
    for (int h = 0; h < H; ++h) {
      per_c.heads[h].W_q = Matrix(full_c.full.W_q->middleRows(h * wk, wk));
      per_c.heads[h].W_k = Matrix(full_c.full.W_k->middleRows(h * wk, wk));
      per_c.heads[h].W_v = Matrix(full_c.full.W_v->middleRows(h * wv, wv));
      per_c.heads[h].b_q = Vector(full_c.full.b_q->segment(h * wk, wk));
      per_c.heads[h].b_k = Vector(full_c.full.b_k->segment(h * wk, wk));
      per_c.heads[h].b_v = Vector(full_c.full.b_v->segment(h * wv, wv));
    }
    const Trace tc = attnlab::compute(per_c);
    expect_equal_traces(tc, attnlab::compute(full_c), full.title + " columns");
    expect_transposed_traces(tc, attnlab::compute(full), full.title + " columns vs rows");
  }
}

std::vector<int> random_permutation(int n, std::mt19937_64& g) {
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), g);
  return p;
}

Matrix permute_rows(const Matrix& m, const std::vector<int>& p) {  // row i of result = m.row(p[i])
  Matrix r(m.rows(), m.cols());
  for (int i = 0; i < static_cast<int>(p.size()); ++i) r.row(i) = m.row(p[i]);
  return r;
}

TEST(Invariant, PermutingTokensPermutesOutputWhenUnmasked) {
  Rng rng(7);
  for (const Scenario& s : scenario_zoo(false)) {
    if (!s.mask.empty()) continue;
    const Trace t = attnlab::compute(s);
    const auto px = random_permutation(s.n_x(), rng.engine());
    if (!s.cross_attention()) {
      // Self-attention: permuting the tokens permutes every per-token result the same way.
      Scenario sp = s;
      sp.X = permute_rows(s.X, px);
      const Trace tp = attnlab::compute(sp);
      EXPECT_TRUE(near(s.title + " output", tp.output, permute_rows(t.output, px)));
      EXPECT_TRUE(near(s.title + " concat", tp.concat, permute_rows(t.concat, px)));
      for (std::size_t h = 0; h < t.heads.size(); ++h) {
        const Matrix A = permute_rows(t.heads[h].weights, px);  // rows permuted...
        Matrix Ap(A.rows(), A.cols());
        for (int j = 0; j < static_cast<int>(px.size()); ++j) Ap.col(j) = A.col(px[j]);  // ...cols
        EXPECT_TRUE(near(s.title + " weights", tp.heads[h].weights, Ap));
      }
      // Same in the columns layout: permuting the columns of X permutes the output's columns.
      const Trace tcp = attnlab::compute(attnlab::with_layout(sp, Layout::columns));
      EXPECT_TRUE(near(s.title + " columns output", Matrix(tcp.output.transpose()),
                       permute_rows(t.output, px)));
    } else {
      // Cross-attention: permuting the queries permutes the output; permuting the context
      // (keys and values together) leaves it unchanged.
      Scenario sp = s;
      sp.X = permute_rows(s.X, px);
      EXPECT_TRUE(near(s.title + " output (X permuted)", attnlab::compute(sp).output,
                       permute_rows(t.output, px)));
      Scenario sz = s;
      sz.Z = permute_rows(*s.Z, random_permutation(s.n_z(), rng.engine()));
      EXPECT_TRUE(near(s.title + " output (Z permuted)", attnlab::compute(sz).output, t.output));
    }
  }
}

TEST(Invariant, SingleQueryMatchesFullTrace) {
  for (const Scenario& s : scenario_zoo(true)) {
    const attnlab::Model model = attnlab::resolve(s);
    const Trace t = attnlab::compute(model, Layout::rows);
    for (int h = 0; h < static_cast<int>(t.heads.size()); ++h) {
      const auto& ht = t.heads[h];
      for (int i = 0; i < static_cast<int>(ht.Q.rows()); ++i) {
        const attnlab::SingleQuery sq = attnlab::single_query(model, h, i);
        const std::string ctx = s.title + " head " + std::to_string(h) + " query " +
                                std::to_string(i);
        EXPECT_TRUE(near(ctx + " q", sq.q, Vector(ht.Q.row(i).transpose())));
        EXPECT_TRUE(near(ctx + " scores", sq.scores, Vector(ht.scores.row(i).transpose())));
        EXPECT_TRUE(near(ctx + " weights", sq.weights, Vector(ht.weights.row(i).transpose())));
        EXPECT_TRUE(near(ctx + " output", sq.output, Vector(ht.output.row(i).transpose())));
      }
    }
  }
}

}  // namespace

}  // namespace test_fixtures
