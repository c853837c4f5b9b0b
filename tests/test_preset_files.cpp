// The textbook presets (assets/presets/*.json, written by scripts/gen_presets.py) against the
// numbers their notebooks print (/work/shared/seeds, see its README).
//
// Every expected number below is typed from the notebook's printed output, and the tolerance is
// half a unit in the last place the notebook prints:
//   NumPy's default printing (8 decimals, trailing zeros dropped)  -> 0.5e-8
//   PyTorch's default printing (4 decimals)                        -> 0.5e-4
//   notebook 002 (np.set_printoptions(precision=3))                -> 0.5e-3
// (plus 1e-12 for rounding order). Notebook 004 is a skeleton that prints nothing: its presets are
// checked against the notebook's own assertions and an independent Eigen evaluation of the paper's
// formulas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "attnlab/attention.h"
#include "attnlab/model.h"
#include "attnlab/scenario.h"
#include "attnlab/scenario_io.h"
#include "attnlab/trace.h"

namespace test_preset_files {

namespace {

using attnlab::Layout;
using attnlab::Matrix;
using attnlab::Scenario;
using attnlab::Trace;
using attnlab::Vector;
namespace fs = std::filesystem;

constexpr double kNumpy = 0.5e-8 + 1e-12;  // NumPy default print precision
constexpr double kTorch = 0.5e-4 + 1e-12;  // PyTorch default print precision
constexpr double kUdl = 0.5e-3 + 1e-12;    // notebook 002 prints 3 decimals
constexpr double kExact = 1e-12;           // integer arithmetic, identities
constexpr double kInf = std::numeric_limits<double>::infinity();

// Every preset gen_presets.py writes; the directory scan below also catches any other file.
const char* const kPresetNames[] = {
    "vaswani-q1-decoder-over-encoder.json", "vaswani-q2-is-attends.json",
    "vaswani-q3-two-heads.json",            "mlm-general-attention.json",
    "udl-12-2-multihead.json",              "pytorch-unscaled.json",
    "phuong-hutter-alg3-single-query.json", "phuong-hutter-alg4-masked.json",
    "phuong-hutter-alg5-multihead.json",    "plane-dot-products.json",
};

fs::path preset_dir() { return fs::path(ATTNLAB_SOURCE_DIR) / "assets" / "presets"; }

Scenario load(const std::string& name) { return attnlab::load_scenario((preset_dir() / name).string()); }

Matrix mat(std::initializer_list<std::initializer_list<double>> rows) {
  const Eigen::Index cols = rows.size() ? static_cast<Eigen::Index>(rows.begin()->size()) : 0;
  Matrix m(static_cast<Eigen::Index>(rows.size()), cols);
  Eigen::Index i = 0;
  for (const auto& r : rows) {
    EXPECT_EQ(static_cast<Eigen::Index>(r.size()), cols) << "ragged literal matrix in the test";
    Eigen::Index j = 0;
    for (double v : r) m(i, j++) = v;
    ++i;
  }
  return m;
}

/// A 1 by n matrix.
Matrix rowv(std::initializer_list<double> values) { return mat({values}); }
/// A 1 by n matrix from a vector.
Matrix rowv(const Vector& v) { return Matrix(v.transpose()); }

std::string show(const Matrix& m) {
  std::ostringstream out;
  out.precision(12);
  out << m;
  return out.str();
}

/// Elementwise |got - want| <= tol; the message gives the measured error and where it is.
::testing::AssertionResult Near(const std::string& what, const Matrix& got, const Matrix& want, double tol) {
  if (got.rows() != want.rows() || got.cols() != want.cols())
    return ::testing::AssertionFailure() << what << ": shape " << got.rows() << "x" << got.cols()
                                         << ", expected " << want.rows() << "x" << want.cols();
  double worst = 0;
  Eigen::Index wi = 0, wj = 0;
  for (Eigen::Index i = 0; i < got.rows(); ++i)
    for (Eigen::Index j = 0; j < got.cols(); ++j) {
      const double e = std::abs(got(i, j) - want(i, j));
      if (!(e <= worst)) {  // also catches NaN
        worst = e;
        wi = i;
        wj = j;
      }
    }
  std::ostringstream msg;
  msg.precision(3);
  msg << what << ": max |error| " << worst << " at (" << wi << "," << wj << "), tolerance " << tol;
  if (worst <= tol) return ::testing::AssertionSuccess() << msg.str();
  std::ostringstream detail;
  detail.precision(12);
  detail << "\n  got  " << got(wi, wj) << "\n  want " << want(wi, wj) << "\n got:\n"
         << show(got) << "\n want:\n"
         << show(want);
  return ::testing::AssertionFailure() << msg.str() << detail.str();
}

double max_abs_diff(const Matrix& a, const Matrix& b) { return (a - b).cwiseAbs().maxCoeff(); }

bool any_warning_names(const Trace& t, const std::string& label) {
  return std::any_of(t.warnings.begin(), t.warnings.end(),
                     [&](const std::string& w) { return w.find(label) != std::string::npos; });
}

std::string all_warnings(const Trace& t) {
  std::string s;
  for (const std::string& w : t.warnings) s += "\n  " + w;
  return s.empty() ? " (none)" : s;
}

// ---------------------------------------------------------------------------------------------
// Every file in assets/presets
// ---------------------------------------------------------------------------------------------

TEST(PresetFiles, EveryPresetLoadsValidatesAndComputes) {
  std::error_code ec;
  ASSERT_TRUE(fs::is_directory(preset_dir(), ec)) << preset_dir();
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(preset_dir(), ec)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  int json_files = 0;
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.string());
    EXPECT_EQ(path.extension().string(), ".json") << "only presets belong in assets/presets";
    if (path.extension() != ".json") continue;
    ++json_files;
    Scenario s;
    try {
      s = attnlab::load_scenario(path.string());
      attnlab::validate(s);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "preset does not load: " << e.what();
      continue;
    }
    EXPECT_FALSE(s.title.empty()) << "a preset needs a title";
    EXPECT_GT(s.notes.size(), 100u) << "a preset's notes give its source and what to look at";
    // Textbook presets name their notebook; today's-attention presets (modern-*, written by
    // scripts/gen_presets_modern.py), the Plane panel's (plane-*, scripts/gen_preset_plane.py) and
    // a model's layer name what to try.
    const std::string file = path.filename().string();
    // A model's layer (the induction circuit's lesson) names the script and command that wrote it.
    if (file.rfind("modern-", 0) == 0 || file.rfind("plane-", 0) == 0 || s.view.contains("model"))
      EXPECT_NE(s.notes.find("Try"), std::string::npos) << "notes must say what to try";
    else
      EXPECT_NE(s.notes.find("Source: notebook"), std::string::npos) << "notes must name the notebook";
    EXPECT_FALSE(s.tokens.empty()) << "presets label their tokens";
    const Trace t = attnlab::compute(s);
    EXPECT_EQ(t.layout, s.layout);
    EXPECT_TRUE(t.output.allFinite()) << "output:\n" << show(t.output);
    for (const auto& h : t.heads) EXPECT_TRUE(h.weights.allFinite());

