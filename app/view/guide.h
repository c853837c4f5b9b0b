#pragma once
/// The guide the Help panel shows: docs/GUIDE.md, compiled into the program, parsed into sections
/// of paragraphs and bullets. The markdown subset is the one the file uses: headings, paragraphs,
/// `- ` bullets, `code` and **bold**; anything else is text as written.
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::app {

/// A run of text in one style.
struct GuideSpan {
  enum class Style { Plain, Code, Bold };
  Style style = Style::Plain;
  std::string text;

  bool operator==(const GuideSpan& o) const { return style == o.style && text == o.text; }
};

/// A paragraph, or one item of a bullet list; its lines joined with single spaces.
struct GuideBlock {
  bool bullet = false;
  std::vector<GuideSpan> spans;
};

/// A heading and the blocks up to the next heading.
struct GuideSection {
  std::string title;
  std::vector<GuideBlock> blocks;
};

struct Guide {
  std::vector<GuideBlock> intro;  ///< the blocks before the first heading
  std::vector<GuideSection> sections;
};

/// Parses the subset: a line starting with `#` is a heading (any level); a line starting with
/// `- ` starts a bullet, and the indented lines after it continue it; other lines join into
/// paragraphs ended by a blank line. An unclosed ` or ** is kept as a literal character.
Guide ParseGuide(std::string_view markdown);

/// docs/GUIDE.md as it was when the program was built.
std::string_view GuideMarkdown();

/// The first-run hint's texts, longest first (the menu bar shows the longest that fits); the
/// longest promises what the guide's first lines announce.
const std::vector<const char*>& FirstRunHintTexts();

}  // namespace attnlab::app
