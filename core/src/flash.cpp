// FlashAttention-2's forward loop, tile by tile, on a computed trace's own masked scores.
#include "attnlab/flash.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "attnlab/number_format.h"
#include "attnlab/numbering.h"
#include "attnlab/trace_io.h"

namespace attnlab {
namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

/// One head's inputs to the loop, queries as rows whatever the trace's layout.
struct HeadInputs {
  Matrix S;           ///< n_x by n_z: the masked stage (-infinity where masked)
  BoolArray allowed;  ///< n_x by n_z
  Matrix V;           ///< n_z by d_v
  Eigen::Index d_k = 0;
};

HeadInputs head_inputs(const Trace& t, int head) {
  const bool rows = t.layout == Layout::rows;
  HeadInputs in;
  t.masked_into(std::size_t(head), in.S);
  const HeadTrace& h = t.heads[std::size_t(head)];
  if (rows) {
    in.allowed = t.allowed;
    in.V = h.V;
  } else {
    in.S.transposeInPlace();
    in.allowed = t.allowed.transpose();
    in.V = h.V.transpose();
  }
  in.d_k = rows ? h.Q.cols() : h.Q.rows();
  return in;
}

/// The running state of one query block: m, l, O (queries as rows).
struct BlockState {
  Vector m, l;
  Matrix O;
};

/// m_new = max(m, rowmax S), alpha = exp(m - m_new) (0 while m is -infinity), P = exp(S - m_new)
/// (0 where masked), l = alpha l + rowsum P, O = diag(alpha) O + P V.
void update(const HeadInputs& in, FlashTile& tile, BlockState& s) {
  tile.alpha.resize(tile.rows);
  for (Eigen::Index i = 0; i < tile.rows; ++i) {
    const auto S = in.S.row(tile.row0 + i).segment(tile.col0, tile.cols);
    const double m_new = std::max(s.m(i), S.maxCoeff());
    const double alpha = s.m(i) == kMinusInfinity ? 0.0 : std::exp(s.m(i) - m_new);
    tile.alpha(i) = alpha;
    s.l(i) *= alpha;
    s.O.row(i) *= alpha;
    s.m(i) = m_new;
    if (m_new == kMinusInfinity) continue;  // the row's keys in this tile are all masked
    for (Eigen::Index j = 0; j < tile.cols; ++j) {
      if (!in.allowed(tile.row0 + i, tile.col0 + j)) continue;
      const double p = std::exp(S(j) - m_new);
      s.l(i) += p;
      s.O.row(i) += p * in.V.row(tile.col0 + j);
    }
  }
}

/// A tile of -infinity: m, l and O unchanged, alpha 1 (0 for a row with no visible key yet).
void skip(FlashTile& tile, const BlockState& s) {
  tile.alpha = (s.m.array() == kMinusInfinity).select(Vector::Zero(tile.rows), Vector::Ones(tile.rows));
}

/// O / l at the end of a row block; zeros for a query that saw no key or whose scores overflowed.
void finish(const Trace& t, int head, Eigen::Index row0, const BlockState& s, Matrix& output) {
  const std::size_t n_x = std::size_t(output.rows());
  for (Eigen::Index i = 0; i < s.O.rows(); ++i) {
    const std::size_t flag = std::size_t(head) * n_x + std::size_t(row0 + i);
    const bool nonfinite = flag < t.nonfinite.size() && t.nonfinite[flag];
    if (s.l(i) > 0 && !nonfinite) output.row(row0 + i) = s.O.row(i) / s.l(i);
    else output.row(row0 + i).setZero();
  }
}

FlashMemory memory(const HeadInputs& in, const FlashRun& run) {
  const long long n_x = in.S.rows(), n_z = in.S.cols(), d_k = in.d_k, d_v = in.V.cols();
  FlashMemory m;
  // Standard: S = Q K^T written, read by the softmax, A written, read with V, O written.
  m.standard_read = n_x * d_k + n_z * d_k + n_x * n_z + n_x * n_z + n_z * d_v;
  m.standard_written = n_x * n_z + n_x * n_z + n_x * d_v;
  // Tiled: each query block read once, each computed tile reads its K and V block, O written once.
  m.tiled_read = n_x * d_k;
  for (const FlashTile& tile : run.tiles)
    if (!tile.skipped) m.tiled_read += tile.cols * (d_k + d_v);
  m.tiled_written = n_x * d_v;
  return m;
}

Eigen::Index blocks(Eigen::Index n, int size) { return (n + size - 1) / size; }

}  // namespace

