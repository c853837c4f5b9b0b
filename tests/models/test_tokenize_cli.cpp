// attnlab-cli tokenize: the ids and tokens of a text from a folder holding only tokenizer.json, as
// Tokenizer::encode and Tokenizer::token give them; a file of 2,001 JSON strings in one run, one
// object per line in order, a line that fails saying why on its own line; bad usage is exit status 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>
#include <nlohmann/json.hpp>

#include "../test_support.h"
#include "attnlab/models/tokenizer.h"

namespace test_tokenize_cli {
namespace {

namespace fs = std::filesystem;
using attnlab::models::Tokenizer;
using nlohmann::json;

const fs::path kSource = ATTNLAB_SOURCE_DIR;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A folder with only the Llama fixture's tokenizer.json (no config.json, no weights).
class TokenizeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("attnlab_tokenize_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    fs::copy_file(kSource / "tests/fixtures/models/llama-mqa-f32/tokenizer.json", dir_ / "tokenizer.json");
  }
  void TearDown() override { fs::remove_all(dir_); }

  attnlab::testing::Outputs cli(const std::string& args) const {
    return attnlab::testing::run_shell_apart(std::string(ATTNLAB_CLI) + " tokenize '" + dir_.string() + "' " + args);
  }
  json expected(const std::string& text) const {
    json ids = json::array(), tokens = json::array();
    for (const int id : tokenizer_.encode(text)) ids.push_back(id), tokens.push_back(tokenizer_.token(id));
    return {{"ids", ids}, {"tokens", tokens}};
  }

  fs::path dir_;
  Tokenizer tokenizer_ = Tokenizer::load(kSource / "tests/fixtures/models/llama-mqa-f32");
};

TEST_F(TokenizeCli, TextGivesIdsAndTokens) {
  const auto r = cli("--text 'The cat sat, 42 times.'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out), expected("The cat sat, 42 times."));
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line";
}

TEST_F(TokenizeCli, FileGivesOneObjectPerLineInOrder) {
  json texts = json::parse(read_text(kSource / "tests/models/tokenizer_corpus.json"));
  json many = json::array();
  for (int round = 0; round < 3; ++round)
    for (const json& text : texts) many.push_back(text);
  many.push_back("the last one");
  const fs::path file = dir_ / "texts.jsonl";
  {
    std::ofstream out(file, std::ios::binary);
    for (const json& text : many) out << text.dump() << "\n";
    out << "42\n" << "not json\n" << json("\xF0\x9F\x98\x80 after two bad lines").dump() << "\n";
  }
  const auto r = cli("--file '" + file.string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  std::size_t n = 0;
  for (; n < many.size() && std::getline(lines, line); ++n)
    ASSERT_EQ(json::parse(line), expected(many[n].get<std::string>())) << "line " << n + 1;
  ASSERT_EQ(n, many.size());
  std::getline(lines, line);
  EXPECT_EQ(json::parse(line), json({{"error", "line " + std::to_string(n + 1) + ": expected a JSON string, got number"}}));
  std::getline(lines, line);
  EXPECT_EQ(json::parse(line),
            json({{"error", "line " + std::to_string(n + 2) + ": expected a JSON string, got text that is not JSON"}}));
  std::getline(lines, line);
  EXPECT_EQ(json::parse(line), expected("\xF0\x9F\x98\x80 after two bad lines"));
  EXPECT_FALSE(std::getline(lines, line)) << "one line per line of the file";
}

TEST_F(TokenizeCli, BadUsageAndUnreadableFolders) {
  auto r = cli("");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("tokenize needs --text TEXT or --file F"), std::string::npos) << r.err;
  r = cli("--text a --file b");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("give --text or --file, not both"), std::string::npos) << r.err;
  r = cli("--file '" + (dir_ / "missing.jsonl").string() + "'");
  EXPECT_EQ(r.status, 2) << r.err;
  r = cli("--file texts.jsonl --pair b");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--pair goes with --text"), std::string::npos) << r.err;
  fs::remove(dir_ / "tokenizer.json");
  r = cli("--text a");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("tokenizer: no tokenizer.json, vocab.json + merges.txt or vocab.txt in"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST_F(TokenizeCli, PairFromVocabTxtGivesTokenTypes) {
  // An older BERT folder: vocab.txt alone (line n is id n - 1).
  fs::remove(dir_ / "tokenizer.json");
  std::ofstream(dir_ / "vocab.txt")
      << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nwho\nwas\nhe\na\npuppet\n##eer\n?\n.\n";
  const auto r = cli("--text 'Who was he?' --pair 'A puppeteer [MASK].'");
  ASSERT_EQ(r.status, 0) << r.err;
  const json expected = {
      {"ids", {2, 5, 6, 7, 11, 3, 8, 9, 10, 4, 12, 3}},
      {"tokens",
       {"[CLS]", "who", "was", "he", "?", "[SEP]", "a", "puppet", "##eer", "[MASK]", ".", "[SEP]"}},
      {"type_ids", {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}}};
  EXPECT_EQ(json::parse(r.out), expected);
  EXPECT_EQ(json::parse(cli("--text 'Who was he?'").out)["ids"], json({2, 5, 6, 7, 11, 3}));
}

}  // namespace
}  // namespace test_tokenize_cli
