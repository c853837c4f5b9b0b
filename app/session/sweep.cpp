#include "session/sweep.h"

#include <algorithm>
#include <cmath>

#include "attnlab/head_stats.h"

namespace attnlab::app {

std::string SweepPlayer::Start(Document& doc, const SweepSpec& spec, double now) {
  try {
    attnlab::Sweep ends;
    ends.param = spec.param;
    ends.from = spec.from;
    ends.to = spec.to;
    attnlab::check_sweep(doc.GetScenario(), ends);
  } catch (const attnlab::ScenarioError& e) {
    return e.what();
  }
  if (!(spec.seconds > 0) || !std::isfinite(spec.seconds)) return "duration: expected a positive number of seconds";
  samples_.clear();
  spec_ = spec;
  started_ = playing_ = true;
  elapsed_ = 0.0;
  resumed_at_ = now;
  own_version_ = 0;
  Tick(doc, now);
  return {};
}

void SweepPlayer::Pause(double now) {
  if (!playing_) return;
  elapsed_ = Elapsed(now);
  playing_ = false;
}

void SweepPlayer::Resume(double now) {
  if (!started_ || playing_) return;
  playing_ = true;
  resumed_at_ = now;
}

void SweepPlayer::Tick(Document& doc, double now) {
  // The user edited, undid or opened, playing or paused: the sweep (its value, "Resume", its
  // samples) belongs to a scenario that is gone.
  if (started_ && own_version_ != 0 && doc.Version() != own_version_) {
    playing_ = started_ = false;
    samples_.clear();
    return;
  }
  if (!playing_) return;
  const double t = Elapsed(now);
  const double value = spec_.ValueAt(t);
  if (spec_.repeat == attnlab::SweepRepeat::once && t >= spec_.seconds) Pause(now);
  if (own_version_ != 0 && value == value_) return;
  const bool applied = doc.ApplyEdit("sweep", [&](attnlab::Scenario& s) { attnlab::set_scenario_value(s, spec_.param, value); },
                                     /*coalesce=*/own_version_ != 0);
  if (!applied) {  // refused (e.g. an ALiBi slope whose scores overflow): stop where it was
    playing_ = false;
    return;
  }
  value_ = value;
  own_version_ = doc.Version();
}

void SweepPlayer::Record(const Document& doc, const attnlab::Trace& trace) {
  if (own_version_ == 0 || doc.TraceVersion() != own_version_ || recorded_version_ == own_version_) return;
  if (trace.heads.empty()) return;
  recorded_version_ = own_version_;
  SweepSample sample{value_, {}};
  for (std::size_t h = 0; h < trace.heads.size(); ++h) {
    const attnlab::HeadStats stats = attnlab::head_stats(trace, h);
    double sum = 0.0;
    for (double e : stats.entropy) sum += e;
    sample.mean_entropy.push_back(stats.entropy.empty() ? 0.0 : sum / double(stats.entropy.size()));
  }
  const auto at = std::lower_bound(samples_.begin(), samples_.end(), value_,
                                   [](const SweepSample& s, double v) { return s.value < v; });
  if (at != samples_.end() && at->value == value_) *at = std::move(sample);
  else samples_.insert(at, std::move(sample));
}

}  // namespace attnlab::app
