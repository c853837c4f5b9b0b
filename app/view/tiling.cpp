#include "view/tiling.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnlab::app {
namespace {

float Sum(const std::vector<float>& v) { return std::accumulate(v.begin(), v.end(), 0.0f); }

// A share that is not a positive finite number (a hand-edited settings file) counts as a small one.
float SaneShare(float share) { return std::isfinite(share) && share > 0.0f ? share : 0.01f; }

// Sizes before rounding: by share, each raised to its minimum (the others share what is left).
std::vector<float> ExactSizes(float total, const std::vector<float>& shares,
                              const std::vector<float>& mins) {
  const std::size_t n = shares.size();
  const float min_sum = Sum(mins);
  std::vector<float> sizes(n);
  if (min_sum >= total) {  // no room for the minimums: they shrink in proportion
    for (std::size_t i = 0; i < n; ++i) sizes[i] = min_sum > 0 ? mins[i] * total / min_sum : total / n;
    return sizes;
  }
  std::vector<bool> at_min(n, false);
  for (bool changed = true; changed;) {
    changed = false;
    float room = total, share_sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (at_min[i]) room -= mins[i];
      else share_sum += SaneShare(shares[i]);
    }
    for (std::size_t i = 0; i < n; ++i) {
      sizes[i] = at_min[i] ? mins[i] : room * SaneShare(shares[i]) / share_sum;
      if (!at_min[i] && sizes[i] < mins[i]) at_min[i] = changed = true;
    }
  }
  return sizes;
}

// The boxes of one column's slots, top to bottom, and the splitters between flexible neighbours.
void TileColumnSlots(const TileColumn& column, int c, const Box& box, float gap, Tiling* out) {
  const std::size_t n = column.slots.size();
  float fixed = gap * float(n > 0 ? n - 1 : 0);
  std::vector<float> shares, mins;
  for (const TileSlot& s : column.slots) {
    if (s.fixed > 0) {
      fixed += s.fixed;
      continue;
    }
    shares.push_back(s.share);
    mins.push_back(s.min);
  }
  const std::vector<float> flexible = Distribute(std::max(0.0f, box.h - fixed), shares, mins);
  float y = box.y;
  std::size_t f = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const TileSlot& s = column.slots[i];
    const float h = s.fixed > 0 ? std::min(s.fixed, box.Bottom() - y) : flexible[f++];
    out->tiles.push_back({s.key, {box.x, y, box.w, std::max(0.0f, h)}, c, int(i)});
    y += h;
    const bool splitter = i + 1 < n && s.fixed <= 0 && column.slots[i + 1].fixed <= 0;
    if (splitter) out->splitters.push_back({{box.x, y, box.w, gap}, false, c, int(i)});
    y = std::min(y + gap, box.Bottom());
  }
}

// The new shares of neighbours `a` and `b` (sizes `size_a`, `size_b`) once `a` takes `delta`
// pixels from `b`, neither going below its minimum.
void Trade(float& share_a, float& share_b, float size_a, float size_b, float min_a, float min_b,
           float delta) {
  const float both = size_a + size_b;
  if (both <= 0) return;
  const float lo = std::min(min_a, size_a), hi = both - std::min(min_b, size_b);
  const float new_a = std::clamp(size_a + delta, lo, std::max(lo, hi));
  const float share_sum = SaneShare(share_a) + SaneShare(share_b);
  share_a = share_sum * new_a / both;
  share_b = share_sum - share_a;
}

}  // namespace

std::vector<float> Distribute(float total, const std::vector<float>& shares,
                              const std::vector<float>& mins) {
  const std::vector<float> exact = ExactSizes(std::max(0.0f, std::floor(total)), shares, mins);
  // Whole pixels: round the running edges, so the sizes still add up to the total.
  std::vector<float> sizes(exact.size());
  float edge = 0, exact_edge = 0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    exact_edge += exact[i];
    const float next = std::round(exact_edge);
    sizes[i] = next - edge;
    edge = next;
  }
  return sizes;
}

Tiling TileArea(const Box& area, const std::vector<TileColumn>& columns, float gap) {
  Tiling out;
  const std::size_t n = columns.size();
  std::vector<float> shares, mins;
  for (const TileColumn& c : columns) {
    shares.push_back(c.share);
    mins.push_back(c.min);
  }
  const float gaps = gap * float(n > 0 ? n - 1 : 0);
  const std::vector<float> widths = Distribute(std::max(0.0f, area.w - gaps), shares, mins);
  float x = area.x;
  for (std::size_t c = 0; c < n; ++c) {
    const Box box{x, area.y, widths[c], area.h};
    out.columns.push_back(box);
    TileColumnSlots(columns[c], int(c), box, gap, &out);
    x += widths[c];
    if (c + 1 < n) out.splitters.push_back({{x, area.y, gap, area.h}, true, int(c), 0});
    x += gap;
  }
  return out;
}

void DragSplitter(std::vector<TileColumn>& columns, const Tiling& tiling, const Splitter& splitter,
                  float delta) {
  const int c = splitter.column;
  if (splitter.vertical) {
    if (c + 1 >= int(columns.size()) || c + 1 >= int(tiling.columns.size())) return;
    TileColumn &a = columns[c], &b = columns[c + 1];
    Trade(a.share, b.share, tiling.columns[c].w, tiling.columns[c + 1].w, a.min, b.min, delta);
    return;
  }
  if (c >= int(columns.size())) return;
  std::vector<TileSlot>& slots = columns[c].slots;
  const int i = splitter.slot;
  if (i + 1 >= int(slots.size())) return;
  const Tile *ta = nullptr, *tb = nullptr;
  for (const Tile& t : tiling.tiles) {
    if (t.column != c) continue;
    if (t.slot == i) ta = &t;
    if (t.slot == i + 1) tb = &t;
  }
  if (!ta || !tb) return;
  Trade(slots[i].share, slots[i + 1].share, ta->box.h, tb->box.h, slots[i].min, slots[i + 1].min,
        delta);
}

}  // namespace attnlab::app
