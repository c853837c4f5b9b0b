// view/label_fit.h: labels shortened in the middle stay distinct and fit; strides.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "view/label_fit.h"

namespace test_label_fit {

namespace {

using attnlab::app::ElideMiddle;
using attnlab::app::LabelStride;

// A monospaced stand-in for the font: 10 pixels a code point (UTF-8 continuation bytes are free).
float Mono10(const std::string& s) {
  float w = 0;
  for (unsigned char c : s) w += (c & 0xC0) == 0x80 ? 0.0f : 10.0f;
  return w;
}

const std::string kEllipsis = "\xE2\x80\xA6";

// A set is cut at its ends where that tells its labels apart ("tra…", not "t…n"), else in the middle.
TEST(LabelFit, ASetIsCutAtTheEndWhenThatTellsItApart) {
  const std::vector<std::string> words = {"this", "is", "translation"};
  EXPECT_EQ(attnlab::app::ElideAll(words, 40, Mono10),
            (std::vector<std::string>{"this", "is", "tra" + kEllipsis}));
  // Upright over 44 px cells (40 px of room): "is" (20 px) leaves 10 px of its cell free, which
  // "translation" takes (50 px: "tran…"); "this" fills its cell and leaves "is" nothing; the grid's
  // ends give none. With a gap of 4 px between labels, 6 px.
  const std::vector<attnlab::app::UprightSpan> spans = attnlab::app::UprightLabelSpans({40, 20, 110}, 44, 0);
  EXPECT_EQ(attnlab::app::UprightLabelSpans({40, 20, 110}, 44, 4)[2].left, -4.0f);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].left, 2.0f);
  EXPECT_EQ(spans[0].right, 52.0f);
  EXPECT_EQ(spans[1].left, 2.0f);
  EXPECT_EQ(spans[1].right, 42.0f);
  EXPECT_EQ(spans[2].left, -8.0f);
  EXPECT_EQ(spans[2].right, 42.0f);
  const std::vector<float> rooms = {spans[0].Room(), spans[1].Room(), spans[2].Room()};
  EXPECT_EQ(attnlab::app::ElideAll(words, rooms, Mono10),
            (std::vector<std::string>{"this", "is", "tran" + kEllipsis}));
  const std::vector<std::string> numbered = {"word_1", "word_2"};
  EXPECT_EQ(attnlab::app::ElideAll(numbered, 40, Mono10),
            (std::vector<std::string>{"w" + kEllipsis + "_1", "w" + kEllipsis + "_2"}));
}

TEST(LabelFit, LabelsThatFitAreKept) {
  EXPECT_EQ(ElideMiddle("word_1", 60, Mono10), "word_1");
  EXPECT_EQ(ElideMiddle("", 0, Mono10), "");
}

TEST(LabelFit, SharedBeginningsStayDistinct) {
  // Machine Learning Mastery's tokens: cut at the end they would all read "wor.".
  const std::vector<std::string> tokens = {"word_1", "word_2", "word_3", "word_4"};
  for (float room : {20.0f, 30.0f, 40.0f, 50.0f}) {
    std::set<std::string> shown;
    for (const std::string& t : tokens) {
      const std::string s = ElideMiddle(t, room, Mono10);
      EXPECT_LE(Mono10(s), room) << s;
      EXPECT_NE(s.find(kEllipsis), std::string::npos) << s;
      shown.insert(s);
    }
    EXPECT_EQ(shown.size(), tokens.size()) << "room " << room;
  }
  EXPECT_EQ(ElideMiddle("word_1", 40, Mono10), "w" + kEllipsis + "_1");
  EXPECT_EQ(ElideMiddle("word_1", 50, Mono10), "wo" + kEllipsis + "_1");
}

