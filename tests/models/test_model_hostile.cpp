// Hostile model folders (tests/hostile/cases.json, "model_cases"; docs/HOSTILE_INPUT.md): each copies
// a fixture of tests/fixtures/models, applies one edit (model_folders.h), runs `attnlab-cli model DIR
// ARGS` (or the case's "command": heads, lens, patch) and expects exit status 1, nothing on stdout and the one line "DIR: message" on stderr. A
// case that hung (a named pipe) or ran for minutes (a pathological tokenizer) before now ends in one
// line within the tokenizer's budget; the time each took is printed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../test_support.h"
#include "attnlab/message_text.h"
#include "model_folders.h"

namespace test_model_hostile {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
namespace model_folders = attnlab::testing::model_folders;

const fs::path kSource = ATTNLAB_SOURCE_DIR;

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
    const fs::path dir = model_folders::make(kSource / "tests/fixtures/models", scratch.fresh("case" + std::to_string(++i)), c);
    std::string command = std::string(ATTNLAB_CLI) + " " + c.value("command", "model") + " " + shell_quote(dir.string());
    for (const json& arg : c.at("args")) {
      const std::string word = arg == "OUT" ? (dir.parent_path() / "out.json").string() : model_folders::argument(arg);
      command += " " + shell_quote(word);
    }
    const auto started = std::chrono::steady_clock::now();
    const attnlab::testing::Outputs r = attnlab::testing::run_shell_apart(command);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    // Names are escaped in messages: a folder whose name holds a newline is still one line.
    const std::string shown_dir = attnlab::printable_text(dir.string());
    const std::string message = model_folders::message(c, shown_dir);
    EXPECT_EQ(r.status, 1) << c["case"];
    EXPECT_EQ(r.out, "") << c["case"];
    EXPECT_EQ(r.err, shown_dir + ": " + message + "\n") << c["case"];
    std::cout << "  " << c["case"].get<std::string>() << ": " << seconds << " s\n";
  }
}

}  // namespace

}  // namespace test_model_hostile
