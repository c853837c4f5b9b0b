// view/label_fit.h: labels shortened in the middle stay distinct and fit; strides.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "view/label_fit.h"

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

}  // namespace
