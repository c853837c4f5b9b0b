#include "view/text_wrap.h"

namespace attnlab::app {

std::vector<std::string> WrapAtSpaces(const std::string& text, float width,
                                      const std::function<float(const std::string&)>& measure) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t space = text.find(' ', start);
    const std::size_t end = space == std::string::npos ? text.size() : space;
    const std::string word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;  // a run of spaces
    if (!line.empty() && measure(line + " " + word) > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

}  // namespace attnlab::app
