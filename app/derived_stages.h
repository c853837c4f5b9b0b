#pragma once
/// The scaled and masked stages of one head, materialised for the heatmaps. The Trace stores
/// neither (trace.h: lazy expressions), but the heatmap widget needs a Matrix that stays put.
#include <cstdint>

#include "attnlab/matrix.h"
#include "attnlab/trace.h"

namespace attnlab::app {

/// Holds one head's S' and S'' (two scores-shaped matrices), never all heads'.
class DerivedStages {
 public:
  /// Recomputes when `trace_version` or `head` differ from the last call.
  void Update(const attnlab::Trace& trace, std::uint64_t trace_version, int head);

  const attnlab::Matrix& Scaled() const { return scaled_; }  ///< S' = scale S, scores' shape
  const attnlab::Matrix& Masked() const { return masked_; }  ///< S'', -inf where forbidden
  /// Changes on every recompute (unique in the process), for HeatmapSpec::data_version: the
  /// widget caches on data pointer + version, and the pointer stays when only the head changes.
  std::uint64_t Version() const { return version_; }

 private:
  attnlab::Matrix scaled_, masked_;
  std::uint64_t trace_version_ = 0;
  int head_ = -1;
  std::uint64_t version_ = 0;
};

}  // namespace attnlab::app