    // A teacher who saves the preset gets the same numbers back.
    const Scenario again = attnlab::scenario_from_json(attnlab::scenario_to_json(s));
    EXPECT_TRUE(Near("output after save and reload", attnlab::compute(again).output, t.output, 0.0));

    // Switching layouts transposes the whole trace and changes no number.
    const Layout other = s.layout == Layout::rows ? Layout::columns : Layout::rows;
    const Trace flipped = attnlab::compute(attnlab::with_layout(s, other));
    EXPECT_TRUE(Near("output in the other layout, transposed", Matrix(flipped.output.transpose()), t.output, kExact));
    EXPECT_TRUE(Near("head 1 weights in the other layout, transposed",
                     Matrix(flipped.heads.at(0).weights.transpose()), t.heads.at(0).weights, kExact));
  }
  int expected = 0;
  for (const char* name : kPresetNames) {
    ++expected;
    EXPECT_TRUE(fs::is_regular_file(preset_dir() / name, ec)) << "missing preset " << name;
  }
  EXPECT_GE(json_files, expected);
}

// ---------------------------------------------------------------------------------------------
// Notebook 000: Vaswani et al., rows layout
// ---------------------------------------------------------------------------------------------

TEST(PresetVaswani, Q1DecoderOverEncoderRowHd1) {
  const Scenario s = load("vaswani-q1-decoder-over-encoder.json");
  EXPECT_EQ(s.layout, Layout::rows);
  EXPECT_TRUE(s.cross_attention());
  ASSERT_EQ(s.tokens.size(), 2u);
  EXPECT_EQ(s.tokens[1], "h_d[1]");
  ASSERT_EQ(s.context_tokens.size(), 4u);
  EXPECT_EQ(s.context_tokens[3], "translation");

  const Trace t = attnlab::compute(s);
  ASSERT_EQ(t.heads.size(), 1u);
  const auto& h = t.heads[0];
  // In [35] scores = get_scores(h_i_e, h_i_d[1])
  EXPECT_TRUE(Near("scores row h_d[1]", h.scores.row(1), rowv({-0.6053, -0.7374, -0.2628, 0.977}), kNumpy));
  // In [46] scaled_scores = scale_scores(scores, 4)
  EXPECT_TRUE(Near("scaled row h_d[1]", t.scaled(0).row(1), rowv({-0.30265, -0.3687, -0.1314, 0.4885}), kNumpy));
  // In [51] attention_weights
  EXPECT_TRUE(Near("weights row h_d[1]", h.weights.row(1),
                   rowv({0.1876594, 0.17566497, 0.22271181, 0.41396383}), kNumpy));
  EXPECT_TRUE(t.warnings.empty()) << all_warnings(t);

  // The output is the true context vector c = sum_j alpha_j h_e_j = weights @ h_e ...
  const Matrix h_e = *s.Z;
  const Matrix weights = h.weights.row(1);
  EXPECT_TRUE(Near("output row h_d[1] = weights @ h_e", t.output.row(1), weights * h_e, kExact));
  EXPECT_TRUE(Near("output row h_d[1] (value in the notes)", t.output.row(1),
                   rowv({0.09578694, 0.14982156, 0.24673243, 0.38854995}), kNumpy));
  // ... not the notebook's In [52] slip, sum(attention_weights * h_i_e), which scales the columns.
  const Matrix printed_slip = rowv({0.07694035, -0.00526995, 0.38974566, 0.45122057});
  const Matrix slip = weights.array() * h_e.colwise().sum().array();
  EXPECT_TRUE(Near("the slip is alpha_j times column sum j", slip, printed_slip, kNumpy));
  EXPECT_GT(max_abs_diff(t.output.row(1), printed_slip), 0.1)
      << "the output must be the weighted sum, not the notebook's slip";
}

