#pragma once
/// What the model commands (model, heads, lens, patch) share: token ids typed on the command line,
/// a text of exactly one token, tokens written back as text for JSON.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/models/hf_model.h"

namespace attnlab::cli {

/// "464,3797" -> {464, 3797}; throws UsageError naming `option` for anything else or an empty list.
std::vector<int> parse_ids(const std::string& option, const std::string& text);
/// The id of `text` when the model's tokenizer makes it one token (its BOS aside): " Mary". Throws
/// ScenarioError naming `field` ("answer: ' Mary' is 2 tokens ..."), for an empty text or no tokenizer.
int one_token(const models::HfModel& model, const std::string& field, const std::string& text);
/// Token `id` as text ("Ġcat" -> " cat"), or its label when the tokenizer has no such token.
std::string decoded(const models::HfModel& model, int id);
nlohmann::json tokens_json(const models::HfModel& model, const std::vector<int>& ids);
/// A double as JSON, NaN (an undefined score) as null.
nlohmann::json number_or_null(double value);

}  // namespace attnlab::cli
