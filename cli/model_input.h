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
/// --heads-off "5.0,11.3" -> layer 5 head 0, layer 11 head 3 (both 0-based, as in files and --layer).
std::vector<models::HeadRef> parse_heads_off(const std::string& text);
/// A double as JSON, NaN (an undefined score) as null.
nlohmann::json number_or_null(double value);

}  // namespace attnlab::cli
