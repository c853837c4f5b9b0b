// attnlab/message_text.h: text quoted from hostile input stays one short, printable line.
#include <gtest/gtest.h>

#include <string>

#include "attnlab/message_text.h"
#include "attnlab/scenario.h"

namespace test_message_text {

namespace {

using namespace attnlab;

bool printable_line(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7F) return false;
  return true;
}

TEST(MessageText, PrintableTextEscapesControlsAndStrayBytes) {
  EXPECT_EQ(printable_text("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(printable_text(std::string("caf\xE9", 4)), "caf\\xE9");
  EXPECT_EQ(printable_text(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(printable_text("\xC3\xBC"), "\xC3\xBC");  // valid UTF-8 stays as it is
}

TEST(MessageText, AShortExcerptIsTheWholeTextEscaped) {
  EXPECT_EQ(excerpt("\"unfinished"), "\"unfinished");
  EXPECT_EQ(excerpt("a\nb"), "a\\nb");
}

TEST(MessageText, ALongExcerptKeepsItsBeginningAndItsEnd) {
  const std::string text = "\"" + std::string(1 << 20, 'a') + "\xE9";
  const std::string e = excerpt(text);
  EXPECT_LE(e.size(), kMaxExcerptBytes) << e;
  EXPECT_EQ(e.substr(0, 4), "\"aaa") << e;
  EXPECT_NE(e.find("..."), std::string::npos) << e;
  EXPECT_EQ(e.substr(e.size() - 4), "\\xE9") << e;  // where the parser stopped
}

TEST(MessageText, AnExcerptNeverCutsACharacterOrAnEscape) {
  const std::string umlauts = [] {
    std::string s;
    for (int i = 0; i < 100; ++i) s += "\xC3\xBC\x01";
    return s;
  }();
  const std::string e = excerpt(umlauts, 20);
  EXPECT_LE(e.size(), 20u) << e;
  const std::string head = e.substr(0, e.find("...")), tail = e.substr(e.find("...") + 3);
  for (const std::string& part : {head, tail}) EXPECT_EQ(printable_text(part), part) << part;  // whole characters
  EXPECT_EQ(tail.substr(tail.size() - 4), "\\x01") << e;
}

TEST(MessageText, EveryMessageIsOneLineOfAtMost300BytesWhateverItQuotes) {
  const std::string cases[] = {std::string(1 << 20, 'x'), std::string(1 << 16, '\x01'),
                               std::string(1 << 16, '\xE9'), std::string(1 << 16, '\n'),
                               "heads[0].W_q: " + std::string(5000, 'y') + ": got 3"};
  for (const std::string& c : cases) {
    const std::string m = one_line_message(c);
    EXPECT_LE(m.size(), kMaxMessageBytes);
    EXPECT_TRUE(printable_line(m)) << m;
  }
  const std::string m = one_line_message("heads[0].W_q: " + std::string(5000, 'y') + ": got 3");
  EXPECT_EQ(m.substr(0, 13), "heads[0].W_q:") << "the field it names stays";
  EXPECT_EQ(m.substr(m.size() - 7), ": got 3") << "the end stays";
}

TEST(MessageText, AScenarioErrorIsAlwaysShort) {
  const ScenarioError e("tokens[0]: expected a label, got " + std::string(1 << 20, 'z'));
  EXPECT_LE(std::string(e.what()).size(), kMaxMessageBytes);
  EXPECT_EQ(std::string(e.what()).substr(0, 10), "tokens[0]:");
  EXPECT_EQ(ScenarioError("X: expected 2 rows, got 3").what(), std::string("X: expected 2 rows, got 3"));
}

}  // namespace

}  // namespace test_message_text