TEST(LabelFit, WholeCodePointsAndTheEllipsisAlone) {
  // "über_straße": never half of a two-byte character.
  const std::string s = ElideMiddle(
      "\xC3\xBC"
      "ber_stra\xC3\x9F"
      "e",
      40, Mono10);
  EXPECT_EQ(s, "\xC3\xBC" + kEllipsis +
                   "\xC3\x9F"
                   "e");
  EXPECT_EQ(ElideMiddle("translation", 10, Mono10), kEllipsis);
  EXPECT_EQ(ElideMiddle("translation", 5, Mono10), kEllipsis);  // the ellipsis is the floor
}

TEST(LabelFit, TellsApartRefusesTwinsAndBareEllipses) {
  const std::vector<std::string> mlm = {"word_1", "word_2", "word_3", "word_4"};
  EXPECT_TRUE(attnlab::app::TellsApart(attnlab::app::ElideEach(mlm, 30, Mono10)));  // "…_1"
  EXPECT_FALSE(attnlab::app::TellsApart({"wor.", "wor."}));
  EXPECT_FALSE(attnlab::app::TellsApart(attnlab::app::ElideEach(mlm, 10, Mono10)));  // "…" each
  EXPECT_TRUE(attnlab::app::TellsApart({}));
}

TEST(LabelFit, StrideDrawsEveryKthLabelWhenCellsAreSmall) {
  EXPECT_EQ(LabelStride(16, 20), 1);
  EXPECT_EQ(LabelStride(16, 16), 1);
  EXPECT_EQ(LabelStride(16, 8), 2);
  EXPECT_EQ(LabelStride(16, 5), 4);
  EXPECT_EQ(LabelStride(16, 0), 1);
}

// The shortening as it was first written (one character less at a time, each candidate measured
// whole): the reference the faster search must agree with.
std::string ElideMiddleOneByOne(const std::string& label, float max_width) {
  if (Mono10(label) <= max_width) return label;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < label.size(); ++i)
    if ((static_cast<unsigned char>(label[i]) & 0xC0) != 0x80) at.push_back(i);
  at.push_back(label.size());
  const int n = static_cast<int>(at.size()) - 1;
  for (int keep = n - 1; keep >= 1; --keep) {
    const int head = keep / 2, tail = keep - head;
    const std::string s = label.substr(0, at[std::size_t(head)]) + kEllipsis + label.substr(at[std::size_t(n - tail)]);
    if (Mono10(s) <= max_width) return s;
  }
  return kEllipsis;
}

// The 12 keys of modern-kv-cache-window-sinks turned, every other drawn: the header needs "upon",
// "time", "tiny" (4 characters), not the undrawn "dreamed" (7).
TEST(LabelFit, TurnedLabelsReachAsFarAsTheDrawnOnes) {
  const std::vector<std::string> keys = {"<s>", "Once", "upon", "a", "time", "there", "was", "a", "tiny", "robot",
                                         "who", "dreamed"};
  EXPECT_EQ(attnlab::app::DrawnLabelsExtent(keys, 2, 100, Mono10), 40);
  EXPECT_EQ(attnlab::app::DrawnLabelsExtent(keys, 1, 100, Mono10), 70);
  EXPECT_EQ(attnlab::app::DrawnLabelsExtent(keys, 1, 50, Mono10), 50);  // capped
  EXPECT_EQ(attnlab::app::DrawnLabelsExtent(keys, 0, 100, Mono10), 70);  // a stride below 1 draws all
  EXPECT_EQ(attnlab::app::DrawnLabelsExtent({}, 2, 100, Mono10), 0);
}

TEST(LabelFit, TheSearchAgreesWithShorteningOneCharacterAtATime) {
  const std::vector<std::string> labels = {"translation", "word_1", "\xC3\xBC" "ber_stra\xC3\x9F" "e",
                                           std::string(37, 'q') + "_end", "ab", "a"};
  for (const std::string& label : labels)
    for (float room = 0; room <= 200; room += 5)
      EXPECT_EQ(ElideMiddle(label, room, Mono10), ElideMiddleOneByOne(label, room)) << label << " in " << room;
}

