#pragma once
/// Per-head statistics of the attention weights, one value per query: how spread out each query's
/// attention is, where it peaks, how far it reaches. Computed from a Trace on request only.
#include <cstddef>
#include <vector>

#include "attnlab/trace.h"

namespace attnlab {

/// Each vector has n_x entries, entry i for query i (whatever the trace's layout).
/// A query whose weights are all zero (it may attend no key, or its scores overflowed) gets
/// entropy 0, max_weight 0, argmax -1, keys_for_90 0, first_key 0 and mean_distance 0.
struct HeadStats {
  std::vector<double> entropy;        ///< H_i = -sum_j a_ij ln a_ij, in nats (0 ln 0 = 0)
  std::vector<double> max_weight;     ///< max_j a_ij
  std::vector<double> first_key;      ///< a_i0: the weight on key 0 (an attention sink)
  std::vector<double> mean_distance;  ///< sum_j a_ij |p_i - c_j| (p, c: the tokens' positions)
  std::vector<int> argmax;            ///< the key of max_weight; on ties the lowest key index
  std::vector<int> keys_for_90;       ///< smallest k whose k largest weights sum to >= 0.9 - kKeysFor90Slack
};

/// Slack on keys_for_90's threshold: ten weights of 0.1 sum to 0.8999999999999999, not 0.9, and
/// rounding in the weights should not add a key.
inline constexpr double kKeysFor90Slack = 1e-9;

/// The statistics of head h's weights (n_x by n_z in the rows layout, n_z by n_x in the columns
/// layout), with the trace's query_positions (n_x) and key_positions (n_z); a trace without
/// positions (built by hand) counts its tokens 0, 1, 2, ...
/// O(n_x n_z log n_z): one sort of each query's weights, for keys_for_90.
HeadStats head_stats(const Trace& trace, std::size_t head);

}  // namespace attnlab
