#include "args.h"

#include <sstream>

#include "attnlab/message_text.h"
#include "commands.h"

namespace attnlab::cli {

int whole_number(const std::string& option, const std::string& text, int lo, int hi) {
  try {
    std::size_t used = 0;
    const int value = std::stoi(text, &used);
    if (used == text.size() && value >= lo && value <= hi) return value;
  } catch (const std::exception&) {
  }
  throw UsageError(option + " expects a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                   ", got " + quote_arg(text));
}

void check_head_exists(int head, std::size_t heads) {
  if (std::size_t(head) >= heads)
    throw UsageError("--head " + std::to_string(head) + ": the scenario has " +
                     std::to_string(heads) + " head(s), counted from 0");
}

std::string quote_arg(const std::string& text) { return "'" + excerpt(text) + "'"; }

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

}  // namespace attnlab::cli
