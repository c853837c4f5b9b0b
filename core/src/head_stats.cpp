#include "attnlab/head_stats.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

namespace attnlab {
namespace {

/// Position of token t: the trace's, or t itself when the trace carries none.
double position_of(const std::vector<double>& positions, Eigen::Index t) {
  return positions.empty() ? double(t) : positions[std::size_t(t)];
}

}  // namespace

HeadStats head_stats(const Trace& trace, std::size_t head) {
  if (head >= trace.heads.size())
    throw std::out_of_range("head_stats: head " + std::to_string(head) + " of " + std::to_string(trace.heads.size()));
  const Matrix& W = trace.heads[head].weights;
  const bool rows = trace.layout == Layout::rows;
  // A query is a row of W in the rows layout, a column in the columns layout.
  const Eigen::Index n_x = rows ? W.rows() : W.cols(), n_z = rows ? W.cols() : W.rows();
  const auto weight = [&](Eigen::Index i, Eigen::Index j) { return rows ? W(i, j) : W(j, i); };
  if ((!trace.query_positions.empty() && trace.query_positions.size() != std::size_t(n_x)) ||
      (!trace.key_positions.empty() && trace.key_positions.size() != std::size_t(n_z)))
    throw std::invalid_argument("head_stats: the trace's positions (" + std::to_string(trace.query_positions.size()) +
                                " queries, " + std::to_string(trace.key_positions.size()) + " keys) do not match " +
                                std::to_string(n_x) + "x" + std::to_string(n_z) + " weights");

  HeadStats s;
  const std::size_t n = std::size_t(n_x);
  s.entropy.assign(n, 0.0);
  s.max_weight.assign(n, 0.0);
  s.first_key.assign(n, 0.0);
  s.mean_distance.assign(n, 0.0);
  s.argmax.assign(n, -1);
  s.keys_for_90.assign(n, 0);
  std::vector<double> sorted(static_cast<std::size_t>(n_z));
  for (Eigen::Index i = 0; i < n_x; ++i) {
    const std::size_t q = std::size_t(i);
    double entropy = 0, max_weight = 0, distance = 0;
    int argmax = -1;
    const double p = position_of(trace.query_positions, i);
    for (Eigen::Index j = 0; j < n_z; ++j) {
      const double a = weight(i, j);
      sorted[std::size_t(j)] = a;
      if (a > 0) entropy -= a * std::log(a);  // 0 ln 0 = 0
      if (a > max_weight) max_weight = a, argmax = int(j);  // strict: ties keep the lowest key
      distance += a * std::abs(p - position_of(trace.key_positions, j));
    }
    if (argmax < 0) continue;  // all weights zero: the query attends nothing, the zeros stand
    s.entropy[q] = entropy;
    s.max_weight[q] = max_weight;
    s.argmax[q] = argmax;
    s.first_key[q] = weight(i, 0);
    s.mean_distance[q] = distance;
    // The largest weights first, summed in that order until they reach 0.9.
    std::sort(sorted.begin(), sorted.end(), std::greater<double>());
    double sum = 0;
    int k = 0;
    while (k < int(n_z) && sum < 0.9 - kKeysFor90Slack) sum += sorted[std::size_t(k++)];
    s.keys_for_90[q] = k;
  }
  return s;
}

}  // namespace attnlab
