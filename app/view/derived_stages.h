#pragma once
/// The scaled and masked stages of one head, materialised for the heatmaps. The Trace stores
/// neither (trace.h: lazy expressions), but the heatmap widget needs a Matrix that stays put.
#include <cstdint>

#include "attnlab/matrix.h"
#include "attnlab/trace.h"
#include "view/frame_work.h"

namespace attnlab::app {

/// Holds one head's S', S'' and, with ALiBi, B, with a softcap, the capped S' (scores-shaped
/// matrices), never all heads'.
class DerivedStages {
 public:
  /// Brings each stage up to `trace_version` and `head` if it differs and `work` allows: one
  /// scores-sized matrix each (at 2048 tokens, 32 MB to fill: the first time, page faults
  /// included, about 20 ms each, so a large trace gets them in two frames).
  void Update(const attnlab::Trace& trace, std::uint64_t trace_version, int head, FrameWork& work);

  const attnlab::Matrix& Scaled() const { return scaled_.m; }  ///< S' = scale S, scores' shape
  const attnlab::Matrix& Masked() const { return masked_.m; }  ///< S'', -inf where forbidden
  const attnlab::Matrix& Bias() const { return bias_.m; }      ///< ALiBi's B (empty without ALiBi)
  const attnlab::Matrix& Capped() const { return capped_.m; }  ///< c tanh(S' / c) (empty without a softcap)
  /// Change on every recompute (unique among this object's stages), for
  /// HeatmapSpec::data_version: the widget caches on data pointer + version, and the pointer
  /// stays when only the head changes.
  std::uint64_t ScaledVersion() const { return scaled_.version; }
  std::uint64_t MaskedVersion() const { return masked_.version; }
  std::uint64_t BiasVersion() const { return bias_.version; }
  std::uint64_t CappedVersion() const { return capped_.version; }
  /// False while the stage held is older than the last Update asked for.
  bool ScaledCurrent() const { return scaled_.current; }
  bool MaskedCurrent() const { return masked_.current; }
  bool BiasCurrent() const { return bias_.current; }
  bool CappedCurrent() const { return capped_.current; }

 private:
  struct Stage {
    attnlab::Matrix m;
    std::uint64_t trace_version = 0;
    int head = -1;
    std::uint64_t version = 0;
    bool current = false;
  };
  template <typename Compute>
  void Refresh(Stage& stage, std::uint64_t trace_version, int head, Eigen::Index cells,
               FrameWork& work, Compute compute);
  Stage scaled_, masked_, bias_, capped_;
  /// Above every Scenario version, so a derived matrix never shares a cache key with a trace's.
  std::uint64_t next_version_ = std::uint64_t{1} << 62;
};

}  // namespace attnlab::app
