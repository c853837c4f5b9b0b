// WordPiece (models/tokenizer.h) on a tiny BERT-like vocabulary whose ids are worked out by hand:
// the greedy longest-first split, BertNormalizer and BertPreTokenizer, max_input_chars_per_word,
// [MASK] inside text, a pair with its token types, the labels, vocab.txt alone with
// tokenizer_config.json, and the refusals. BERT's real vocabulary against Hugging Face's own
// tokenizers is test_hf_tokenizers.cpp.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "attnlab/models/tokenizer.h"
#include "attnlab/scenario.h"

namespace test_wordpiece {
namespace {

using attnlab::models::EncodeLimits;
using attnlab::models::Tokenizer;
using json = nlohmann::json;
namespace fs = std::filesystem;

/// Line n is id n - 1.
const std::vector<std::string> kVocab = {"[PAD]",
                                         "[UNK]",
                                         "[CLS]",
                                         "[SEP]",
                                         "[MASK]",
                                         "un",
                                         "##aff",
                                         "##able",
                                         "hello",
                                         ",",
                                         "world",
                                         "!",
                                         "cafe",
                                         "\xE4\xB8\xAD" /* 中 */,
                                         "\xE6\x96\x87" /* 文 */,
                                         "##s",
                                         "a",
                                         "b",
                                         "Hello",
                                         "##\xE6\x96\x87"};

std::string vocab_txt(const std::vector<std::string>& tokens = kVocab) {
  std::string text;
  for (const std::string& token : tokens) text += token + "\n";
  return text;
}

/// As google-bert/bert-base-uncased's tokenizer.json, with kVocab.
json bert_doc() {
  json vocab = json::object();
  for (std::size_t i = 0; i < kVocab.size(); ++i) vocab[kVocab[i]] = i;
  json added = json::array();
  for (int id = 0; id < 5; ++id)
    added.push_back({{"id", id},
                     {"content", kVocab[std::size_t(id)]},
                     {"special", true},
                     {"normalized", false}});
  const auto special = [](const char* token, int type) {
    return json{{"SpecialToken", {{"id", token}, {"type_id", type}}}};
  };
  const auto sequence = [](const char* id, int type) {
    return json{{"Sequence", {{"id", id}, {"type_id", type}}}};
  };
  return {{"added_tokens", added},
          {"normalizer",
           {{"type", "BertNormalizer"},
            {"clean_text", true},
            {"handle_chinese_chars", true},
            {"strip_accents", nullptr},
            {"lowercase", true}}},
          {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
          {"post_processor",
           {{"type", "TemplateProcessing"},
            {"single", {special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)}},
            {"pair",
             {special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0), sequence("B", 1),
              special("[SEP]", 1)}},
            {"special_tokens",
             {{"[CLS]", {{"id", "[CLS]"}, {"ids", json::array({2})}, {"tokens", {"[CLS]"}}}},
              {"[SEP]", {{"id", "[SEP]"}, {"ids", json::array({3})}, {"tokens", {"[SEP]"}}}}}}}},
          {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}}},
          {"model",
           {{"type", "WordPiece"},
            {"unk_token", "[UNK]"},
            {"continuing_subword_prefix", "##"},
            {"max_input_chars_per_word", 100},
            {"vocab", vocab}}}};
}

Tokenizer bert(const json& doc = bert_doc()) { return Tokenizer::from_tokenizer_json(doc.dump()); }

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const attnlab::ScenarioError& e) {
    return e.what();
  }
  return "(no refusal)";
}

