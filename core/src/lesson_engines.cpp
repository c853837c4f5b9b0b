// The lesson steps of attention as engines run it: FlashAttention's tiles and the KV cache's
// decoding, their runs and their words with the live numbers.
#include "lesson_engines.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "attnlab/number_format.h"
#include "attnlab/numbering.h"

namespace attnlab::lesson {
namespace {

std::string quoted(const std::vector<std::string>& names, long i) { return "'" + names[std::size_t(i)] + "'"; }
const char* kTimes = "\xC3\x97";
const char* kMinus = " \xE2\x88\x92 ";

std::string range(long first, long count) {
  return count == 1 ? std::to_string(first) : std::to_string(first) + "\xE2\x80\x93" + std::to_string(first + count - 1);
}

std::string index_list(const std::vector<int>& js) {
  std::string out;
  for (int j : js) out += (out.empty() ? "" : ", ") + std::to_string(j);
  return out;
}

// A rounding difference, e.g. "2e-16" (or "0").
std::string tiny(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0e", v);
  return v == 0 ? "0" : text;
}

// "7 'a', 8 'tiny'"
std::string named_list(const std::vector<int>& js, const std::vector<std::string>& tokens) {
  std::string out;
  for (int j : js) out += (out.empty() ? "" : ", ") + std::to_string(j) + " " + quoted(tokens, j);
  return out;
}

long blocks(long n, int size) { return (n + size - 1) / size; }

// What one row of the tile did to m, l and O, its numbers as the cells write them at the user's
// decimals, e.g. "m was 1.20, the tile's max is 1.75, so O and l are multiplied by
// exp(1.20 \u2212 1.75) = 0.58" (a negative m bracketed after the minus: "exp(\u22122.43 \u2212 (\u22122.20))").
std::string row_rescale(const FlashRowStep& x, int decimals) {
  const auto num = [decimals](double v) { return format_number(v, decimals); };
  const auto factor = [&num](double v) { return v < 0 ? "(" + num(v) + ")" : num(v); };
  if (!std::isfinite(x.tile_max)) return "no visible key here, nothing changes";
  if (!std::isfinite(x.m_before))
    return "its first visible keys: m = " + num(x.m) + ", \xCE\xB1 = 0 (nothing summed yet to rescale)";
  if (x.m > x.m_before)
    return "m was " + num(x.m_before) + ", the tile's max is " + num(x.tile_max) +
           ", so O and l are multiplied by exp(" + num(x.m_before) + kMinus + factor(x.m) + ") = " +
           num(x.alpha);
  return "the tile's max " + num(x.tile_max) + " is not above m = " + num(x.m_before) +
         ": m stays, \xCE\xB1 = 1";
}

std::string explain_tile(const FlashRun& run, std::size_t k, const Trace& t, const std::vector<std::string>& queries,
                         int decimals) {
  const FlashTile& tile = run.tiles[k];
  std::string out = "Tile " + std::to_string(k + 1) + " of " + std::to_string(run.tiles.size()) + ": queries " +
                    range(tile.row0, tile.rows) + " against keys " + range(tile.col0, tile.cols) + ".";
  if (tile.skipped)
    return out + " Every score in it is masked: the tile is skipped, never read, and m, l and O carry over. " +
           std::to_string(run.skipped) + " of the " + std::to_string(run.tiles.size()) + " tiles are skipped.";
  for (Eigen::Index i = tile.row0; i < tile.row0 + tile.rows; ++i)
    out += std::string(i > tile.row0 ? "; row " : " Row ") + std::to_string(i) + " " + quoted(queries, i) + ": " +
           row_rescale(flash_row_step(run, t, k, i), decimals);
  out += ". Then l = \xCE\xB1 l + rowsum P and O = \xCE\xB1 O + P V, with P = exp(S" + std::string(kMinus) + "m).";
  if (tile.k_block + 1 == run.k_blocks)
    out += " The row block is done: O / l is its rows of the head output, as in the Pipeline.";
  return out;
}

// The largest |decoded - full| over the output row of token t (the trace's layout).
double row_difference(const DecodeStep& step, const Trace& t) {
  const bool rows = t.layout == Layout::rows;
  double worst = 0;
  for (Eigen::Index c = 0; c < step.output.size(); ++c)
    worst = std::max(worst, std::fabs(step.output(c) - (rows ? t.output(step.token, c) : t.output(c, step.token))));
  return worst;
}

std::vector<int> evicted(const std::vector<int>& before, const std::vector<int>& after) {
  std::vector<int> out;
  for (int j : before)
    if (!std::binary_search(after.begin(), after.end(), j)) out.push_back(j);
  return out;
}

std::string cache_words(const Scenario& s, const std::vector<int>& cache) {
  const int g = s.kv_head_count();
  return "the cache holds tokens " + index_list(cache) + " (" + std::to_string(cache.size()) + " keys and values in each of " +
         std::to_string(g) + " K/V head" + (g == 1 ? "" : "s") + ")";
}

std::string explain_prefill(const Scenario& s, const Decode& d, const std::vector<std::string>& tokens) {
  if (d.prefill == 0)
    return "No prefill: the cache starts empty, and every token is decoded alone, starting with " + quoted(tokens, 0) + ".";
  return "Prefill: tokens 0" + std::string(d.prefill > 1 ? "\xE2\x80\x93" + std::to_string(d.prefill - 1) : "") +
         " are computed at once, as ordinary causal attention; " + cache_words(s, d.prefill_cache) +
         ". Then one token at a time, starting with " + quoted(tokens, d.prefill) + ".";
}

std::string sinks_words(const Scenario& s, const DecodeStep& step) {
  std::vector<int> kept;  // sinks the window alone would have evicted
  for (int j : step.cache)
    if (s.mask.sink(j) && s.mask.window > 0 && step.token - j >= s.mask.window) kept.push_back(j);
  if (kept.empty()) return "";
  return " The sink" + std::string(kept.size() > 1 ? "s " : " ") + index_list(kept) + " stay, outside the window of " +
         std::to_string(s.mask.window) + ".";
}

std::string explain_token(const Scenario& s, const Trace& t, const Decode& d, int index, int head,
                          const std::vector<std::string>& tokens, int decimals) {
  const DecodeStep& step = d.steps[std::size_t(index)];
  const std::vector<int>& before = index > 0 ? d.steps[std::size_t(index) - 1].cache : d.prefill_cache;
  std::string out = "Token " + std::to_string(step.token) + " " + quoted(tokens, step.token) +
                    " arrives: its key and value join the cache; " + cache_words(s, step.cache) + ".";
  const std::vector<int> gone = evicted(before, step.cache);
  if (!gone.empty()) out += " Evicted: " + named_list(gone, tokens) + ", which no query from here on may see.";
  out += sinks_words(s, step);
  const Vector& w = step.weights[std::size_t(head)];
  Eigen::Index top = 0;
  w.maxCoeff(&top);
  out += " Its query (" + head_label(head) + ") gives its largest weight, " +
         format_number(w(top), decimals) + ", to " + quoted(tokens, step.cache[std::size_t(top)]) +
         ". Its output row equals row " + std::to_string(step.token) +
         " of the full computation (largest difference " + tiny(row_difference(step, t)) + ").";
  return out;
}

}  // namespace

FlashRun tiles_run(const Step& step, const Trace& t, int head) {
  if (head < 0 || head >= int(t.heads.size()))
    throw std::invalid_argument("no " + head_label(head));
  const Matrix& scores = t.heads[std::size_t(head)].scores;
  if (scores.size() > kMaxTilesStepScores)
    throw std::invalid_argument("a tiles step shows heads of up to " + std::to_string(kMaxTilesStepScores) +
                                " scores; this one has " + std::to_string(scores.rows()) + kTimes +
                                std::to_string(scores.cols()));
  return flash_attention(t, head, step.block_rows, step.block_cols);
}

std::size_t shown_tile(const Step& step, const FlashRun& run) {
  return std::min(std::size_t(std::max(0, step.tile)), run.tiles.empty() ? 0 : run.tiles.size() - 1);
}

std::vector<TileBox> tile_boxes(const FlashRun& run) {
  const bool rows = run.layout == Layout::rows;
  std::vector<TileBox> out;
  for (const FlashTile& t : run.tiles)
    out.push_back(rows ? TileBox{int(t.row0), int(t.col0), int(t.rows), int(t.cols), t.skipped}
                       : TileBox{int(t.col0), int(t.row0), int(t.cols), int(t.rows), t.skipped});
  return out;
}

Decode decode_run(const Step& step, const Scenario& s) {
  check_decodable(s);
  return decode(s, std::clamp(step.prefill, 0, std::max(0, s.n_x() - 1)));
}

int shown_token(const Step& step, const Decode& d) {
  if (step.token < 0 || d.steps.empty()) return -1;
  return std::clamp(step.token - d.prefill, 0, int(d.steps.size()) - 1);
}

std::string engine_title(const Step& step, const Scenario& s, int head) {
  const std::string of_head = s.head_count() > 1 ? " (" + head_label(head) + ")" : "";
  if (step.kind == StageId::tiles) {
    const long count = blocks(s.n_x(), step.block_rows) * blocks(s.n_z(), step.block_cols);
    const long tile = std::min<long>(step.tile, std::max(0L, count - 1));
    return "FlashAttention in " + std::to_string(step.block_rows) + kTimes + std::to_string(step.block_cols) +
           " tiles: tile " + std::to_string(tile + 1) + " of " + std::to_string(count) + of_head;
  }
  const int n = s.n_x();
  if (step.token < 0) return "The KV cache: the prefill of " + std::to_string(std::min(step.prefill, n - 1)) + " tokens";
  const int t = std::min(step.token, n - 1);
  const std::string name = t < int(s.tokens.size()) ? " '" + s.tokens[std::size_t(t)] + "'" : "";
  return "The KV cache: decoding token " + std::to_string(t) + name + of_head;
}

std::string explain_tiles(const Step& step, const Trace& t, int head, const std::vector<std::string>& queries,
                          int decimals) {
  FlashRun run;
  try {
    run = tiles_run(step, t, head);
  } catch (const std::invalid_argument& e) {
    return std::string("The tiles step shows nothing here: ") + e.what() + ".";
  }
  const std::size_t k = shown_tile(step, run);
  const std::string beyond = std::size_t(step.tile) > k ? "This tiling has " + std::to_string(run.tiles.size()) +
                                                              " tiles: showing the last. " : "";
  return beyond + explain_tile(run, k, t, queries, decimals);
}

std::string tiles_prompt(const Step& step, const Scenario& s, const Trace& t, int head, int decimals) {
  std::string out = "Predict first: what is each row's running maximum m after this tile?";
  FlashRun run;
  try {
    run = tiles_run(step, t, std::clamp(head, 0, std::max(0, int(t.heads.size()) - 1)));
  } catch (const std::invalid_argument&) {
    return out;
  }
  const std::size_t k = shown_tile(step, run);
  const FlashTile& tile = run.tiles[k];
  const bool rows = t.layout == Layout::rows;
  Matrix masked;
  t.masked_into(std::size_t(run.head), masked);
  for (Eigen::Index r = 0; r < tile.rows && r < 8; ++r) {
    const Eigen::Index i = tile.row0 + r;
    const double before = flash_row_step(run, t, k, i).m_before;
    out += std::string(r ? "; row " : " Row ") + std::to_string(i) +
           (i < Eigen::Index(s.tokens.size()) ? " '" + s.tokens[std::size_t(i)] + "'" : "") + ": m " +
           (std::isfinite(before) ? "= " + format_number(before, decimals) + " so far" : "not set yet") + ", the tile's scores";
    for (Eigen::Index j = tile.col0; j < tile.col0 + tile.cols; ++j) {
      const double v = rows ? masked(i, j) : masked(j, i);
      out += std::string(j > tile.col0 ? ", " : " ") + format_number(v, decimals);
    }
  }
  return out + ".";
}

std::string explain_decode(const Step& step, const Scenario& s, const Trace& t, int head,
                           const std::vector<std::string>& tokens, int decimals) {
  Decode d;
  try {
    d = decode_run(step, s);
  } catch (const ScenarioError& e) {
    return std::string("The decode step shows nothing here: ") + e.what();
  }
  const int index = shown_token(step, d);
  return index < 0 ? explain_prefill(s, d, tokens) : explain_token(s, t, d, index, head, tokens, decimals);
}

}  // namespace attnlab::lesson
