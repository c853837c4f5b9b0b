#pragma once
/// The whole-matrix work (value scans, texture builds) the UI thread may do in one frame. A large
/// trace arrives with dozens of 4M-cell matrices; doing all of their work in the frame it arrives
/// in stalled the window for 100+ ms. With a budget it is spread over the next frames, and each
/// heatmap keeps drawing what it had (dimmed) until its turn comes.
#include <cstdint>

namespace attnlab::app {

class FrameWork {
 public:
  /// About 5 to 10 ms of scanning or pooling on this machine's cores (1 to 2 ns a cell).
  static constexpr std::int64_t kCellsPerFrame = std::int64_t{1} << 22;
  /// Jobs this small always run: a teaching-size heatmap is drawn in the frame of its edit.
  static constexpr std::int64_t kAlwaysCells = std::int64_t{1} << 16;

  void BeginFrame() {
    left_ = kCellsPerFrame;
    deferred_ = false;
  }
  /// No limit: a screenshot for the tests shows every heatmap finished, as a user sees it a few
  /// frames later.
  void SetUnlimited(bool unlimited) { unlimited_ = unlimited; }
  /// Whether a job of `cells` may run now (and counts it): while any budget is left, so one job
  /// larger than the budget still runs, alone. A refusal is remembered until the next frame.
  bool Take(std::int64_t cells) {
    if (unlimited_ || cells <= kAlwaysCells) return true;
    if (left_ <= 0) {
      deferred_ = true;
      return false;
    }
    left_ -= cells;
    return true;
  }
  /// Some job was refused this frame: another frame must be drawn to finish it.
  bool Deferred() const { return deferred_; }

 private:
  std::int64_t left_ = kCellsPerFrame;
  bool deferred_ = false;
  bool unlimited_ = false;
};

}  // namespace attnlab::app
