// Core behaviour: softmax stability, masks, layouts, identity projections, scale, round-trips.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "attnlab/attention.h"
#include "attnlab/random.h"
#include "attnlab/scenario_io.h"
#include "attnlab/trace_io.h"
#include "test_support.h"

namespace test_core {

namespace {

using attnlab::Layout;
using attnlab::Matrix;
using attnlab::Scenario;
constexpr double kInf = std::numeric_limits<double>::infinity();

double max_abs_diff(const Matrix& a, const Matrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return kInf;
  return (a - b).cwiseAbs().maxCoeff();
}

using attnlab::testing::random_scenario;

TEST(Softmax, SubtractsTheMaximumSoHugeScoresStayFinite) {
  Matrix logits(1, 3);
  logits << 1e300, -1e300, 1e300 - 1e285;
  const Matrix w = attnlab::softmax_rows(logits);
  EXPECT_TRUE(w.allFinite());
  EXPECT_DOUBLE_EQ(w.sum(), 1.0);
  EXPECT_EQ(w(0, 1), 0.0);
}

TEST(Softmax, AllMaskedRowIsAllZeroNotNaN) {
  Matrix logits = Matrix::Constant(2, 3, -kInf);
  logits(1, 2) = 0.5;
  const Matrix w = attnlab::softmax_rows(logits);
  EXPECT_EQ(w.row(0).cwiseAbs().sum(), 0.0);
  EXPECT_EQ(w(1, 2), 1.0);
  EXPECT_EQ(w(1, 0), 0.0);
}

TEST(Softmax, MatchesTheDefinitionOnOrdinaryNumbers) {
  Matrix logits(1, 4);
  logits << -0.30265, -0.3687, -0.1314, 0.4885;  // seed 000 Q1's scaled scores
  const Matrix w = attnlab::softmax_rows(logits);
  const double expected[] = {0.1876594, 0.17566497, 0.22271181, 0.41396383};
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(w(0, j), expected[j], 5e-9) << "j=" << j;
}

/// Weights from the definition, cell by cell with std::exp: exp(s_j - max) / sum.
Matrix softmax_by_definition(const Matrix& scores) {
  Matrix w(scores.rows(), scores.cols());
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    const double max = scores.row(i).maxCoeff();
    for (Eigen::Index j = 0; j < scores.cols(); ++j) w(i, j) = std::exp(scores(i, j) - max);
    w.row(i) /= w.row(i).sum();
  }
  return w;
}

TEST(Softmax, HugeScaledScoresGiveTheLargestWeightOne) {
  // Found by the fuzzer: one token x = (9.0e15, 3.8e-5, 4.1e-5), identity projections, so the one
  // score is 8.1e31 and its scaled value 4.7e31. A fused multiply-add of scale x score - max kept
  // the product's rounding error (~1e15) and exp turned it into inf or 0.
  Scenario s;
  s.X = Matrix(2, 3);
  s.X << 9000114674407378, 0.0000378, 0.0000409999946744073, 8.9e15, 1, 2;
  const attnlab::Trace t = attnlab::compute(s);
  const Matrix& A = t.heads[0].weights;
  EXPECT_TRUE(A.allFinite());
  for (Eigen::Index i = 0; i < 2; ++i) {
    EXPECT_DOUBLE_EQ(A.row(i).sum(), 1.0) << i;
    EXPECT_EQ(A.row(i).maxCoeff(), 1.0) << i;  // the other key is ~1e29 below: weight exactly 0
  }
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front();
}

TEST(Softmax, KeysFarBelowTheMaximumGetExactlyZeroOthersTheirTinyWeight) {
  // Identity projections, scale 1: scores = X X^T. Query 0's second key lies 900 below its
  // maximum (exp underflows: weight exactly 0); query 3's first key lies 697 below (exp = 1e-303,
  // a representable weight that must not be lost). 20 tokens, so that rows take the vectorised exp.
  Scenario s;
  s.X = Matrix::Zero(20, 2);
  s.X.topRows(4) << 30, 0, 0, 1, 26.4, 0, 0, 26.4;
  s.scale.kind = attnlab::Scale::Kind::none;
  const attnlab::Trace t = attnlab::compute(s);
  const Matrix& w = t.heads[0].weights;
  EXPECT_EQ(w(0, 1), 0.0);
  EXPECT_EQ(w(0, 3), 0.0);
  EXPECT_GT(w(3, 0), 0.0);
  EXPECT_LT(w(3, 0), 1e-300);
  EXPECT_LT(max_abs_diff(w, softmax_by_definition(t.heads[0].scores)), 1e-15);
  for (Eigen::Index i = 0; i < 20; ++i) EXPECT_NEAR(w.row(i).sum(), 1.0, 1e-15);
}

TEST(Masks, CausalZeroesTheUpperTriangleExactlyAndRowsRenormalise) {
  Scenario s = random_scenario(5, 4, 2, 7);
  s.mask.causal = true;
  const attnlab::Trace t = attnlab::compute(s);
  for (std::size_t h = 0; h < t.heads.size(); ++h)
    for (int i = 0; i < 5; ++i) {
      EXPECT_NEAR(t.heads[h].weights.row(i).sum(), 1.0, 1e-12);
      for (int j = i + 1; j < 5; ++j) {
        EXPECT_EQ(t.heads[h].weights(i, j), 0.0);
        EXPECT_EQ(t.masked(h)(i, j), -kInf);
      }
    }
}

TEST(Masks, PartsCombineAndAFullyMaskedQueryWarnsByName) {
  Scenario s = random_scenario(3, 4, 1, 3);
  s.tokens = {"the", "cat", "sat"};
  s.mask.causal = true;
  s.mask.padding = {0};
  const attnlab::Trace t = attnlab::compute(s);
  const Matrix& w = t.heads[0].weights;
  EXPECT_EQ(w.row(0).cwiseAbs().sum(), 0.0);            // "the" may attend only itself, which is padding
  EXPECT_EQ(t.heads[0].output.row(0).cwiseAbs().sum(), 0.0);
  EXPECT_DOUBLE_EQ(w(1, 1), 1.0);                       // "cat": causal leaves {the, cat}, padding removes "the"
  EXPECT_NEAR(w(2, 1) + w(2, 2), 1.0, 1e-12);
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_NE(t.warnings[0].find("query the (#0) may attend no key"), std::string::npos) << t.warnings[0];
}

TEST(Layouts, ColumnsTraceIsTheTransposeOfRowsTrace) {
  Scenario rows = random_scenario(4, 6, 3, 11);
  rows.Z = attnlab::random_matrix(5, 6, attnlab::RandomSpec{}, 9);
  Matrix cells = Matrix::Ones(4, 5);
  cells(1, 3) = 0;
  rows.mask.cells = cells;
  const Scenario columns = attnlab::with_layout(rows, Layout::columns);
  const attnlab::Trace a = attnlab::compute(rows), b = attnlab::compute(columns);
  ASSERT_EQ(a.heads.size(), 3u);
  for (std::size_t h = 0; h < 3; ++h) {
    EXPECT_LT(max_abs_diff(a.heads[h].weights, b.heads[h].weights.transpose()), 1e-14);
    EXPECT_LT(max_abs_diff(a.heads[h].Q, b.heads[h].Q.transpose()), 1e-14);
    EXPECT_EQ(b.heads[h].weights(3, 1), 0.0);  // the masked cell, transposed
  }
  EXPECT_LT(max_abs_diff(a.output, b.output.transpose()), 1e-13);
  EXPECT_EQ(b.layout, Layout::columns);
}

TEST(Projections, OmittedWeightsAreIdentity) {
  Scenario s;
  s.X = Matrix(2, 3);
  s.X << 1, 2, 3, 4, 5, 6;
  s.scale.kind = attnlab::Scale::Kind::none;
  const attnlab::Trace t = attnlab::compute(s);
  EXPECT_EQ(t.heads[0].Q, s.X);
  EXPECT_EQ(t.heads[0].scores(0, 1), 1 * 4 + 2 * 5 + 3 * 6);
  EXPECT_EQ(t.output, t.concat);  // no W_o: the output is the concatenation
}

TEST(Projections, PerHeadOmittedWeightsAreIdentityBesideGivenOnes) {
  // Head 1 omits its projections and biases (identity, zeros); head 2 gives its own.
  Scenario s;
  s.X = Matrix(2, 2);
  s.X << 1, 2, 3, 4;
  s.heads.assign(2, attnlab::Projections{});
  s.heads[1].W_q = Matrix(2, 2);
  *s.heads[1].W_q << 0, 1, 1, 0;
  s.heads[1].b_q = attnlab::Vector(2);
  *s.heads[1].b_q << 10, 20;
  for (const Layout layout : {Layout::rows, Layout::columns}) {
    const Scenario sl = attnlab::with_layout(s, layout);
    const attnlab::Model m = attnlab::resolve(sl);
    ASSERT_EQ(m.num_heads, 2);
    EXPECT_EQ(Matrix(m.head(0).W_q), Matrix(Matrix::Identity(2, 2)));
    EXPECT_EQ(Matrix(m.head(1).W_q), *s.heads[1].W_q);  // symmetric: the same in either layout
    EXPECT_EQ(attnlab::Vector(m.head(0).b_q), attnlab::Vector::Zero(2));
    EXPECT_EQ(attnlab::Vector(m.head(1).b_q), *s.heads[1].b_q);
    const attnlab::Trace t = attnlab::compute(m, Layout::rows);
    EXPECT_EQ(t.heads[0].Q, s.X);
    Matrix q1(2, 2);
    q1 << 12, 21, 14, 23;  // X swapped column by column, plus b_q
    EXPECT_EQ(t.heads[1].Q, q1);
  }
}

TEST(Model, SharesARowsScenariosMatricesAndKeepsItAlive) {
  Scenario built = random_scenario(5, 6, 2, 21);
  built.Z = attnlab::random_matrix(4, 6, attnlab::RandomSpec{}, 8);
  built.tokens = {"a", "b", "c", "d", "e"};
  const attnlab::Trace expected = attnlab::compute(built);
  auto scenario = std::make_shared<const Scenario>(std::move(built));
  const std::weak_ptr<const Scenario> watch = scenario;
  attnlab::Model m = attnlab::resolve(scenario);
  // Not copied: the Model's inputs are the scenario's own matrices.
  EXPECT_EQ(m.X.get(), &scenario->X);
  EXPECT_EQ(m.Z.get(), &*scenario->Z);
  EXPECT_EQ(m.W_q.get(), &*scenario->full.W_q);
  EXPECT_EQ(m.W_k.get(), &*scenario->full.W_k);
  EXPECT_EQ(m.W_v.get(), &*scenario->full.W_v);
  EXPECT_EQ(m.W_o.get(), &*scenario->W_o);
  EXPECT_EQ(m.tokens.get(), &scenario->tokens);
  scenario.reset();  // the Model alone keeps it: computing still reads valid memory (ASan checks)
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ(attnlab::compute(m, Layout::rows).output, expected.output);
  m = attnlab::Model{};
  EXPECT_TRUE(watch.expired());
}

TEST(Model, ColumnsLayoutGetsTheModelsOwnTransposes) {
  const auto scenario = std::make_shared<const Scenario>(
      attnlab::with_layout(random_scenario(5, 6, 2, 22), Layout::columns));
  const attnlab::Model m = attnlab::resolve(scenario);
  EXPECT_EQ(*m.X, Matrix(scenario->X.transpose()));
  EXPECT_EQ(*m.W_q, Matrix(scenario->full.W_q->transpose()));
  EXPECT_EQ(*m.W_o, Matrix(scenario->W_o->transpose()));
  EXPECT_EQ(m.Z, nullptr);  // self-attention
  EXPECT_EQ(&m.keys(), m.X.get());
}

TEST(ScenarioSize, NumberCountAddsEveryMatrixBiasAndMaskCell) {
  Scenario s;
  s.X = Matrix::Zero(2, 3);                    // 6
  s.Z = Matrix::Zero(4, 3);                    // 12
  s.heads.assign(2, attnlab::Projections{});
  s.heads[0].W_q = Matrix::Zero(3, 2);         // 6
  s.heads[1].b_v = attnlab::Vector::Zero(3);   // 3
  s.W_o = Matrix::Zero(5, 2);                  // 10
  s.b_o = attnlab::Vector::Zero(2);            // 2
  s.mask.cells = Matrix::Zero(2, 4);           // 8
  EXPECT_EQ(s.number_count(), 6u + 12 + 6 + 3 + 10 + 2 + 8);
  s.heads.clear();
  s.full.W_k = Matrix::Zero(3, 4);             // 12 instead of the heads' 9
  EXPECT_EQ(s.number_count(), 6u + 12 + 12 + 10 + 2 + 8);
}

TEST(Scale, DefaultIsInverseSqrtDkAndNumbersMultiply) {
  Scenario s = random_scenario(3, 8, 2, 5);  // d_k = 4
  attnlab::Trace t = attnlab::compute(s);
  EXPECT_LT(max_abs_diff(t.scaled(1), t.heads[1].scores / 2.0), 1e-15);
  s.scale = {attnlab::Scale::Kind::value, 0.25};
  t = attnlab::compute(s);
  EXPECT_LT(max_abs_diff(t.scaled(1), t.heads[1].scores * 0.25), 1e-15);
}

TEST(Random, SameSeedSameNumbersDifferentSeedDifferent) {
  attnlab::RandomSpec spec;
  spec.kind = attnlab::RandomSpec::Kind::randint;
  spec.seed = 42;
  const Matrix a = attnlab::random_matrix(3, 3, spec, 1), b = attnlab::random_matrix(3, 3, spec, 1);
  EXPECT_EQ(a, b);
  EXPECT_TRUE(((a.array() >= 0) && (a.array() < 3) && (a.array() == a.array().floor())).all());
  spec.seed = 43;
  EXPECT_NE(a, attnlab::random_matrix(3, 3, spec, 1));
  spec.kind = attnlab::RandomSpec::Kind::xavier;
  const Matrix x = attnlab::random_matrix(6, 10, spec, 2);
  EXPECT_LE(x.cwiseAbs().maxCoeff(), std::sqrt(6.0 / 16));
  spec.kind = attnlab::RandomSpec::Kind::normal;
  const Matrix n = attnlab::random_matrix(200, 200, spec, 3);
  const double mean = n.mean(), var = (n.array() - mean).square().mean();
  EXPECT_NEAR(mean, 0.0, 0.02);
  EXPECT_NEAR(var, 1.0, 0.03);
}

TEST(Random, RandomizeKeepsShapesAndIdentityProjections) {
  Scenario s = random_scenario(3, 4, 2, 1);
  s.full.W_v.reset();
  const Scenario before = s;
  attnlab::randomize_weights(s, attnlab::RandomSpec{});
  EXPECT_FALSE(s.full.W_v.has_value());
  EXPECT_EQ(s.full.W_q->rows(), 4);
  EXPECT_NE(*s.full.W_q, *before.full.W_q);
  EXPECT_EQ(s.X, before.X);
  EXPECT_NO_THROW(attnlab::validate(s));
}

TEST(ScenarioFile, SaveThenLoadGivesTheSameScenarioToTheLastBit) {
  Scenario s = random_scenario(4, 6, 2, 21);
  s.title = "round trip";
  s.tokens = {"a", "b", "c", "d"};
  s.mask.causal = true;
  s.mask.padding = {2};
  s.mask.cells = Matrix::Ones(4, 4);
  s.scale = {attnlab::Scale::Kind::value, 0.3};
  s.view = {{"selected_head", 1}};
  const std::string path = (std::filesystem::temp_directory_path() / "attnlab_round_trip.json").string();
  attnlab::save_scenario(s, path);
  const Scenario back = attnlab::load_scenario(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back.X, s.X);
  EXPECT_EQ(*back.full.W_q, *s.full.W_q);
  EXPECT_EQ(*back.full.b_q, *s.full.b_q);
  EXPECT_EQ(*back.W_o, *s.W_o);
  EXPECT_EQ(back.tokens, s.tokens);
  EXPECT_EQ(back.mask.padding, s.mask.padding);
  EXPECT_TRUE(back.mask.causal);
  EXPECT_EQ(back.scale.value, 0.3);
  EXPECT_EQ(back.view["selected_head"], 1);
  EXPECT_EQ(attnlab::scenario_to_json(back), attnlab::scenario_to_json(s));
}

// A regular file is mapped and the zeros after its end in the last page end its text; a file of
// whole pages has none there and a pipe cannot be mapped: both are read, to the same scenario.
TEST(ScenarioFile, AFileOfWholePagesAFileOneByteShortAndAPipeReadAlike) {
  const std::string text = attnlab::scenario_to_text(random_scenario(6, 8, 2, 38));
  const auto dir = std::filesystem::temp_directory_path() / ("attnlab_file_text_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t whole = (text.size() / page + 1) * page;
  for (const std::size_t size : {whole, whole - 1, whole + 1}) {
    // Padded with spaces after the object: the same scenario, `size` bytes.
    const std::string padded = text + std::string(size - text.size(), ' ');
    const std::string path = (dir / ("s" + std::to_string(size) + ".json")).string();
    std::ofstream(path, std::ios::binary) << padded;
    ASSERT_EQ(std::filesystem::file_size(path), size);
    EXPECT_EQ(attnlab::scenario_to_text(attnlab::load_scenario(path)), text) << size << " bytes";
    // A number cut at the file's end is not continued by what follows it in memory.
    const std::string cut = (dir / ("cut" + std::to_string(size) + ".json")).string();
    std::ofstream(cut, std::ios::binary) << std::string(size - 9, ' ') << "{\"X\": [[1";
    EXPECT_THROW(attnlab::load_scenario(cut), attnlab::ScenarioError) << size << " bytes";
  }
  const std::string fifo = (dir / "pipe.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
  const Scenario from_pipe = attnlab::load_scenario(fifo);
  writer.join();
  EXPECT_EQ(attnlab::scenario_to_text(from_pipe), text);
  std::filesystem::remove_all(dir);
}

TEST(ScenarioFile, AtomicWriteReplacesAndLeavesNoTemporaryFile) {
  const auto dir = std::filesystem::temp_directory_path() / "attnlab_atomic";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "s.json").string();
  attnlab::write_file_atomically(path, "old");
  attnlab::write_file_atomically(path, "new contents");
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "new contents");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
  std::filesystem::remove_all(dir);
  EXPECT_THROW(attnlab::write_file_atomically("/nonexistent-dir/x.json", "x"), std::runtime_error);
}

TEST(TraceText, PrintsLikeNumPy) {
  Matrix m(2, 3);
  m << 0.3638497, -1.3416, 2, 0.5, -kInf, 0.25;
  EXPECT_EQ(attnlab::format_matrix(m, 8), "[[ 0.3638497 -1.3416     2.       ]\n [ 0.5             -inf  0.25     ]]");
  Matrix ints(1, 3);
  ints << 2, 4, 4;
  EXPECT_EQ(attnlab::format_matrix(ints, 8), "[[2. 4. 4.]]");
}

TEST(TraceJson, MinusInfinityIsNull) {
  Matrix m(1, 2);
  m << 1.5, -kInf;
  EXPECT_EQ(attnlab::matrix_to_json(m).dump(), "[[1.5,null]]");
}

}  // namespace

}  // namespace test_core