TEST(PresetVaswani, Q2IsAttends) {
  const Scenario s = load("vaswani-q2-is-attends.json");
  EXPECT_EQ(s.layout, Layout::rows);
  ASSERT_EQ(s.tokens.size(), 3u);
  EXPECT_EQ(s.tokens[1], "is");
  const Trace t = attnlab::compute(s);
  ASSERT_EQ(t.heads.size(), 1u);
  const auto& h = t.heads[0];
  // In [99] Q = is @ W_Q
  EXPECT_TRUE(Near("Q row is", h.Q.row(1), rowv({0.4579, -1.3416, 0.3622, 0.8046}), kNumpy));
  // In [89] K, In [90] V
  EXPECT_TRUE(Near("K", h.K,
                   mat({{0.5445, -0.2472, -0.5106, 0.3801},
                        {0.3474, 0.7532, 0.3604, 0.309},
                        {0.5478, -0.6361, -0.4861, 0.1562}}),
                   kNumpy));
  EXPECT_TRUE(Near("V", h.V,
                   mat({{0.0738, -0.387, 0.5922, -0.0558},
                        {-0.3937, 0.2503, 1.0458, -0.3767},
                        {0.4121, -0.5704, 0.422, 0.1439}}),
                   kNumpy));
  // In [109] attention_weights, In [110] single_attention_scores
  EXPECT_TRUE(Near("weights row is", h.weights.row(1), rowv({0.3638497, 0.2022857, 0.4338646}), kNumpy));
  EXPECT_TRUE(Near("output row is", t.output.row(1),
                   rowv({0.12600783, -0.33765409, 0.61011304, -0.03407072}), kNumpy));
  EXPECT_TRUE(Near("scale 1/sqrt(4)", t.scaled(0), h.scores * 0.5, kExact));
}

