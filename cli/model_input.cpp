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

int one_token(const models::HfModel& model, const std::string& field, const std::string& text) {
  if (text.empty()) refuse(field, "empty: give the text of one token");
  std::vector<int> ids = model.encode(text);
  if (model.tokenizer() && model.tokenizer()->bos() && !ids.empty() && ids.front() == *model.tokenizer()->bos())
    ids.erase(ids.begin());
  if (ids.size() != 1) {
    std::string parts;
    for (int id : ids) parts += (parts.empty() ? "" : ", ") + quoted_excerpt(decoded(model, id));
    refuse(field, quoted_excerpt(text) + " is " + std::to_string(ids.size()) + " tokens (" + parts +
                      "): give the text of one token");
  }
  return ids.front();
}

std::string decoded(const models::HfModel& model, int id) {
  return model.tokenizer() && model.tokenizer()->contains(id) ? model.tokenizer()->decode(id) : model.label(id);
}

nlohmann::json tokens_json(const models::HfModel& model, const std::vector<int>& ids) {
  nlohmann::json tokens = nlohmann::json::array();
  for (int id : ids) tokens.push_back(decoded(model, id));
  return tokens;
}

nlohmann::json number_or_null(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(); }

}  // namespace attnlab::cli
