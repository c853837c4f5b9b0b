#include "view/derived_stages.h"

namespace attnlab::app {

template <typename Compute>
void DerivedStages::Refresh(Stage& stage, std::uint64_t trace_version, int head, Eigen::Index cells,
                            FrameWork& work, Compute compute) {
  stage.current = stage.trace_version == trace_version && stage.head == head;
  if (stage.current || !work.Take(cells)) return;
  compute(stage.m);  // into the matrix held: same shape, same memory (no page faults)
  stage.trace_version = trace_version;
  stage.head = head;
  stage.version = ++next_version_;
  stage.current = true;
}

void DerivedStages::Update(const attnlab::Trace& trace, std::uint64_t trace_version, int head,
                           FrameWork& work) {
  const auto h = static_cast<std::size_t>(head);
  const Eigen::Index cells = trace.heads[h].scores.size();
  Refresh(scaled_, trace_version, head, cells, work,
          [&](attnlab::Matrix& m) { m = trace.scaled(h); });
  Refresh(masked_, trace_version, head, cells, work,
          [&](attnlab::Matrix& m) { trace.masked_into(h, m); });
  if (trace.has_bias())
    Refresh(bias_, trace_version, head, cells, work, [&](attnlab::Matrix& m) { m = trace.bias(h); });
  if (trace.has_softcap())
    Refresh(capped_, trace_version, head, cells, work, [&](attnlab::Matrix& m) { m = trace.capped(h); });
}

}  // namespace attnlab::app