TEST(PresetVaswani, Q3TwoHeadsSplitByColumns) {
  const Scenario s = load("vaswani-q3-two-heads.json");
  EXPECT_EQ(s.layout, Layout::rows);
  EXPECT_EQ(s.num_heads, 2);
  EXPECT_FALSE(s.per_head()) << "Q3 splits the full 4x4 matrices";
  const attnlab::Model m = attnlab::resolve(s);
  ASSERT_EQ(m.num_heads, 2);
  EXPECT_EQ(m.d_k, 2);
  EXPECT_EQ(m.d_v, 2);
  EXPECT_FALSE(m.has_W_o());
  // In [119], [121], [123]: W_Q_heads, W_K_heads, W_V_heads (4 x 2 each, not the text's 3 x 2).
  EXPECT_TRUE(Near("head 1 W_q", m.head(0).W_q, mat({{0.12, -0.87}, {0.76, 0.21}, {-0.55, 0.18}, {0.03, -0.99}}), 0));
  EXPECT_TRUE(Near("head 2 W_q", m.head(1).W_q, mat({{0.33, 0.45}, {-0.34, 0.67}, {0.29, -0.73}, {0.42, 0.11}}), 0));
  EXPECT_TRUE(Near("head 1 W_k", m.head(0).W_k, mat({{0.64, -0.27}, {-0.45, 0.33}, {0.19, -0.94}, {0.03, 0.85}}), 0));
  EXPECT_TRUE(Near("head 2 W_k", m.head(1).W_k, mat({{0.89, -0.12}, {0.71, 0.08}, {0.56, 0.37}, {-0.41, 0.76}}), 0));
  EXPECT_TRUE(Near("head 1 W_v", m.head(0).W_v, mat({{0.58, -0.13}, {-0.31, 0.66}, {0.45, 0.11}, {-0.92, 0.37}}), 0));
  EXPECT_TRUE(Near("head 2 W_v", m.head(1).W_v, mat({{0.94, 0.22}, {-0.74, 0.09}, {-0.88, 0.67}, {0.28, -0.5}}), 0));

  const Trace t = attnlab::compute(s);
  ASSERT_EQ(t.heads.size(), 2u);
  // Concat(head1, head2) is N x h d_v = 3x4; without W_o the output is the concatenation.
  EXPECT_EQ(t.concat.rows(), 3);
  EXPECT_EQ(t.concat.cols(), 4);
  EXPECT_TRUE(Near("output = concat", t.output, t.concat, 0));
  // Each head's Q and K are column blocks of Q2's printed Q and K (In [99], In [89]).
  EXPECT_TRUE(Near("head 1 Q row is", t.heads[0].Q.row(1), rowv({0.4579, -1.3416}), kNumpy));
  EXPECT_TRUE(Near("head 2 Q row is", t.heads[1].Q.row(1), rowv({0.3622, 0.8046}), kNumpy));
  EXPECT_TRUE(Near("head 2 K", t.heads[1].K, mat({{-0.5106, 0.3801}, {0.3604, 0.309}, {-0.4861, 0.1562}}), kNumpy));
  // Each head scales by 1/sqrt(d_k) = 1/sqrt(2).
  for (std::size_t i = 0; i < t.heads.size(); ++i)
    EXPECT_TRUE(Near("scale 1/sqrt(2)", t.scaled(i), t.heads[i].scores / std::sqrt(2.0), kExact));
}

// ---------------------------------------------------------------------------------------------
// Notebook 001: Machine Learning Mastery, rows layout
// ---------------------------------------------------------------------------------------------

TEST(PresetMlm, GeneralAttentionFourWords) {
  const Scenario s = load("mlm-general-attention.json");
  EXPECT_EQ(s.layout, Layout::rows);
  const Trace t = attnlab::compute(s);
  ASSERT_EQ(t.heads.size(), 1u);
  const auto& h = t.heads[0];
  // In [20] scores, In [21] weights, In [24] attention (first word by hand)
  EXPECT_TRUE(Near("scores row word_1", h.scores.row(0), rowv({8, 2, 10, 2}), kExact));
  EXPECT_TRUE(Near("weights row word_1", h.weights.row(0),
                   rowv({0.23608986, 0.00738988, 0.74913039, 0.00738988}), kNumpy));
  EXPECT_TRUE(Near("output row word_1", t.output.row(0), rowv({0.98522025, 1.74174051, 0.75652026}), kNumpy));
  // In [29] attention, matrix form
  EXPECT_TRUE(Near("output", t.output,
                   mat({{0.98522025, 1.74174051, 0.75652026},
                        {0.90965265, 1.40965265, 0.5},
                        {0.99851226, 1.75849334, 0.75998108},
                        {0.99560386, 1.90407309, 0.90846923}}),
                   kNumpy));
  EXPECT_TRUE(Near("scale 1/sqrt(3)", t.scaled(0), h.scores / std::sqrt(3.0), kExact));
}

// ---------------------------------------------------------------------------------------------
// Notebook 002: Prince, Understanding Deep Learning 12.2, columns layout
// ---------------------------------------------------------------------------------------------

