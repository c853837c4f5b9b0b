#include "model_input.h"

#include <climits>
#include <cmath>

#include "args.h"
#include "attnlab/message_text.h"
#include "attnlab/scenario.h"
#include "commands.h"

namespace attnlab::cli {

std::vector<int> parse_ids(const std::string& option, const std::string& text) {
  std::vector<int> ids;
  for (const std::string& item : split_list(text)) ids.push_back(whole_number(option, item, 0, INT_MAX));
  if (ids.empty()) throw UsageError(option + " expects token ids separated by commas, got " + quote_arg(text));
  return ids;
}

std::vector<models::HeadRef> parse_heads_off(const std::string& text) {
  std::vector<models::HeadRef> heads;
  for (const std::string& item : split_list(text)) {
    const std::size_t dot = item.find('.');
    if (dot == std::string::npos) throw UsageError("--heads-off expects LAYER.HEAD items, got " + quote_arg(item));
    heads.push_back({whole_number("--heads-off", item.substr(0, dot), 0, INT_MAX),
                     whole_number("--heads-off", item.substr(dot + 1), 0, INT_MAX)});
  }
  return heads;
}

nlohmann::json tokens_json(const models::HfModel& model, const std::vector<int>& ids) {
  nlohmann::json tokens = nlohmann::json::array();
  for (int id : ids) tokens.push_back(decoded(model, id));
  return tokens;
}

nlohmann::json number_or_null(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(); }

}  // namespace attnlab::cli
