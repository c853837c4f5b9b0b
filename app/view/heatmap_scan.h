#pragma once
/// Whole-matrix facts a heatmap needs (its colour range, number format, masked swatch), found in
/// one pass per matrix and data version, within the frame's work budget (frame_work.h).
#include <cstdint>
#include <optional>
#include <vector>

#include "attnlab/matrix.h"
#include "view/frame_work.h"

namespace attnlab::app {

struct ValueScan {
  double max_abs = 0;     ///< largest |finite value| (0 when there is none)
  bool masked = false;    ///< some cell is -inf or NaN (drawn masked)
  bool negative = false;  ///< some finite value is below 0
  bool integers = true;   ///< every finite value is whole (only looked for when asked)
};

/// One pass over `m`; `integers` costs a rounding a cell, so only printed values ask for it.
ValueScan ScanValues(const attnlab::Matrix& m, bool integers);

/// Scans by matrix (data pointer and shape) and data version: a frame asks for the same ones
/// several times (layout, then drawing), and a version's data never changes.
class ScanCache {
 public:
  /// The scan of `m` at `version`: cached, or done now if `work` allows, else none.
  std::optional<ValueScan> Values(const attnlab::Matrix& m, std::uint64_t version, bool integers,
                                  FrameWork& work);
  /// Whether some cell of `allowed` is false, cached the same way; none when refused.
  std::optional<bool> AnyForbidden(const attnlab::BoolArray& allowed, std::uint64_t version,
                                   FrameWork& work);
  /// Forgets what was not asked for since the previous call (panels closed, old versions).
  void EndFrame();

 private:
  struct Key {
    const void* data;
    Eigen::Index rows, cols;
    std::uint64_t version;
    bool integers;
    bool operator==(const Key& o) const;
  };
  struct Entry {
    Key key;
    ValueScan scan;
    bool any_forbidden = false;
    bool used = true;
  };
  Entry* Find(const Key& key);
  std::vector<Entry> entries_;  // a few dozen heatmaps are on screen: a linear search is enough
};

}  // namespace attnlab::app