TEST(PresetUdl, MultiheadColumnsMatchesTrueXPrime) {
  const Scenario s = load("udl-12-2-multihead.json");
  EXPECT_EQ(s.layout, Layout::columns);
  ASSERT_TRUE(s.per_head());
  EXPECT_EQ(s.head_count(), 2);
  // In [3] print(X): D = 8 rows, N = 6 token columns, from np.random.seed(3).
  EXPECT_TRUE(Near("X", s.X,
                   mat({{1.78862847, 0.43650985, 0.09649747, -1.8634927, -0.2773882, -0.35475898},
                        {-0.08274148, -0.62700068, -0.04381817, -0.47721803, -1.31386475, 0.88462238},
                        {0.88131804, 1.70957306, 0.05003364, -0.40467741, -0.54535995, -1.54647732},
                        {0.98236743, -1.10106763, -1.18504653, -0.2056499, 1.48614836, 0.23671627},
                        {-1.02378514, -0.7129932, 0.62524497, -0.16051336, -0.76883635, -0.23003072},
                        {0.74505627, 1.97611078, -1.24412333, -0.62641691, -0.80376609, -2.41908317},
                        {-0.92379202, -1.02387576, 1.12397796, -0.13191423, -1.62328545, 0.64667545},
                        {-0.35627076, -1.74314104, -0.59664964, -0.58859438, -0.8738823, 0.02971382}}),
                   kNumpy));
  const Trace t = attnlab::compute(s);
  EXPECT_EQ(t.layout, Layout::columns);
  ASSERT_EQ(t.heads.size(), 2u);
  // In [8] X_prime_true (8 x 6, one column per token); printed to 3 decimals, which is tighter
  // than the notebook's own allclose(rtol=1e-3, atol=1e-3).
  const Matrix x_prime_true = mat({{-21.207, -5.373, -20.933, -9.179, -11.319, -17.812},
                                   {-1.995, 7.906, -10.516, 3.452, 9.863, -7.24},
                                   {5.479, 1.115, 9.244, 0.453, 5.656, 7.089},
                                   {-7.413, -7.416, 0.363, -5.573, -6.736, -0.848},
                                   {-11.261, -9.937, -4.848, -8.915, -13.378, -5.761},
                                   {3.548, 10.036, -2.244, 1.604, 12.113, -2.557},
                                   {4.888, -5.814, 2.407, 3.228, -4.232, 3.71},
                                   {1.248, 18.894, -6.409, 3.224, 19.717, -5.629}});
  EXPECT_TRUE(Near("output = X' (3 decimals)", t.output, x_prime_true, kUdl));
  EXPECT_TRUE(Near("output = X' (notebook's 1e-3)", t.output, x_prime_true, 1e-3));
  for (const auto& h : t.heads) {
    // Columns layout: Q is d_k x N, scores K^T Q are keys x queries, softmax down each column.
    EXPECT_EQ(h.Q.rows(), 4);
    EXPECT_EQ(h.Q.cols(), 6);
    EXPECT_TRUE(Near("scores = K^T Q", h.scores, h.K.transpose() * h.Q, kExact));
    EXPECT_TRUE(Near("scale 1/sqrt(4)", t.scaled(static_cast<std::size_t>(&h - t.heads.data())), h.scores * 0.5, kExact));
    EXPECT_TRUE(Near("weights columns sum to 1", h.weights.colwise().sum(), Matrix::Ones(1, 6), kExact));
    EXPECT_TRUE(Near("head output = V A", h.output, h.V * h.weights, kExact));
  }
  // Stacked head 1 on top, then X' = omega_c [X'_1; X'_2].
  EXPECT_TRUE(Near("concat top = head 1", t.concat.topRows(4), t.heads[0].output, 0));
  EXPECT_TRUE(Near("X' = omega_c concat", t.output, *s.W_o * t.concat, kExact));
}

// ---------------------------------------------------------------------------------------------
// Notebook 003: PyTorch walk-through, rows layout, no scaling
// ---------------------------------------------------------------------------------------------