void expect_refusal(const std::function<void()>& f, const std::string& expected_start) {
  const std::string message = refusal(f);
  EXPECT_EQ(message.rfind(expected_start, 0), 0u)
      << "got:      " << message << "\nexpected: " << expected_start;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

using Ids = std::vector<int>;

TEST(WordPiece, LongestTokenFirstThenContinuations) {
  const Tokenizer t = bert();
  EXPECT_EQ(t.encode("unaffable"), (Ids{2, 5, 6, 7, 3}));  // un ##aff ##able
  EXPECT_EQ(t.encode("cafes"), (Ids{2, 12, 15, 3}));       // cafe ##s
  // "un" is a token but "##x" is not: the whole word is one [UNK], not "un" + [UNK].
  EXPECT_EQ(t.encode("unx hello"), (Ids{2, 1, 8, 3}));
  EXPECT_EQ(t.encode(""), (Ids{2, 3}));
}

TEST(WordPiece, BertNormalizerAndPreTokenizer) {
  const Tokenizer t = bert();
  // Lower case, punctuation split off, accents stripped (strip_accents null follows lowercase).
  EXPECT_EQ(t.encode("Hello, WORLD!"), (Ids{2, 8, 9, 10, 11, 3}));
  EXPECT_EQ(t.encode("Caf\xC3\xA9"), (Ids{2, 12, 3}));  // "Café" -> "cafe"
  // Control characters removed, whitespace of any kind a space.
  EXPECT_EQ(t.encode("hel\x01lo\xE3\x80\x80world\t!"), (Ids{2, 8, 10, 11, 3}));
  // Chinese characters are words of their own.
  EXPECT_EQ(t.encode("\xE4\xB8\xAD\xE6\x96\x87"), (Ids{2, 13, 14, 3}));
  // [MASK] inside text is found before the normalizer runs; "[mask]" is text.
  EXPECT_EQ(t.encode("a[MASK]b"), (Ids{2, 16, 4, 17, 3}));
  EXPECT_EQ(t.encode("[mask]"), (Ids{2, 1, 1, 1, 3}));  // "[", "mask", "]": no tokens
  // Punctuation as Hugging Face's Unicode 8.0 tables have it: U+2E52 (Po since Unicode 13) is a
  // letter there, so "a⹒b" is one word; U+166D (Po in 8.0, So now) splits "a᙭b".
  EXPECT_EQ(t.encode("a,b"), (Ids{2, 16, 9, 17, 3}));
  EXPECT_EQ(t.encode("a\xE2\xB9\x92"
                     "b"),
            (Ids{2, 1, 3}));
  EXPECT_EQ(t.encode("a\xE1\x99\xAD"
                     "b"),
            (Ids{2, 16, 1, 17, 3}));
  // Cased: no lower case, and no accent stripping unless asked.
  json doc = bert_doc();
  doc["normalizer"]["lowercase"] = false;
  EXPECT_EQ(bert(doc).encode("Hello hello"), (Ids{2, 18, 8, 3}));
  EXPECT_EQ(bert(doc).encode("caf\xC3\xA9"), (Ids{2, 1, 3}));
  doc["normalizer"]["strip_accents"] = true;
  EXPECT_EQ(bert(doc).encode("caf\xC3\xA9"), (Ids{2, 12, 3}));
}

TEST(WordPiece, AWordLongerThanMaxInputCharsIsOneUnk) {
  json doc = bert_doc();
  doc["model"]["max_input_chars_per_word"] = 5;
  const Tokenizer t = bert(doc);
  EXPECT_EQ(t.encode("hello cafes"), (Ids{2, 8, 12, 15, 3}));  // 5 characters each
  EXPECT_EQ(t.encode("unaffable"), (Ids{2, 1, 3}));
  // Characters, not bytes: "中文" as one word (no spaces around Chinese characters) is 2
  // characters in 6 bytes.
  doc["normalizer"]["handle_chinese_chars"] = false;
  doc["model"]["max_input_chars_per_word"] = 2;
  EXPECT_EQ(bert(doc).encode("\xE4\xB8\xAD\xE6\x96\x87"), (Ids{2, 13, 19, 3}));
  doc["model"]["max_input_chars_per_word"] = 1;
  EXPECT_EQ(bert(doc).encode("\xE4\xB8\xAD\xE6\x96\x87"), (Ids{2, 1, 3}));
}

TEST(WordPiece, AHugeWordAgainstAHugeTokenEndsWithinTheBudget) {
  // Every prefix of a word of a million characters is looked up against a token of a million bytes:
  // 10^12 bytes hashed unless the time budget stops it.
  json doc = bert_doc();
  doc["model"]["vocab"][std::string(1000000, 'a') + "b"] = 20;
  doc["model"]["max_input_chars_per_word"] = 10000000;
  const Tokenizer t = bert(doc);
  EncodeLimits limits;
  limits.seconds = 0.2;
  const auto started = std::chrono::steady_clock::now();
  expect_refusal([&] { t.encode(std::string(1000000, 'a'), limits); },
                 "text: the tokenizer took more than 0.2 s on this text");
  std::cout << "refused after "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() << " s\n";
  EXPECT_EQ(t.encode("a b", limits), (Ids{2, 16, 17, 3}));
}

TEST(WordPiece, PairHasTokenTypesAndSequences) {
  const Tokenizer t = bert();
  const Tokenizer::Encoding e = t.encode_pair("hello", "world!");
  EXPECT_EQ(e.ids, (Ids{2, 8, 3, 10, 11, 3}));
  EXPECT_EQ(e.type_ids, (Ids{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(e.sequence_ids, (Ids{-1, 0, -1, 1, 1, -1}));
  // [MASK] in B is B's, type 1.
  const Tokenizer::Encoding masked = t.encode_pair("", "a [MASK]");
  EXPECT_EQ(masked.ids, (Ids{2, 3, 16, 4, 3}));
  EXPECT_EQ(masked.type_ids, (Ids{0, 0, 1, 1, 1}));
  // The limit counts both texts and the special tokens.
  EncodeLimits limits;
  limits.max_tokens = 5;
  limits.max_tokens_reason = "the model's positions";
  expect_refusal([&] { t.encode_pair("hello", "world!", limits); },
                 "text: more than 5 tokens, the model's positions");
  expect_refusal([&] { t.encode_pair("hello", "\xFF"); }, "second text: not valid UTF-8 at byte 0");
  // BertProcessing makes the same; RobertaProcessing doubles the middle [SEP] and keeps type 0.
  json doc = bert_doc();
  doc["post_processor"] = {
      {"type", "BertProcessing"}, {"sep", {"[SEP]", 3}}, {"cls", {"[CLS]", 2}}};
  EXPECT_EQ(bert(doc).encode_pair("hello", "world!").type_ids, e.type_ids);
  EXPECT_EQ(bert(doc).encode("hello"), (Ids{2, 8, 3}));
  doc["post_processor"]["type"] = "RobertaProcessing";
  const Tokenizer::Encoding roberta = bert(doc).encode_pair("hello", "world!");
  EXPECT_EQ(roberta.ids, (Ids{2, 8, 3, 3, 10, 11, 3}));
  EXPECT_EQ(roberta.type_ids, (Ids(7, 0)));
  EXPECT_EQ(roberta.sequence_ids, (Ids{-1, 0, -1, -1, 1, 1, -1}));
  // A template without a pair: one line when a pair is asked for.
  doc = bert_doc();
  doc["post_processor"]["pair"] = json::array();
  expect_refusal([&] { bert(doc).encode_pair("a", "b"); },
                 "second text: the tokenizer's post-processor has no template for a pair of texts");
}

TEST(WordPiece, DecoderJoinsContinuations) {
  const Tokenizer t = bert();
  EXPECT_EQ(t.token(15), "##s");
  EXPECT_EQ(t.decode(15), "s");
  EXPECT_EQ(t.decode(12), " cafe");  // a word's start follows a space
  EXPECT_EQ(t.label(12),
            "\xE2\x90\xA3"
            "cafe");
  EXPECT_EQ(t.label(2), "[CLS]");
  std::string text;
  for (const int id : t.encode("cafes unaffable")) text += t.decode(id);
  EXPECT_EQ(text, "[CLS] cafes unaffable[SEP]");
  EXPECT_EQ(t.bos(), 2);
}

TEST(WordPiece, VocabTxtAloneAsBertTokenizerReadsIt) {
  const Tokenizer t = Tokenizer::from_vocab_txt(vocab_txt());
  for (const char* text :
       {"Hello, WORLD!", "a[MASK]b", "Caf\xC3\xA9s unaffable", "\xE4\xB8\xAD\xE6\x96\x87"})
    EXPECT_EQ(t.encode(text), bert().encode(text)) << text;
  EXPECT_EQ(t.encode_pair("hello", "world!").type_ids, (Ids{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(t.token(6), "##aff");
  // Windows line ends are line ends; tokenizer_config.json's do_lower_case false keeps the case.
  std::string crlf = vocab_txt();
  for (std::size_t at = crlf.find('\n'); at != std::string::npos; at = crlf.find('\n', at + 2))
    crlf.insert(at, "\r");
  EXPECT_EQ(Tokenizer::from_vocab_txt(crlf).encode("Hello"), (Ids{2, 8, 3}));
  const Tokenizer cased = Tokenizer::from_vocab_txt(vocab_txt(), R"({"do_lower_case": false})");
  EXPECT_EQ(cased.encode("Hello hello caf\xC3\xA9"), (Ids{2, 18, 8, 1, 3}));
  EXPECT_EQ(
      Tokenizer::from_vocab_txt(vocab_txt(), R"({"do_lower_case": false, "strip_accents": true})")
          .encode("caf\xC3\xA9"),
      (Ids{2, 12, 3}));
  // Tokenizer::load finds it in a folder with its tokenizer_config.json.
  const fs::path dir =
      fs::temp_directory_path() / ("attnlab_wordpiece_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "vocab.txt", std::ios::binary) << vocab_txt();
  std::ofstream(dir / "tokenizer_config.json")
      << R"({"do_lower_case": false, "model_max_length": 512})";
  EXPECT_EQ(Tokenizer::load(dir).encode("Hello"), (Ids{2, 18, 3}));
  fs::remove_all(dir);
}

TEST(WordPiece, RefusesBadVocabTxtAndOptions) {
  std::vector<std::string> tokens = kVocab;
  tokens[5] = "";
  expect_refusal([&] { Tokenizer::from_vocab_txt(vocab_txt(tokens)); },
                 "vocab.txt: line 6: expected a token, got an empty line");
  expect_refusal([&] { Tokenizer::from_vocab_txt(vocab_txt() + "\n"); },
                 "vocab.txt: line 21: expected a token, got an empty line");
  tokens = kVocab;
  tokens.push_back("hello");
  expect_refusal(
      [&] { Tokenizer::from_vocab_txt(vocab_txt(tokens)); },
      "vocab.txt: line 21: \"hello\" is also line 9 (Hugging Face would keep this line's id");
  tokens = kVocab;
  tokens[8] = "hel\xFFlo";
  expect_refusal([&] { Tokenizer::from_vocab_txt(vocab_txt(tokens)); },
                 "vocab.txt: line 9: not valid UTF-8 at byte 3");
  tokens = kVocab;
  tokens[1] = "[unk]";
  expect_refusal([&] { Tokenizer::from_vocab_txt(vocab_txt(tokens)); },
                 "vocab.txt: no line holds [UNK], which BERT's tokenizer needs");
  expect_refusal([&] { Tokenizer::from_vocab_txt(vocab_txt(), R"({"do_lower_case": "no"})"); },
                 "tokenizer_config.json: do_lower_case: expected true or false, got \"no\"");
  expect_refusal([&] { Tokenizer::from_vocab_txt(vocab_txt(), R"({"strip_accents": 1})"); },
                 "tokenizer_config.json: strip_accents: expected true, false or null, got 1");
  expect_refusal([&] { Tokenizer::from_vocab_txt(vocab_txt(), "[]"); },
                 "tokenizer_config.json: expected a JSON object at the top level");
  json doc = bert_doc();
  doc["model"]["unk_token"] = "<unk>";
  expect_refusal(
      [&] { bert(doc); },
      "tokenizer.json: model.unk_token: \"<unk>\" is not in the vocabulary (WordPiece needs it)");
  doc = bert_doc();
  doc["model"]["max_input_chars_per_word"] = -1;
  expect_refusal([&] { bert(doc); },
                 "tokenizer.json: model.max_input_chars_per_word: expected a whole number of "
                 "characters, got -1");
  doc = bert_doc();
  doc["model"]["continuing_subword_prefix"] = 2;
  expect_refusal([&] { bert(doc); },
                 "tokenizer.json: model.continuing_subword_prefix: expected a string, got 2");
  doc = bert_doc();
  doc["normalizer"]["lowercase"] = "yes";
  expect_refusal([&] { bert(doc); },
                 "tokenizer.json: normalizer.lowercase: expected true or false, got \"yes\"");
  doc = bert_doc();
  doc["post_processor"]["pair"].erase(3);  // $B
  expect_refusal([&] { bert(doc); },
                 "tokenizer.json: post_processor.pair: expected the sequence $B, got none");
  doc = bert_doc();
  doc["post_processor"]["single"][1]["Sequence"]["id"] = "B";
  expect_refusal([&] { bert(doc); },
                 "tokenizer.json: post_processor.single[1]: expected the sequence $A once");
  doc = bert_doc();
  doc["post_processor"] = {
      {"type", "BertProcessing"}, {"sep", {"[SEP]", 99}}, {"cls", {"[CLS]", 2}}};
  expect_refusal([&] { bert(doc); },
                 "tokenizer.json: post_processor.sep[1]: id 99 is not in the vocabulary");
  doc = bert_doc();
  doc["decoder"]["prefix"] = nullptr;
  EXPECT_EQ(bert(doc).decode(15), "s");  // null: the default "##"
  doc["decoder"]["prefix"] = 1;
  expect_refusal([&] { bert(doc); }, "tokenizer.json: decoder.prefix: expected a string, got 1");
}

}  // namespace
}  // namespace test_wordpiece
