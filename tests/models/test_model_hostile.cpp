// Hostile model folders (tests/hostile/cases.json, "model_cases"; docs/HOSTILE_INPUT.md): each copies
// a fixture of tests/fixtures/models, applies one edit, runs `attnlab-cli model DIR ARGS` and expects
// exit status 1, nothing on stdout and the one line "DIR: message" on stderr.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../test_support.h"

namespace test_model_hostile {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSource = ATTNLAB_SOURCE_DIR;

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_bytes(const fs::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

/// Changes fields of tensor entries in a safetensors header; the data that follows is kept.
void edit_header(const fs::path& file, const json& changes) {
  const std::string bytes = read_bytes(file);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | std::uint8_t(bytes[std::size_t(i)]);
  json header = json::parse(bytes.substr(8, n));
  for (const auto& [tensor, fields] : changes.items())
    for (const auto& [key, value] : fields.items()) header.at(tensor)[key] = value;
  const std::string text = header.dump();
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[std::size_t(i)] = char((text.size() >> (8 * i)) & 0xff);
  write_bytes(file, out + text + bytes.substr(8 + n));
}

void apply(const fs::path& dir, const json& edit) {
  if (edit.contains("remove")) fs::remove(dir / edit["remove"].get<std::string>());
  if (edit.contains("write")) write_bytes(dir / edit["write"].get<std::string>(), edit.at("text").get<std::string>());
  if (edit.contains("truncate"))
    fs::resize_file(dir / edit["truncate"].get<std::string>(), edit.at("keep").get<std::uintmax_t>());
  if (edit.contains("header")) edit_header(dir / "model.safetensors", edit["header"]);
  if (edit.contains("config")) {
    json config = json::parse(read_bytes(dir / "config.json"));
    config.update(edit["config"]);
    write_bytes(dir / "config.json", config.dump(2));
  }
}

std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

TEST(ModelHostile, EveryCaseIsOneLineNamingTheField) {
  std::ifstream in(kSource / "tests/hostile/cases.json");
  const json cases = json::parse(in).at("model_cases");
  const attnlab::testing::ScratchDir scratch("attnlab_model_hostile_");
  int i = 0;
  for (const json& c : cases) {
    const fs::path dir = scratch.fresh("case" + std::to_string(++i)) / "model";
    if (!c.at("base").is_null()) {
      fs::copy(kSource / "tests/fixtures/models" / c["base"].get<std::string>(), dir);
      if (c.contains("edit")) apply(dir, c["edit"]);
    }
    std::string command = std::string(ATTNLAB_CLI) + " model " + dir.string();
    for (const json& arg : c.at("args")) {
      const std::string word = arg.get<std::string>() == "OUT" ? (dir.parent_path() / "out.json").string() : arg.get<std::string>();
      command += " " + shell_quote(word);
    }
    const attnlab::testing::Outputs r = attnlab::testing::run_shell_apart(command);
    std::string message = c.at("message").get<std::string>();
    for (std::size_t at = message.find("DIR"); at != std::string::npos; at = message.find("DIR"))
      message.replace(at, 3, dir.string());
    EXPECT_EQ(r.status, 1) << c["case"];
    EXPECT_EQ(r.out, "") << c["case"];
    EXPECT_EQ(r.err, dir.string() + ": " + message + "\n") << c["case"];
  }
}

}  // namespace

}  // namespace test_model_hostile
