#pragma once
/// A token written as text, and a text that must be one token: what the patching answers and the
/// lens's chosen token are, in the CLI and in the window alike.
#include <string>

#include "attnlab/models/hf_model.h"

namespace attnlab::models {

/// The id of `text` when the model's tokenizer makes it one token (its BOS aside): " Mary". Throws
/// ScenarioError naming `field` ("answer: ' Mary' is 2 tokens ..."), for an empty text or no tokenizer.
int one_token(const HfModel& model, const std::string& field, const std::string& text);
/// Token `id` as text ("Ġcat" -> " cat"), or its label when the tokenizer has no such token.
std::string decoded(const HfModel& model, int id);

}  // namespace attnlab::models