TEST(PresetPytorch, UnscaledKeysQueriesValues) {
  const Scenario s = load("pytorch-unscaled.json");
  EXPECT_EQ(s.layout, Layout::rows);
  EXPECT_EQ(s.scale.kind, attnlab::Scale::Kind::none);
  const Trace t = attnlab::compute(s);
  ASSERT_EQ(t.heads.size(), 1u);
  const auto& h = t.heads[0];
  // In [182] keys, In [181] queries, In [118] values
  EXPECT_TRUE(Near("keys", h.K, mat({{0, 1, 1}, {4, 4, 0}, {2, 3, 1}}), kExact));
  EXPECT_TRUE(Near("queries", h.Q, mat({{1, 0, 2}, {2, 2, 2}, {2, 1, 3}}), kExact));
  EXPECT_TRUE(Near("values", h.V, mat({{1, 2, 3}, {2, 8, 0}, {2, 6, 3}}), kExact));
  // In [154] attention_score = queries[0] @ keys.t(); In [157] softmax without 1/sqrt(d_k)
  EXPECT_TRUE(Near("scores row 0", h.scores.row(0), rowv({2, 4, 4}), kExact));
  EXPECT_TRUE(Near("scaled = scores (scale none)", t.scaled(0), h.scores, 0));
  EXPECT_TRUE(Near("weights row 0", h.weights.row(0), rowv({0.0634, 0.4683, 0.4683}), kTorch));
  // In [183] the slip: queries @ keys (K, not K^T) printed this; the scores are Q K^T.
  const Matrix printed_slip = mat({{4, 7, 3}, {12, 16, 4}, {10, 15, 5}});
  EXPECT_TRUE(Near("the slip is Q K", h.Q * h.K, printed_slip, kExact));
  EXPECT_GT(max_abs_diff(h.scores, printed_slip), 1.0) << "scores must be Q K^T, not the slip Q K";
  EXPECT_TRUE(Near("scores = Q K^T", h.scores, mat({{2, 4, 4}, {4, 16, 12}, {4, 12, 10}}), kExact));
}

// ---------------------------------------------------------------------------------------------
// Notebook 004: Phuong & Hutter, columns layout (a skeleton: no printed numbers)
// ---------------------------------------------------------------------------------------------

/// Algorithm 3 evaluated literally from the file's matrices (columns layout = the paper's shapes:
/// W_q is d_attn x d_in), independent of the core's rows-convention internals.
struct Alg3 {
  Vector q;
  Matrix K, V;  // d_attn x T, d_out x T: one column per context token
  Vector alpha, output;
};

Alg3 algorithm3(const attnlab::Projections& p, const Vector& e, const Matrix& E) {
  Alg3 r;
  r.q = *p.W_q * e + *p.b_q;
  r.K = (*p.W_k * E).colwise() + *p.b_k;
  r.V = (*p.W_v * E).colwise() + *p.b_v;
  const double d_attn = static_cast<double>(r.q.size());
  Vector a = (r.K.transpose() * r.q) / std::sqrt(d_attn);
  a = (a.array() - a.maxCoeff()).exp();
  r.alpha = a / a.sum();
  r.output = r.V * r.alpha;
  return r;
}

TEST(PresetPhuongHutter, Algorithm3SingleQuery) {
  const Scenario s = load("phuong-hutter-alg3-single-query.json");
  EXPECT_EQ(s.layout, Layout::columns);
  ASSERT_EQ(s.X.cols(), 1) << "one current token e, as a column";
  ASSERT_EQ(s.X.rows(), 10);
  ASSERT_TRUE(s.Z.has_value());
  EXPECT_TRUE(Near("e = ones(10)", s.X, Matrix::Ones(10, 1), 0));
  Matrix context(10, 3);
  context << Matrix::Constant(10, 1, 2), Matrix::Constant(10, 1, 3), Matrix::Constant(10, 1, 4);
  EXPECT_TRUE(Near("e_t = 2s, 3s, 4s", *s.Z, context, 0));
  ASSERT_EQ(s.heads.size(), 1u);

  const Trace t = attnlab::compute(s);
  ASSERT_EQ(t.heads.size(), 1u);
  const auto& h = t.heads[0];
  const Alg3 ref = algorithm3(s.heads[0], s.X.col(0), *s.Z);
  EXPECT_TRUE(Near("q", h.Q, Matrix(ref.q), kExact));
  EXPECT_TRUE(Near("keys", h.K, ref.K, kExact));
  EXPECT_TRUE(Near("values", h.V, ref.V, kExact));
  EXPECT_TRUE(Near("alpha", h.weights, Matrix(ref.alpha), kExact));
  EXPECT_TRUE(Near("v~", t.output, Matrix(ref.output), kExact));
  // The notebook's checks: sum(scores) == 1 and len(outputs) == d_out.
  EXPECT_NEAR(h.weights.sum(), 1.0, kExact);
  EXPECT_EQ(t.output.rows(), 10);
  EXPECT_EQ(t.output.cols(), 1);
  // The alpha given in the notes, and not saturated.
  EXPECT_TRUE(Near("alpha (notes, 4 decimals)", rowv(Vector(h.weights.col(0))), rowv({0.1638, 0.2971, 0.5391}),
                   0.5e-4 + 1e-12));
  EXPECT_TRUE(t.warnings.empty()) << all_warnings(t);

  // The core's own single-query path agrees.
  const attnlab::SingleQuery sq = attnlab::single_query(attnlab::resolve(s), 0, 0);
  EXPECT_TRUE(Near("single_query weights", rowv(sq.weights), rowv(ref.alpha), kExact));
  EXPECT_TRUE(Near("single_query output", rowv(sq.output), rowv(ref.output), kExact));
}

