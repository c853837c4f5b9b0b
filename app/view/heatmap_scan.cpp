#include "view/heatmap_scan.h"

#include <algorithm>
#include <cmath>

namespace attnlab::app {

ValueScan ScanValues(const attnlab::Matrix& m, bool integers) {
  ValueScan s;
  const double* v = m.data();
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    if (!std::isfinite(v[i])) {
      s.masked = s.masked || v[i] != INFINITY;  // -inf or NaN
      continue;
    }
    s.max_abs = std::max(s.max_abs, std::fabs(v[i]));
    s.negative = s.negative || v[i] < 0;
    if (integers) s.integers = s.integers && std::fabs(v[i] - std::round(v[i])) < 1e-9;
  }
  return s;
}

bool ScanCache::Key::operator==(const Key& o) const {
  return data == o.data && rows == o.rows && cols == o.cols && version == o.version &&
         integers == o.integers;
}

ScanCache::Entry* ScanCache::Find(const Key& key) {
  for (Entry& e : entries_)
    if (e.key == key) {
      e.used = true;
      return &e;
    }
  return nullptr;
}

std::optional<ValueScan> ScanCache::Values(const attnlab::Matrix& m, std::uint64_t version,
                                           bool integers, FrameWork& work) {
  const Key key{m.data(), m.rows(), m.cols(), version, integers};
  if (const Entry* e = Find(key)) return e->scan;
  if (!work.Take(m.size())) return std::nullopt;
  entries_.push_back({key, ScanValues(m, integers)});
  return entries_.back().scan;
}

std::optional<bool> ScanCache::AnyForbidden(const attnlab::BoolArray& allowed,
                                            std::uint64_t version, FrameWork& work) {
  const Key key{allowed.data(), allowed.rows(), allowed.cols(), version, false};
  if (const Entry* e = Find(key)) return e->any_forbidden;
  // A bool a cell, compared 32 at a time: an eighth of a value scan's cost.
  if (!work.Take(allowed.size() / 8)) return std::nullopt;
  entries_.push_back({key, {}, !allowed.all()});
  return entries_.back().any_forbidden;
}

void ScanCache::EndFrame() {
  entries_.erase(
      std::remove_if(entries_.begin(), entries_.end(), [](const Entry& e) { return !e.used; }),
      entries_.end());
  for (Entry& e : entries_) e.used = false;
}

}  // namespace attnlab::app