FlashRun flash_attention(const Trace& t, int head, int block_rows, int block_cols) {
  if (block_rows < 1 || block_cols < 1)
    throw std::invalid_argument("block sizes must be at least 1, got " + std::to_string(block_rows) + "x" +
                                std::to_string(block_cols));
  if (head < 0 || std::size_t(head) >= t.heads.size())
    throw std::invalid_argument(head_label(head) + ": the trace has " +
                                std::to_string(t.heads.size()) + " head(s)");
  const HeadInputs in = head_inputs(t, head);
  const Eigen::Index n_x = in.S.rows(), n_z = in.S.cols();
  FlashRun run;
  run.head = head;
  run.block_rows = block_rows;
  run.block_cols = block_cols;
  run.layout = t.layout;
  run.q_blocks = int(blocks(n_x, block_rows));
  run.k_blocks = int(blocks(n_z, block_cols));
  const long long tiles = (long long)run.q_blocks * run.k_blocks;
  if (tiles > kMaxFlashTiles)
    throw std::invalid_argument(std::to_string(block_rows) + "x" + std::to_string(block_cols) + " blocks make " +
                                std::to_string(tiles) + " tiles, at most " + std::to_string(kMaxFlashTiles));
  run.output = Matrix::Zero(n_x, in.V.cols());
  for (int qb = 0; qb < run.q_blocks; ++qb) {
    const Eigen::Index row0 = Eigen::Index(qb) * block_rows, rows = std::min<Eigen::Index>(block_rows, n_x - row0);
    BlockState s{Vector::Constant(rows, kMinusInfinity), Vector::Zero(rows), Matrix::Zero(rows, in.V.cols())};
    for (int kb = 0; kb < run.k_blocks; ++kb) {
      FlashTile tile;
      tile.q_block = qb;
      tile.k_block = kb;
      tile.row0 = row0;
      tile.rows = rows;
      tile.col0 = Eigen::Index(kb) * block_cols;
      tile.cols = std::min<Eigen::Index>(block_cols, n_z - tile.col0);
      tile.skipped = !in.allowed.block(row0, tile.col0, rows, tile.cols).any();
      if (tile.skipped) {
        skip(tile, s);
        ++run.skipped;
      } else {
        update(in, tile, s);
      }
      tile.m = s.m;
      tile.l = s.l;
      tile.O = s.O;
      run.tiles.push_back(std::move(tile));
    }
    finish(t, head, row0, s, run.output);
  }
  run.memory = memory(in, run);
  return run;
}

FlashRowStep flash_row_step(const FlashRun& run, const Trace& t, std::size_t tile, Eigen::Index query) {
  if (tile >= run.tiles.size())
    throw std::out_of_range("tile " + std::to_string(tile) + ": the run has " + std::to_string(run.tiles.size()));
  const FlashTile& now = run.tiles[tile];
  const Eigen::Index r = query - now.row0;
  if (r < 0 || r >= now.rows)
    throw std::out_of_range("query " + std::to_string(query) + " is not in tile " + std::to_string(tile) + "'s block");
  FlashRowStep step;
  step.o_before = Vector::Zero(now.O.cols());
  if (now.k_block > 0) {  // the state the previous tile of the same query block left
    const FlashTile& before = run.tiles[tile - 1];
    step.m_before = before.m(r);
    step.l_before = before.l(r);
    step.o_before = before.O.row(r).transpose();
  }
  const bool rows = t.layout == Layout::rows;
  const auto S = t.masked(std::size_t(run.head));
  for (Eigen::Index j = now.col0; j < now.col0 + now.cols; ++j)
    step.tile_max = std::max(step.tile_max, rows ? S(query, j) : S(j, query));
  step.m = now.m(r);
  step.alpha = now.alpha(r);
  return step;
}

namespace {

nlohmann::ordered_json numbers(const Vector& v) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i)
    out.push_back(std::isfinite(v(i)) ? nlohmann::ordered_json(v(i)) : nlohmann::ordered_json(nullptr));
  return out;
}

/// Queries as rows in, the run's layout out (the columns layout transposes).
nlohmann::ordered_json matrix_json(const Matrix& m, Layout layout) {
  const Matrix out = layout == Layout::rows ? m : Matrix(m.transpose());
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (Eigen::Index r = 0; r < out.rows(); ++r) rows.push_back(numbers(out.row(r).transpose()));
  return rows;
}

}  // namespace

