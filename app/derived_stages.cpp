#include "derived_stages.h"

namespace attnlab::app {
namespace {

// Above every Scenario version, so a derived matrix never shares a cache key with a trace's.
std::uint64_t next_version = std::uint64_t{1} << 62;

}  // namespace

void DerivedStages::Update(const attnlab::Trace& trace, std::uint64_t trace_version, int head) {
  if (trace_version == trace_version_ && head == head_) return;
  const auto h = static_cast<std::size_t>(head);
  scaled_ = trace.scaled(h);
  masked_ = trace.masked(h);
  trace_version_ = trace_version;
  head_ = head;
  version_ = ++next_version;
}

}  // namespace attnlab::app