TEST(LabelFit, AHundredThousandCharacterLabelIsMeasuredLittle) {
  // Fitting it one character at a time measured ~10^10 characters (seconds a frame in the window).
  const std::string label = "start_" + std::string(100000, 'm') + "_end";
  std::size_t measured = 0;
  int calls = 0;
  const attnlab::app::TextWidthFn counting = [&](const std::string& s) {
    ++calls;
    measured += s.size();
    return Mono10(s);
  };
  const std::string shown = ElideMiddle(label, 120, counting);
  // The one-by-one reference would take seconds here: the same rule, checked directly.
  // 120 px hold 11 characters and the ellipsis: 5 from the start, 6 from the end (the odd one).
  EXPECT_EQ(shown, "start" + kEllipsis + "mm_end");
  EXPECT_LE(calls, 30);
  EXPECT_LE(measured, 2000u) << "no more of the label measured than the room needs";
  measured = 0;
  EXPECT_EQ(attnlab::app::WidthUpTo(label, 150, counting), 150.0f);
  EXPECT_LE(measured, 200u);
  EXPECT_EQ(attnlab::app::WidthUpTo("short", 150, Mono10), 50.0f);
}

// The status bar's "opened PATH" at 1280x800 in lecture mode: the path loses whole directories
// from its start, never its file name's end (it was cut at the window's edge).
TEST(LabelFit, PathsLoseTheirStartADirectoryAtATime) {
  const std::string status = "opened /work/main/assets/presets/vaswani-q2-is-attends.json";
  EXPECT_EQ(attnlab::app::ElidePathStart(status, 1000, Mono10), status);
  const std::string presets = "opened " + kEllipsis + "/presets/vaswani-q2-is-attends.json";
  EXPECT_EQ(attnlab::app::ElidePathStart(status, Mono10(presets), Mono10), presets);
  EXPECT_EQ(attnlab::app::ElidePathStart(status, Mono10(presets) + 55, Mono10), presets);
  const std::string name = "opened " + kEllipsis + "/vaswani-q2-is-attends.json";
  EXPECT_EQ(attnlab::app::ElidePathStart(status, Mono10(presets) - 1, Mono10), name);
  const std::string tight = attnlab::app::ElidePathStart(status, 200, Mono10);  // not even the name
  EXPECT_LE(Mono10(tight), 200.0f) << tight;
  EXPECT_EQ(tight.substr(tight.size() - 5), ".json") << tight;
  // A refusal's message keeps its start (the window test of hostile files reads the title and
  // the message's first characters); a '/' inside a message is not a path.
  const std::string refusal = "Cannot open x.json: scale: expected 1/sqrt(d_k), a number or a name, got [1, 2]";
  const std::string start = attnlab::app::ElidePathStart(refusal, 400, Mono10);
  EXPECT_EQ(start, refusal.substr(0, 39) + kEllipsis) << start;
  EXPECT_EQ(attnlab::app::ElidePathStart("no path here at all", 100, Mono10), "no path h" + kEllipsis);
}

// The scale combo's "1/√d_k (Vaswani)" falls back to "1/√d_k" rather than "1/√d_k (Vaswa".
TEST(LabelFit, TheFirstCandidateThatFits) {
  const std::vector<std::string> scale = {"1/\xE2\x88\x9A" "d_k (Vaswani)", "1/\xE2\x88\x9A" "d_k"};
  EXPECT_EQ(attnlab::app::FirstThatFits(scale, 160, Mono10), scale[0]);
  EXPECT_EQ(attnlab::app::FirstThatFits(scale, 159, Mono10), scale[1]);
  EXPECT_EQ(attnlab::app::FirstThatFits(scale, 10, Mono10), scale[1]);
  EXPECT_EQ(attnlab::app::FirstThatFits({}, 10, Mono10), "");
}

}  // namespace

}  // namespace test_label_fit
