#pragma once
/// Reading and writing `attnlab/1` scenario files (docs/FORMAT.md).
#include <string>

#include "attnlab/scenario.h"

namespace attnlab {

/// Parses and checks types, keys and values (not shapes: see model.h). Throws ScenarioError.
Scenario scenario_from_json(const nlohmann::json& doc);
/// Parses JSON text (size, depth and syntax checked first). Throws ScenarioError.
Scenario scenario_from_string(const std::string& text);
/// Reads a file. Throws ScenarioError (also when the file cannot be read).
Scenario load_scenario(const std::string& path);

nlohmann::json scenario_to_json(const Scenario& scenario);
/// What a scenario file holds: scenario_to_json indented by 2 with "format" as the first key
/// (`{\n  "format": "attnlab/1",`), so a file manager recognises the file by its first bytes
/// (packaging/attnlab-mime.xml); the other keys follow in nlohmann::json's (sorted) order.
std::string scenario_to_text(const Scenario& scenario);
/// Writes scenario_to_text to a temporary file beside `path`, flushes it and renames it over
/// `path`. Throws std::runtime_error naming the path when the file cannot be written.
void save_scenario(const Scenario& scenario, const std::string& path);

/// Reads a whole file with a size limit; throws ScenarioError naming the path.
std::string read_text_file(const std::string& path, std::size_t max_bytes);
/// Atomic write: temporary file, flush, fsync, rename. Throws std::runtime_error.
void write_file_atomically(const std::string& path, const std::string& contents);

}  // namespace attnlab
