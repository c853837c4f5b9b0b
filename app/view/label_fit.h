#pragma once
/// Token labels where room is short (GUI-free; the width of a text is measured by the caller):
/// shortened in the middle, so that labels sharing a beginning stay apart ("word_1", "word_2"
/// become "w…_1", "w…_2", not "wor." twice), or drawn only every k-th.
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::app {

/// Width of a text in pixels, as the font that draws it measures it.
using TextWidthFn = std::function<float(const std::string&)>;

/// The width of `label`, or `cap` when it is wider, measuring no more of it than the cap needs (a
/// 1 MB label costs what its first few hundred characters cost).
float WidthUpTo(const std::string& label, float cap, const TextWidthFn& width);

/// `label` itself when it fits in `max_width`, else as many of its first and last characters as
/// fit around a "…" (the end gets the odd one: it is where "_1" and "_2" differ); whole UTF-8
/// code points only; "…" alone when nothing more fits. O(k log k) for k characters shown.
std::string ElideMiddle(const std::string& label, float max_width, const TextWidthFn& width);

/// `text` itself when it fits in `max_width`, else its longest start that fits followed by "…".
std::string ElideEnd(const std::string& text, float max_width, const TextWidthFn& width);

/// `text` itself when it fits in `max_width`, else with the start of the path in it (a word from
/// '/' or "~/") replaced by "…" a whole directory at a time, keeping what comes before the path and
/// the longest tail that fits: "opened …/presets/x.json"; ElideMiddle when not even the file name
/// fits. Without a path (a refusal's message), ElideEnd: the start says what happened.
std::string ElidePathStart(const std::string& text, float max_width, const TextWidthFn& width);

/// The first of `candidates` (longest first) that fits in `max_width`; the last when none does.
std::string FirstThatFits(const std::vector<std::string>& candidates, float max_width, const TextWidthFn& width);

/// Whether `shown` (labels as shortened) still tells every token apart: no two alike, none
/// reduced to the ellipsis alone.
bool TellsApart(const std::vector<std::string>& shown);

/// Every label of `labels` through ElideMiddle.
std::vector<std::string> ElideEach(const std::vector<std::string>& labels, float max_width,
                                   const TextWidthFn& width);

/// `labels` shortened to `max_width` as a set: cut at the end ("tra…": a word is read from its
/// start) when that still tells them apart, else in the middle (ElideEach: "w…_1", "w…_2"). A
/// narrow column of a lecture's large font drew "translation" as "t…n".
std::vector<std::string> ElideAll(const std::vector<std::string>& labels, float max_width, const TextWidthFn& width);
/// As above, label i within `max_widths[i]`.
std::vector<std::string> ElideAll(const std::vector<std::string>& labels, const std::vector<float>& max_widths,
                                  const TextWidthFn& width);

/// Where upright labels over cells `cell` wide may lie (`widths`: each label's whole width): its
/// cell, less a margin of 2 each side, and what its neighbours' labels leave free of their halves
/// beyond a `gap` that keeps two labels apart (a short "is" beside "translation"); a long label
/// leaves none, so none overlap. The grid's ends leave none (an axis name or another map may be
/// there).
struct UprightSpan {
  float left = 0, right = 0;  ///< from the cell's left edge
  float Room() const { return right - left; }
};
std::vector<UprightSpan> UprightLabelSpans(const std::vector<float>& widths, float cell, float gap);

/// One axis's drawn labels: every `step`-th of the first `count` of `all`, shortened together
/// (ElideAll) to `room`; upright labels over every cell (step 1) also take what their neighbours
/// leave free of their `cell`-wide cells beyond `gap` (UprightLabelSpans, returned in `spans`).
struct ShortenedAxis {
  std::vector<std::pair<int, std::string>> drawn;  ///< (index, shown text)
  std::vector<UprightSpan> spans;
};
ShortenedAxis ShortenAxisLabels(const std::vector<std::string>& all, int count, int step, float room, bool upright,
                             float cell, float gap, const TextWidthFn& width);

/// Every how many-th label can be drawn along an axis of `cell`-pixel cells when each label needs
/// `need` pixels along that axis: 1 when they all fit.
int LabelStride(float need, float cell);

/// How far labels turned a quarter reach when every `stride`-th is drawn (labels 0, stride, 2
/// stride, ...): the widest of those, at most `cap`. A header sized by it is as tall as the labels
/// drawn need, not as the longest label, which may not be drawn at all.
float DrawnLabelsExtent(const std::vector<std::string>& labels, int stride, float cap, const TextWidthFn& width);

}  // namespace attnlab::app