nlohmann::ordered_json flash_to_json(const FlashRun& run) {
  nlohmann::ordered_json tiles = nlohmann::ordered_json::array();
  for (const FlashTile& tile : run.tiles)
    tiles.push_back({{"q_block", tile.q_block}, {"k_block", tile.k_block}, {"skipped", tile.skipped},
                     {"m", numbers(tile.m)}, {"l", numbers(tile.l)}, {"alpha", numbers(tile.alpha)},
                     {"O", matrix_json(tile.O, run.layout)}});
  const FlashMemory& m = run.memory;
  return {{"head", run.head},
          {"block", {run.block_rows, run.block_cols}},
          {"skipped", run.skipped},
          {"tiles", std::move(tiles)},
          {"output", matrix_json(run.output, run.layout)},
          {"memory",
           {{"unit", "elements"},
            {"tiled", {{"read", m.tiled_read}, {"written", m.tiled_written}}},
            {"standard", {{"read", m.standard_read}, {"written", m.standard_written}}}}}};
}

std::string flash_memory_line(const FlashMemory& m) {
  const long long tiled = m.tiled_read + m.tiled_written, standard = m.standard_read + m.standard_written;
  std::string line = "tiled: " + std::to_string(m.tiled_read) + " elements read, " + std::to_string(m.tiled_written) +
                     " written; standard: " + std::to_string(m.standard_read) + " read, " +
                     std::to_string(m.standard_written) + " written";
  if (tiled > 0) line += " (" + format_trimmed(double(standard) / double(tiled), 2) + "x the tiled traffic)";
  return line;
}

namespace {

/// A column of the text table, right-aligned to `width`.
std::string cell(const std::string& text, std::size_t width) {
  return std::string(width > text.size() ? width - text.size() : 0, ' ') + text;
}

std::string range(Eigen::Index a, Eigen::Index n) {
  return n == 1 ? std::to_string(a) : std::to_string(a) + "-" + std::to_string(a + n - 1);
}

/// "   3  (1, 0)    2-3   0-1      2   1.2000   1.4000   0.5800   0.3100 -0.2000"
void text_rows(std::ostream& out, const FlashRun& run, std::size_t k, int precision, std::size_t w) {
  const FlashTile& t = run.tiles[k];
  const std::string tile = "(" + std::to_string(t.q_block) + ", " + std::to_string(t.k_block) + ")";
  out << cell(std::to_string(k + 1), 4) << cell(tile, 8) << cell(range(t.row0, t.rows), 8) << cell(range(t.col0, t.cols), 8);
  if (t.skipped) {
    out << "   skipped: all masked, m l O carried over\n";
    return;
  }
  for (Eigen::Index i = 0; i < t.rows; ++i) {
    if (i > 0) out << std::string(28, ' ');
    out << cell(std::to_string(t.row0 + i), 7);
    for (double v : {t.m(i), t.l(i), t.alpha(i)}) out << cell(std::isfinite(v) ? format_fixed(v, precision) : "-inf", w);
    out << "  ";
    for (Eigen::Index c = 0; c < t.O.cols(); ++c) out << cell(format_fixed(t.O(i, c), precision), w);
    out << "\n";
  }
}

}  // namespace

std::string flash_to_text(const FlashRun& run, int precision) {
  std::ostringstream out;
  out << head_label(run.head) << ", blocks " << run.block_rows << "x" << run.block_cols << ": "
      << run.tiles.size() << " tiles, " << run.skipped << " skipped (all their scores masked)\n"
      << "one line per query after each tile: m the running max, l the running sum of exp(S - m),\n"
      << "alpha = exp(m before - m) the rescale, O the query's unnormalised output (O / l at the "
         "end)\n\n";
  const std::size_t w = std::size_t(precision) + 6;  // "-12." and the digits, one space apart
  out << cell("tile", 4) << cell("(q, k)", 8) << cell("queries", 8) << cell("keys", 8) << cell("query", 7) << cell("m", w)
      << cell("l", w) << cell("alpha", w) << "  O\n";
  for (std::size_t k = 0; k < run.tiles.size(); ++k) text_rows(out, run, k, precision, w);
  out << "\noutput =\n"
      << format_matrix(run.layout == Layout::rows ? run.output : Matrix(run.output.transpose()), precision) << "\n"
      << "memory: " << flash_memory_line(run.memory) << "\n";
  return out.str();
}

}  // namespace attnlab
