#pragma once
/// What the model commands (model, heads, lens, patch) share: token ids typed on the command line,
/// a text of exactly one token, tokens written back as text for JSON.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/models/hf_model.h"
#include "attnlab/models/token_text.h"

namespace attnlab::cli {

/// "464,3797" -> {464, 3797}; throws UsageError naming `option` for anything else or an empty list.
std::vector<int> parse_ids(const std::string& option, const std::string& text);
using models::decoded;    // token_text.h: shared with the window
using models::one_token;
nlohmann::json tokens_json(const models::HfModel& model, const std::vector<int>& ids);
/// A double as JSON, NaN (an undefined score) as null.
nlohmann::json number_or_null(double value);

}  // namespace attnlab::cli
