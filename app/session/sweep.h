#pragma once
/// A sweep: one number of the scenario (cell_ref.h: `scale`, `X[0][1]`, `alibi[1]`, ...) moved
/// from one value to another over a few seconds while every stage follows. Each frame is a new
/// scenario version, computed as any edit is; the whole sweep is one undo step, and pausing
/// leaves the value where it is. GUI-free: the Sweep panel drives it with the frame's clock.
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/cell_ref.h"
#include "attnlab/sweep.h"
#include "session/document.h"

namespace attnlab::app {

struct SweepSpec {
  attnlab::CellRef param;
  double from = 0.0, to = 1.0;
  double seconds = 4.0;  ///< from `from` to `to`
  attnlab::SweepRepeat repeat = attnlab::SweepRepeat::bounce;

  /// The value `t` seconds into the sweep (attnlab::sweep_value_at).
  double ValueAt(double t) const { return attnlab::sweep_value_at(from, to, seconds, repeat, t); }
};

/// Mean entropy of each head's weights (nats, over the queries) at one value of the parameter:
/// what a scale sweep draws against the temperature.
struct SweepSample {
  double value = 0.0;
  std::vector<double> mean_entropy;  ///< one per head
};

class SweepPlayer {
 public:
  /// Checks that the parameter names a number of the document's scenario and that both ends are
  /// values it accepts (without changing the document); empty when so, else one line naming the
  /// parameter. Then starts playing from `from` at time `now` (seconds).
  std::string Start(Document& doc, const SweepSpec& spec, double now);
  /// Sets the value for time `now` (one coalesced edit; nothing when the value is unchanged).
  /// Stops by itself at the end of a Once sweep, and when the document changed under it (another
  /// edit, undo, open): the sweep then never overwrites what the user did, and is forgotten
  /// (not Started(), no samples), paused or not.
  void Tick(Document& doc, double now);
  /// Stops where it is: the value stays, and the sweep so far is one undo step.
  void Pause(double now);
  /// Plays on from where it paused.
  void Resume(double now);
  bool Playing() const { return playing_; }
  bool Started() const { return started_; }
  const SweepSpec& Spec() const { return spec_; }
  double Value() const { return value_; }
  /// Seconds played (pauses excluded).
  double Elapsed(double now) const { return playing_ ? elapsed_ + (now - resumed_at_) : elapsed_; }

  /// Records the head statistics of a trace computed while this sweep set the value (one sample
  /// per version; kept sorted by value, a value seen again replacing its sample).
  void Record(const Document& doc, const attnlab::Trace& trace);
  const std::vector<SweepSample>& Samples() const { return samples_; }

 private:
  SweepSpec spec_;
  bool started_ = false, playing_ = false;
  double elapsed_ = 0.0, resumed_at_ = 0.0, value_ = 0.0;
  std::uint64_t own_version_ = 0;      ///< the version the last tick made (0: none yet)
  std::uint64_t recorded_version_ = 0;
  std::vector<SweepSample> samples_;
};

}  // namespace attnlab::app
