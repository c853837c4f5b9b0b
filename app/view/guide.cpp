#include "view/guide.h"

#include <algorithm>
#include <utility>

#include "generated/guide_text.h"  // kGuideMarkdown: docs/GUIDE.md, written by CMake at build time

namespace attnlab::app {
namespace {

using Style = GuideSpan::Style;

std::string_view Trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

void Append(std::vector<GuideSpan>& spans, Style style, std::string_view text) {
  if (text.empty()) return;
  if (!spans.empty() && spans.back().style == style)
    spans.back().text += text;
  else
    spans.push_back({style, std::string(text)});
}

// `code` and **bold** spans of one block's joined text; a marker with no closing twin is text.
std::vector<GuideSpan> Spans(std::string_view text) {
  std::vector<GuideSpan> spans;
  std::size_t plain = 0, i = 0;
  while (i < text.size()) {
    const bool code = text[i] == '`';
    const bool bold = text.compare(i, 2, "**") == 0;
    const std::string_view marker = code ? "`" : "**";
    const std::size_t close =
        (code || bold) ? text.find(marker, i + marker.size()) : std::string_view::npos;
    if (close == std::string_view::npos) {
      ++i;
      continue;
    }
    Append(spans, Style::Plain, text.substr(plain, i - plain));
    const std::size_t start = i + marker.size();
    Append(spans, code ? Style::Code : Style::Bold, text.substr(start, close - start));
    i = plain = close + marker.size();
  }
  Append(spans, Style::Plain, text.substr(plain));
  return spans;
}

// Collects the lines of the block being read and hands finished blocks to the current section.
class Reader {
 public:
  void Heading(std::string_view line) {
    Flush();
    const std::size_t title = std::min(line.find_first_not_of('#'), line.size());
    guide_.sections.push_back({std::string(Trim(line.substr(title))), {}});
  }
  void Bullet(std::string_view line) {
    Flush();
    bullet_ = true;
    Add(line.substr(2));
  }
  /// A line of text: continues the bullet when indented, else the paragraph.
  void Text(std::string_view line) {
    if (bullet_ && line.front() != ' ') Flush();
    Add(line);
  }
  void Flush() {
    if (!text_.empty()) Blocks().push_back({bullet_, Spans(text_)});
    text_.clear();
    bullet_ = false;
  }
  Guide Take() {
    Flush();
    return std::move(guide_);
  }

 private:
  void Add(std::string_view line) {
    if (!text_.empty()) text_ += ' ';
    text_ += Trim(line);
  }
  std::vector<GuideBlock>& Blocks() {
    return guide_.sections.empty() ? guide_.intro : guide_.sections.back().blocks;
  }

  Guide guide_;
  std::string text_;
  bool bullet_ = false;
};

}  // namespace

Guide ParseGuide(std::string_view markdown) {
  Reader reader;
  while (!markdown.empty()) {
    const std::size_t end = markdown.find('\n');
    const std::string_view line = markdown.substr(0, end);
    markdown = end == std::string_view::npos ? std::string_view() : markdown.substr(end + 1);
    if (Trim(line).empty())
      reader.Flush();
    else if (line.front() == '#')
      reader.Heading(line);
    else if (line.compare(0, 2, "- ") == 0)
      reader.Bullet(line);
    else
      reader.Text(line);
  }
  return reader.Take();
}

std::string_view GuideMarkdown() { return kGuideMarkdown; }

const std::vector<const char*>& FirstRunHintTexts() {
  static const std::vector<const char*> texts = {"New here? Press F1: your first five minutes, step by step.",
                                                 "New here? Press F1 for a guide.", "F1: guide"};
  return texts;
}

}  // namespace attnlab::app
