#include "view/label_fit.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "attnlab/text_fit.h"

namespace attnlab::app {

float WidthUpTo(const std::string& label, float cap, const TextWidthFn& width) {
  const double w = width_up_to(label, cap, [&](std::string_view prefix) { return width(std::string(prefix)); });
  return std::min(static_cast<float>(w), cap);
}

std::string ElideMiddle(const std::string& label, float max_width, const TextWidthFn& width) {
  if (WidthUpTo(label, max_width + 1.0f, width) <= max_width) return label;
  const std::string_view text(label);
  const auto shown = [&](std::size_t keep) {
    const std::size_t head = keep / 2, tail = keep - head;
    return label.substr(0, after_code_points(text, head)) + kEllipsis +
           label.substr(before_last_code_points(text, tail));
  };
  // The byte count bounds the code points; a candidate past them repeats text and cannot fit.
  const std::size_t keep = longest_fitting(label.size(), [&](std::size_t k) { return k == 0 || width(shown(k)) <= max_width; });
  return shown(keep);
}

namespace {

/// Where the first path in `text` starts: a word from '/' or "~/" (its '/'); a '/' inside a
/// message ("1/sqrt(d_k)") is not one.
std::size_t PathStart(const std::string& text) {
  if (text.rfind("/", 0) == 0 || text.rfind("~/", 0) == 0) return text.find('/');
  std::size_t first = std::string::npos;
  for (const char* start : {" /", " ~/"}) {
    const std::size_t at = text.find(start);
    if (at != std::string::npos) first = std::min(first, text.find('/', at));
  }
  return first;
}

}  // namespace

std::string ElideEnd(const std::string& text, float max_width, const TextWidthFn& width) {
  if (WidthUpTo(text, max_width + 1.0f, width) <= max_width) return text;
  const std::string_view view(text);
  const auto shown = [&](std::size_t keep) { return text.substr(0, after_code_points(view, keep)) + kEllipsis; };
  return shown(longest_fitting(text.size(), [&](std::size_t k) { return k == 0 || width(shown(k)) <= max_width; }));
}

std::string ElidePathStart(const std::string& text, float max_width, const TextWidthFn& width) {
  if (WidthUpTo(text, max_width + 1.0f, width) <= max_width) return text;
  const std::size_t root = PathStart(text);
  if (root == std::string::npos) return ElideEnd(text, max_width, width);  // a message: its start says what happened
  // Slashes left to right: the first tail that fits is the longest.
  for (std::size_t slash = text.find('/', root + 1); slash != std::string::npos; slash = text.find('/', slash + 1)) {
    std::string shown = text.substr(0, root) + kEllipsis + text.substr(slash);
    if (WidthUpTo(shown, max_width + 1.0f, width) <= max_width) return shown;
  }
  return ElideMiddle(text, max_width, width);
}

std::string FirstThatFits(const std::vector<std::string>& candidates, float max_width, const TextWidthFn& width) {
  for (const std::string& c : candidates)
    if (WidthUpTo(c, max_width + 1.0f, width) <= max_width) return c;
  return candidates.empty() ? std::string() : candidates.back();
}

bool TellsApart(const std::vector<std::string>& shown) {
  std::set<std::string> seen;
  for (const std::string& s : shown)
    if (s == kEllipsis || !seen.insert(s).second) return false;
  return true;
}

std::vector<std::string> ElideEach(const std::vector<std::string>& labels, float max_width,
                                   const TextWidthFn& width) {
  std::vector<std::string> out;
  out.reserve(labels.size());
  for (const std::string& l : labels) out.push_back(ElideMiddle(l, max_width, width));
  return out;
}

std::vector<std::string> ElideAll(const std::vector<std::string>& labels, float max_width, const TextWidthFn& width) {
  return ElideAll(labels, std::vector<float>(labels.size(), max_width), width);
}

std::vector<std::string> ElideAll(const std::vector<std::string>& labels, const std::vector<float>& max_widths,
                                  const TextWidthFn& width) {
  std::vector<std::string> ends, middles;
  for (std::size_t i = 0; i < labels.size(); ++i) ends.push_back(ElideEnd(labels[i], max_widths[i], width));
  if (TellsApart(ends)) return ends;
  for (std::size_t i = 0; i < labels.size(); ++i) middles.push_back(ElideMiddle(labels[i], max_widths[i], width));
  return middles;
}

std::vector<UprightSpan> UprightLabelSpans(const std::vector<float>& widths, float cell, float gap) {
  const float own = std::max(1.0f, cell - 4.0f);
  const auto free_beside = [&](std::size_t j) { return std::max(0.0f, (own - std::min(widths[j], own)) * 0.5f - gap); };
  std::vector<UprightSpan> spans;
  for (std::size_t i = 0; i < widths.size(); ++i) {
    const float left = i > 0 ? free_beside(i - 1) : 0.0f;
    const float right = i + 1 < widths.size() ? free_beside(i + 1) : 0.0f;
    spans.push_back({2.0f - left, 2.0f + own + right});
  }
  return spans;
}

int LabelStride(float need, float cell) {
  if (cell <= 0) return 1;
  return std::max(1, static_cast<int>(std::ceil(need / cell - 1e-4f)));
}

float DrawnLabelsExtent(const std::vector<std::string>& labels, int stride, float cap, const TextWidthFn& width) {
  float widest = 0;
  for (std::size_t i = 0; i < labels.size(); i += std::size_t(std::max(stride, 1)))
    widest = std::max(widest, WidthUpTo(labels[i], cap, width));
  return widest;
}

ShortenedAxis ShortenAxisLabels(const std::vector<std::string>& all, int count, int step, float room, bool upright,
                             float cell, float gap, const TextWidthFn& width) {
  std::vector<int> at;
  std::vector<std::string> labels;
  std::vector<float> widths;
  for (int i = 0; i < count; i += step) {
    at.push_back(i), labels.push_back(all[std::size_t(i)]);
    widths.push_back(WidthUpTo(labels.back(), room * 3.0f, width));
  }
  ShortenedAxis out;
  std::vector<float> rooms(labels.size(), room);
  if (upright && step == 1) {
    out.spans = UprightLabelSpans(widths, cell, gap);
    for (std::size_t k = 0; k < rooms.size(); ++k) rooms[k] = out.spans[k].Room();
  }
  const std::vector<std::string> shown = ElideAll(labels, rooms, width);
  for (std::size_t k = 0; k < at.size(); ++k) out.drawn.emplace_back(at[k], shown[k]);
  return out;
}

}  // namespace attnlab::app
