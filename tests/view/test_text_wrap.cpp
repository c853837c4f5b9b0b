// WrapAtSpaces: lines of numbers break between numbers, never inside one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "view/text_wrap.h"

namespace attnlab::app {
namespace test_text_wrap {
namespace {

// A monospaced measure: every character 1 wide.
float Chars(const std::string& s) { return static_cast<float>(s.size()); }

TEST(TextWrap, BreaksOnlyAtSpacesNeverAfterAPointOrAComma) {
  const std::string q = "q = x_0 W_q + b_q = [-0.8148, -0.6732, 0.6201, -0.7203]";
  const std::vector<std::string> lines = WrapAtSpaces(q, 30, Chars);
  EXPECT_EQ(lines, (std::vector<std::string>{"q = x_0 W_q + b_q = [-0.8148,",
                                             "-0.6732, 0.6201, -0.7203]"}));
  for (const std::string& line : lines) {
    EXPECT_LE(line.size(), 30u) << line;
    EXPECT_NE(line.back(), '.') << "a number cut after its point: " << line;
  }
}

TEST(TextWrap, AWordWiderThanTheLineKeepsALineOfItsOwnWhole) {
  EXPECT_EQ(WrapAtSpaces("y = 0.3787\xC3\x97v(translation) + 0.1", 8, Chars),
            (std::vector<std::string>{"y =", "0.3787\xC3\x97v(translation)", "+ 0.1"}));
}

TEST(TextWrap, EveryWordIsKeptInOrderAndRunsOfSpacesBecomeOne) {
  const std::string text = "a  bb ccc dddd eeeee";
  for (float width : {1.0f, 4.0f, 7.0f, 100.0f}) {
    std::string joined;
    for (const std::string& line : WrapAtSpaces(text, width, Chars)) {
      EXPECT_TRUE(line.size() <= width || line.find(' ') == std::string::npos) << line;
      joined += (joined.empty() ? "" : " ") + line;
    }
    EXPECT_EQ(joined, "a bb ccc dddd eeeee") << "width " << width;
  }
  EXPECT_EQ(WrapAtSpaces("", 10, Chars), (std::vector<std::string>{""}));
  EXPECT_EQ(WrapAtSpaces("[1.5]", 2, Chars), (std::vector<std::string>{"[1.5]"}));
}

}  // namespace
}  // namespace test_text_wrap
}  // namespace attnlab::app
