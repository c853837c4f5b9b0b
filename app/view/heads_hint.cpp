#include "view/heads_hint.h"
#include "attnlab/numbering.h"

#include <cstdio>

namespace attnlab::app {
namespace {

// Grouped-query attention: " Heads 0-1 share K/V head 0, heads 2-3 K/V head 1." (empty without).
std::string GroupsText(const attnlab::Trace& trace) {
  const int H = int(trace.heads.size());
  const int G = trace.heads.back().kv_head + 1;
  if (G == H) return {};
  if (G == 1) return " All " + std::to_string(H) + " heads share one K/V head (multi-query).";
  std::string out;
  for (int first = 0; first < H;) {
    int last = first;
    while (last + 1 < H && trace.heads[std::size_t(last + 1)].kv_head == trace.heads[std::size_t(first)].kv_head) ++last;
    out += (out.empty() ? " Heads " : ", heads ") + attnlab::index_text(first) + "\xE2\x80\x93" +
           attnlab::index_text(last) + (out.empty() ? " share K/V head " : " K/V head ") +
           attnlab::index_text(trace.heads[std::size_t(first)].kv_head);
    first = last + 1;
  }
  return out + ".";
}

}  // namespace

// "Attention weights of every head, 256×256 each, queries down, keys across. Click one to
// select it." (the columns layout has keys down)
std::string HeadsHint(const attnlab::Trace& trace, const AxisLabels& labels) {
  const attnlab::Matrix& weights = trace.heads.front().weights;
  char hint[192];
  std::snprintf(hint, sizeof hint,
                "Attention weights of every head, %d\xC3\x97%d each, %s down, %s across. Click one "
                "to select it; uncheck \xE2\x80\x9Con\xE2\x80\x9D to switch a head off.",
                int(weights.rows()), int(weights.cols()), labels.row_axis, labels.col_axis);
  return hint + GroupsText(trace);
}

}  // namespace attnlab::app