TEST(PresetPhuongHutter, Algorithm4FullyMaskedQuery) {
  const Scenario s = load("phuong-hutter-alg4-masked.json");
  EXPECT_EQ(s.layout, Layout::columns);
  ASSERT_EQ(s.tokens.size(), 3u);
  const std::string x0 = s.tokens[0];
  EXPECT_EQ(x0, "x0 (1s)");
  // Mask[t_z, t_x] exactly as the notebook builds it: zeros, then [1, 1] = [2, 2] = 1.
  ASSERT_TRUE(s.mask.cells.has_value());
  EXPECT_TRUE(Near("Mask[t_z, t_x]", *s.mask.cells, mat({{0, 0, 0}, {0, 1, 0}, {0, 0, 1}}), 0));

  const Trace t = attnlab::compute(s);
  ASSERT_EQ(t.heads.size(), 1u);
  const auto& h = t.heads[0];
  // Query x0 may attend nothing: an all-zero weights column, a zero output, and a warning.
  EXPECT_TRUE(Near("weights column x0", h.weights.col(0), Matrix::Zero(3, 1), 0));
  EXPECT_TRUE(Near("head output column x0", h.output.col(0), Matrix::Zero(10, 1), 0));
  EXPECT_TRUE(Near("output column x0", t.output.col(0), Matrix::Zero(10, 1), 0));
  for (Eigen::Index j = 0; j < 3; ++j) EXPECT_EQ(t.masked(0)(j, 0), -kInf) << "masked(" << j << ", x0)";
  EXPECT_TRUE(any_warning_names(t, x0)) << "a warning must name the fully masked query " << x0 << ":"
                                        << all_warnings(t);
  EXPECT_FALSE(any_warning_names(t, s.tokens[1])) << all_warnings(t);
  // x1 sees only z1, x2 only z2.
  EXPECT_TRUE(Near("weights columns x1, x2", h.weights.rightCols(2), mat({{0, 0}, {1, 0}, {0, 1}}), kExact));
  EXPECT_TRUE(Near("outputs x1, x2 = v(z1), v(z2)", t.output.rightCols(2), h.V.rightCols(2), kExact));

  // The notebook's checks against Algorithm 3 (same weights, same context):
  const Scenario s3 = load("phuong-hutter-alg3-single-query.json");
  const Trace t3 = attnlab::compute(s3);
  EXPECT_TRUE(Near("query_matrix[0] == query_vector", h.Q.col(0), t3.heads.at(0).Q, kExact));
  EXPECT_TRUE(Near("key_matrix[0] == key_vectors", h.K, t3.heads.at(0).K, kExact));
  EXPECT_TRUE(Near("value_matrix[0] == value_vectors", h.V, t3.heads.at(0).V, kExact));
  // ... but masked_outputs[0] cannot equal Algorithm 3's output while x0 is fully masked;
  EXPECT_GT(max_abs_diff(t.output.col(0), t3.output), 1e-3);
  // without the mask it does, as the notes say.
  Scenario unmasked = s;
  unmasked.mask = attnlab::MaskSpec{};
  const Trace tu = attnlab::compute(unmasked);
  EXPECT_TRUE(Near("unmasked output x0 = Algorithm 3 output", tu.output.col(0), t3.output, kExact));
  EXPECT_TRUE(tu.warnings.empty()) << all_warnings(tu);
}

