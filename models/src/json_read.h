#pragma once
/// Reading tokenizer files' JSON (private to attnlab_models): bounded parsing, typed fields, and
/// values quoted short enough for a one-line refusal.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace attnlab::models::detail {

/// Ids index rows of an embedding matrix: 0..kMaxId.
constexpr int kMaxId = (1 << 24) - 1;

/// `text` parsed; refuses (naming `file`) JSON nested more than 64 levels deep, before nlohmann
/// builds it, and invalid JSON with nlohmann's message.
/// `callback` (nlohmann's parser callback) sees every value as it is parsed and may refuse.
nlohmann::json parse_json(const std::string& text, const std::string& file,
                          const nlohmann::json::parser_callback_t& callback = nullptr);
/// The file's bytes; refuses one that cannot be read or is larger than 256 MiB, naming its name.
std::string read_file(const std::filesystem::path& path);

/// node[key] when node is an object holding it and it is not null, else nullptr.
const nlohmann::json* member(const nlohmann::json& node, const char* key);
/// A value as a message quotes it: a string as an excerpt in quotes, else the start of its JSON;
/// "nothing" for nullptr.
std::string describe(const nlohmann::json* value);
/// node[key] as a bool, `fallback` when absent; refuses another type naming `field`.key.
bool read_bool(const nlohmann::json& node, const char* key, bool fallback,
               const std::string& field);
/// An id in 0..kMaxId; refuses anything else naming `where`.
int read_id(const nlohmann::json& value, const std::string& where);

}  // namespace attnlab::models::detail
