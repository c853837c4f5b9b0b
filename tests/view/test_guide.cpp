// view/guide.h: the markdown subset of docs/GUIDE.md is parsed into sections, paragraphs, bullets
// and styled spans; the guide compiled into the window is the file as it is now, and it covers
// every panel and every gesture the Help panel promises.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "view/guide.h"

namespace test_guide {

namespace {

using attnlab::app::Guide;
using attnlab::app::GuideBlock;
using attnlab::app::GuideSpan;
using attnlab::app::ParseGuide;
using Style = GuideSpan::Style;

// A block's text with its markers put back: `code` and **bold**.
std::string Markdown(const GuideBlock& block) {
  std::string text;
  for (const GuideSpan& s : block.spans)
    text += s.style == Style::Code   ? "`" + s.text + "`"
            : s.style == Style::Bold ? "**" + s.text + "**"
                                     : s.text;
  return text;
}

std::string AllText(const Guide& guide) {
  std::string text;
  for (const auto& section : guide.sections)
    for (const GuideBlock& b : section.blocks) text += Markdown(b) + "\n";
  return text;
}

TEST(Guide, HeadingsParagraphsAndBulletsWithContinuationLines) {
  const Guide g = ParseGuide(
      "Intro line one\nline two.\n\n### First\n\n- one\n  continued\n- two\nAfter.\n\n## Second\n"
      "Para\n\n\n");
  ASSERT_EQ(g.intro.size(), 1u);
  EXPECT_FALSE(g.intro[0].bullet);
  EXPECT_EQ(Markdown(g.intro[0]), "Intro line one line two.");
  ASSERT_EQ(g.sections.size(), 2u);
  EXPECT_EQ(g.sections[0].title, "First");
  EXPECT_EQ(g.sections[1].title, "Second");
  const auto& blocks = g.sections[0].blocks;
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_TRUE(blocks[0].bullet);
  EXPECT_EQ(Markdown(blocks[0]), "one continued");
  EXPECT_TRUE(blocks[1].bullet);
  EXPECT_EQ(Markdown(blocks[1]), "two");
  EXPECT_FALSE(blocks[2].bullet);  // an unindented line ends the list
  EXPECT_EQ(Markdown(blocks[2]), "After.");
  ASSERT_EQ(g.sections[1].blocks.size(), 1u);
}

TEST(Guide, CodeAndBoldSpansAndUnclosedMarkersStayText) {
  const Guide g = ParseGuide("Type `W_q` then **Enter**: a*b and `open and ** too");
  ASSERT_EQ(g.intro.size(), 1u);
  const std::vector<GuideSpan> expected = {{Style::Plain, "Type "},
                                           {Style::Code, "W_q"},
                                           {Style::Plain, " then "},
                                           {Style::Bold, "Enter"},
                                           {Style::Plain, ": a*b and `open and ** too"}};
  EXPECT_EQ(g.intro[0].spans, expected);
}

TEST(Guide, EmptyAndHeadingOnlyInputs) {
  EXPECT_TRUE(ParseGuide("").sections.empty());
  const Guide g = ParseGuide("#\n###   Spaced title  \n");
  ASSERT_EQ(g.sections.size(), 2u);
  EXPECT_EQ(g.sections[0].title, "");
  EXPECT_EQ(g.sections[1].title, "Spaced title");
  EXPECT_TRUE(g.sections[1].blocks.empty());
}

TEST(Guide, CompiledInGuideIsDocsGuideMd) {
  std::ifstream file(ATTNLAB_SOURCE_DIR "/docs/GUIDE.md", std::ios::binary);
  ASSERT_TRUE(file) << "docs/GUIDE.md";
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_EQ(std::string(attnlab::app::GuideMarkdown()), text.str());
}

// The first-run hint and the guide's first line promise the same thing (issue 26, round two: the
// hint said "your first five minutes" and Help opened on "A two-minute tour").
TEST(Guide, OpensWithWhatTheFirstRunHintPromises) {
  const Guide g = ParseGuide(attnlab::app::GuideMarkdown());
  ASSERT_FALSE(g.intro.empty());
  const std::string opening = Markdown(g.intro[0]);
  const std::string promise = "first five minutes";
  const std::string hint = attnlab::app::FirstRunHintTexts().front();
  EXPECT_NE(hint.find(promise), std::string::npos) << hint;
  EXPECT_EQ(opening.rfind("Your " + promise, 0), 0u) << opening;
  EXPECT_EQ(opening.find("minute tour"), std::string::npos) << opening;
}

// Help opens on a first task (issue 26.9): six numbered steps, in the order a newcomer takes them,
// on a preset that ships.
TEST(Guide, OpensOnAFirstTaskInSixSteps) {
  const Guide g = ParseGuide(attnlab::app::GuideMarkdown());
  ASSERT_FALSE(g.sections.empty());
  std::vector<std::string> steps;
  for (const GuideBlock& b : g.sections[0].blocks)
    if (b.bullet && b.spans.front().style == Style::Bold) steps.push_back(b.spans.front().text);
  const std::vector<std::string> expected = {"1. Open a preset.",  "2. Hover a weight.",   "3. Read the Inspector.",
                                             "4. Change one cell.", "5. Toggle causal.", "6. Present."};
  EXPECT_EQ(steps, expected);
  std::ifstream preset(ATTNLAB_SOURCE_DIR "/assets/presets/vaswani-q2-is-attends.json");
  std::stringstream text;
  text << preset.rdbuf();
  EXPECT_NE(text.str().find("\"title\": \"Vaswani Q2: what 'is' attends to in 'this is translation'\""), std::string::npos)
      << "the walkthrough opens this preset by its title";
}

TEST(Guide, NamesEveryPanelAndEveryGesture) {
  const Guide g = ParseGuide(attnlab::app::GuideMarkdown());
  std::vector<std::string> titles;
  for (const auto& s : g.sections) titles.push_back(s.title);
  const std::vector<std::string> expected_titles = {"Your first five minutes", "The panels", "Today's attention: positions, shared keys, rotations",
                                                    "Exploring: sweeps, before and after, statistics, sensitivity", "Real models",
                                                    "Reading a heatmap", "Gestures",
                                                    "Lecture and presenter mode"};
  ASSERT_EQ(titles, expected_titles);
  // Each panel's bullet starts with its name in bold, in the window's order.
  std::vector<std::string> panels;
  for (const GuideBlock& b : g.sections[1].blocks)
    if (b.bullet && b.spans.front().style == Style::Bold) panels.push_back(b.spans.front().text);
  const std::vector<std::string> expected_panels = {"Scenario",  "Inputs", "Mask",      "Formula strip",
                                                    "Pipeline",  "Plane",  "Heads",     "Inspector",
                                                    "Single query"};
  EXPECT_EQ(panels, expected_panels);
  const std::string text = AllText(g);
  for (const char* gesture : {"**Drag**",
                              "**Double-click**",
                              "**Ctrl+V**",
                              "**Hover**",
                              "**Click**",
                              "**Right-click**",
                              "**Ctrl+wheel**",
                              "**Ctrl+=**",
                              "**Ctrl+-**",
                              "**Ctrl+0**",
                              "**Ctrl+L**",
                              "**P**",
                              "View > Present",
                              "**Right**",
                              "**Space**",
                              "**PageDown**",
                              "**Left**",
                              "**PageUp**",
                              "**Home**",
                              "**End**",
                              "**R**",
                              "**Esc**",
                              "each row sums to 1",
                              "each column of the weights sums to 1"})
    EXPECT_NE(text.find(gesture), std::string::npos) << gesture;
}

}  // namespace

}  // namespace test_guide