TEST(PresetPhuongHutter, Algorithm5FourHeads) {
  const Scenario s = load("phuong-hutter-alg5-multihead.json");
  EXPECT_EQ(s.layout, Layout::columns);
  ASSERT_TRUE(s.per_head());
  EXPECT_EQ(s.head_count(), 4);  // the notebook's n_head
  ASSERT_TRUE(s.W_o.has_value());
  ASSERT_TRUE(s.b_o.has_value());
  EXPECT_EQ(s.W_o->rows(), 10);  // combine_weights: d_out x n_head * d_mid
  EXPECT_EQ(s.W_o->cols(), 40);
  EXPECT_EQ(s.b_o->size(), 10);

  const Trace t = attnlab::compute(s);
  ASSERT_EQ(t.heads.size(), 4u);  // len(multi_head_outputs) == n_head
  EXPECT_EQ(t.concat.rows(), 40);  // [Y^1; ...; Y^4]
  EXPECT_EQ(t.concat.cols(), 3);
  EXPECT_EQ(t.output.rows(), 10);
  EXPECT_EQ(t.output.cols(), 3);
  for (int h = 0; h < 4; ++h) {
    SCOPED_TRACE("head " + std::to_string(h + 1));
    const auto& ht = t.heads[static_cast<std::size_t>(h)];
    // Each head is Algorithm 4 with its own weights.
    const Scenario& sc = s;
    for (Eigen::Index x = 0; x < 3; ++x) {
      const Alg3 ref = algorithm3(sc.heads[static_cast<std::size_t>(h)], sc.X.col(x), *sc.Z);
      EXPECT_TRUE(Near("q column", ht.Q.col(x), Matrix(ref.q), kExact));
    }
    EXPECT_TRUE(Near("concat block", t.concat.middleRows(10 * h, 10), ht.output, 0));
    EXPECT_TRUE(Near("weights column x0", ht.weights.col(0), Matrix::Zero(3, 1), 0));
  }
  // W_o Y + b_o 1^T; query x0 is fully masked, so its output is exactly b_o.
  const Matrix expected = (*s.W_o * t.concat).colwise() + *s.b_o;
  EXPECT_TRUE(Near("output = W_o Y + b_o", t.output, expected, kExact));
  EXPECT_TRUE(Near("output column x0 = b_o", t.output.col(0), Matrix(*s.b_o), 0));
  EXPECT_TRUE(any_warning_names(t, s.tokens[0])) << all_warnings(t);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The Plane panel's preset (scripts/gen_preset_plane.py): expected numbers printed by that
// script's NumPy reference (S = X X^T, softmax of S / sqrt 2 along rows, Y = A X), full doubles.
// ---------------------------------------------------------------------------------------------

TEST(PresetPlane, DotProductsInThePlaneMatchNumpy) {
  const Scenario s = load("plane-dot-products.json");
  EXPECT_EQ(s.layout, Layout::rows);
  EXPECT_EQ(s.d_x(), 2);
  EXPECT_FALSE(s.full.W_q || s.full.W_k || s.full.b_q || s.full.b_k) << "identity projections";
  const Trace t = attnlab::compute(s);
  ASSERT_EQ(t.heads.size(), 1u);
  const auto& h = t.heads[0];
  const double kRef = 1e-12;  // NumPy's doubles against the core's, other summation orders
  EXPECT_TRUE(Near("scores", h.scores,
                   mat({{4.0, 0.0, 6.0, -3.0}, {0.0, 4.0, 2.0, 0.0}, {6.0, 2.0, 10.0, -4.5}, {-3.0, 0.0, -4.5, 2.25}}),
                   kExact));
  EXPECT_TRUE(Near("weights", h.weights,
                   mat({{0.19307101627048598, 0.011411606556142675, 0.7941494308065811, 0.0013679463667902213},
                        {0.04341770439005499, 0.7345767021916112, 0.17858788902827885, 0.04341770439005499},
                        {0.055621897610238814, 0.0032875737834458557, 0.9410573564439191, 3.3172162396125126e-05},
                        {0.019748528398815347, 0.16474508184036937, 0.006837477009565108, 0.8086689127512502}}),
                   kRef));
  EXPECT_TRUE(Near("output", t.output,
                   mat({{2.76653840541053, 0.8169726439188664},
                        {0.5574725192798641, 1.6477412934115012},
                        {2.9343661063086404, 0.9476325040108108},
                        {-1.1529938813005494, 0.33632764069030385}}),
                   kRef));
  // What the notes claim: orthogonal keys score 0 and tie; the long key beats the query itself.
  EXPECT_EQ(h.weights(1, 0), h.weights(1, 3));
  EXPECT_GT(h.scores(0, 2), h.scores(0, 0));
}

}  // namespace test_preset_files
