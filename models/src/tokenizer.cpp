#include "attnlab/models/tokenizer.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <functional>
#include <queue>
#include <set>
#include <string_view>

#include <utf8proc.h>
#include <nlohmann/json.hpp>

#include "attnlab/message_text.h"
#include "attnlab/scenario.h"
#include "byte_level.h"
#include "folder_files.h"
#include "json_read.h"
#include "pretokenizer.h"
#include "unicode_classes.h"

namespace attnlab::models {
namespace {

using detail::code_point_name;
using detail::describe;
using detail::hex_byte;
using detail::kMaxId;
using detail::label_text;
using detail::member;
using detail::parse_json;
using detail::read_bool;
using detail::read_file;
using detail::read_id;
using detail::symbols_to_bytes;
using detail::white_space;
using detail::utf8_sequence;
using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr int kMaxSequenceDepth = 8;
constexpr std::size_t kMaxCachedPiece = 256;  // longer pieces are merged afresh
constexpr std::size_t kMaxNormalizedBytes = std::size_t(256) << 20;
constexpr std::size_t kHashedBytesPerCheck = std::size_t(1) << 20;  // WordPiece's lookups

std::uint64_t pair_key(int a, int b) {
  return static_cast<std::uint64_t>(a) << 32 | static_cast<std::uint32_t>(b);
}

/// The added tokens' trie: the key of the edge from `node` on byte `c`.
std::uint64_t edge_key(int node, char c) { return std::uint64_t(node) << 8 | static_cast<unsigned char>(c); }

/// SentencePiece's byte tokens, as Hugging Face's byte_fallback looks them up: "<0x0A>" (two
/// upper-case hex digits) is byte 10; -1 for any other token.
int fallback_byte(std::string_view token) {
  if (token.size() != 6 || token.substr(0, 3) != "<0x" || token[5] != '>') return -1;
  int value = 0;
  for (const char c : token.substr(3, 2)) {
    if (c >= '0' && c <= '9') value = value * 16 + (c - '0');
    else if (c >= 'A' && c <= 'F') value = value * 16 + (c - 'A' + 10);
    else return -1;
  }
  return value;
}

/// A word character as Rust's regex `\w` (single_word's boundary): a letter, mark, decimal digit or
/// connector punctuation, by utf8proc's categories (Alphabetic's few others, such as Nl, too).
bool word_character(char32_t c) {
  const auto category = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return (category >= UTF8PROC_CATEGORY_LU && category <= UTF8PROC_CATEGORY_NL) || category == UTF8PROC_CATEGORY_PC ||
         c == 0x200C || c == 0x200D;
}

/// Where the code point holding s[i] starts (valid UTF-8).
std::size_t code_point_start(std::string_view s, std::size_t i) {
  while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  return i;
}

/// The code point that ends at s[end] (valid UTF-8, end > 0).
char32_t code_point_before(std::string_view s, std::size_t end) {
  const std::size_t begin = code_point_start(s, end - 1);
  return detail::code_point(s, begin, end - begin);
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace

// Named, not anonymous: Tokenizer::Impl holds them (GCC's -Wsubobject-linkage in unity builds).
namespace tokenizer_parts {

struct Merge {
  int rank;
  int result;
};

struct AddedToken {
  std::string content;
  int id;
  bool normalized;  ///< matched in the normalized text (its content normalized too), not the raw one
  bool lstrip, rstrip;  ///< the whitespace before / after it belongs to it (Phi-3's <|assistant|>)
  bool single_word;     ///< matched only where no word character touches it
  std::size_t matched_size = 0;  ///< the bytes it takes in the text it is matched in
};

/// Added tokens' contents as a trie of their bytes, so that one walk from a position finds the
/// longest one there: node 0 is the root, `edges` maps edge_key(node, byte) to the child.
struct AddedTrie {
  std::unordered_map<std::uint64_t, int> edges;
  std::vector<int> end{-1};  ///< per node: the index into the added tokens of the one ending there, or -1

  void add(const std::string& content, int index) {
    int node = 0;
    for (const char c : content) {
      const auto [edge, is_new] = edges.try_emplace(edge_key(node, c), static_cast<int>(end.size()));
      if (is_new) end.push_back(-1);
      node = edge->second;
    }
    if (end[std::size_t(node)] < 0) end[std::size_t(node)] = index;  // the same content twice: the first
  }
  bool empty() const { return edges.empty(); }
  /// The longest token at text[at], as its index; -1 when none starts there.
  int find(std::string_view text, std::size_t at) const {
    int node = 0, found = -1;
    for (std::size_t i = at; i < text.size(); ++i) {
      const auto edge = edges.find(edge_key(node, text[i]));
      if (edge == edges.end()) break;
      node = edge->second;
      if (end[std::size_t(node)] >= 0) found = end[std::size_t(node)];
    }
    return found;
  }
};

/// BertNormalizer's options, applied in this order.
struct BertOptions {
  bool clean_text = true;     ///< control characters removed, whitespace made a space
  bool chinese_chars = true;  ///< a space on both sides of each CJK ideograph
  bool strip_accents =
      true;  ///< NFD, then the non-spacing marks removed (null in the file: as lowercase)
  bool lowercase = true;
};

/// One normalizer: NFC, NFD, Replace (a string or a regex, every match), Prepend (a non-empty
/// text), Lowercase or BertNormalizer.
struct NormalizerStep {
  enum class Kind { nfc, nfd, replace, prepend, lowercase, bert };
  Kind kind;
  std::shared_ptr<const detail::Regex> pattern;  ///< replace
  std::string content;                           ///< replace: the new text; prepend: what goes first
  BertOptions bert{};                            ///< bert
};

/// What a decoder does to one token's text (the per-token part of Replace, ByteFallback, Metaspace;
/// Fuse and Strip act on the whole sequence and change no token).
struct DecoderStep {
  enum class Kind { replace, byte_fallback, wordpiece };
  Kind kind;
  std::string from,
      to;  ///< replace (Metaspace: its replacement -> " "); wordpiece: `from` is the prefix
};

/// One piece of a post-processor's template: a sequence ($A or $B) or special tokens, each with
/// the token type its ids get.
struct TemplatePiece {
  int sequence;          ///< 0: $A, 1: $B, -1: the special tokens `ids`
  std::vector<int> ids;  ///< special tokens
  int type_id;
};

}  // namespace tokenizer_parts

using tokenizer_parts::AddedToken;
using tokenizer_parts::AddedTrie;
using tokenizer_parts::DecoderStep;
using tokenizer_parts::Merge;
using tokenizer_parts::NormalizerStep;
using tokenizer_parts::TemplatePiece;

struct Tokenizer::Impl {
  /// Byte-level (GPT-2's byte symbols): a token's bytes -> its id. SentencePiece-style: its text.
  std::unordered_map<std::string, int> ids;
  std::unordered_map<int, std::string> bytes;  ///< id -> what it stands for (added: its content)
  /// id -> the token as the vocabulary spells it, where that is not the byte symbols of `bytes`
  /// (SentencePiece-style tokens, added tokens).
  std::unordered_map<int, std::string> spelled;
  /// Byte-level: the one-byte tokens BPE starts from; SentencePiece-style: the byte_fallback tokens
  /// "<0x00>".."<0xFF>". -1: none.
  std::array<int, 256> byte_ids;
  std::unordered_map<std::uint64_t, Merge> merges;  ///< pair_key(left, right) -> rank and result
  std::vector<AddedToken> added;                    ///< longest first, matched before splitting
  detail::PreTokenizer pre;
  std::vector<NormalizerStep> normalizer;
  bool byte_level = true;         ///< the vocabulary in byte symbols (ByteLevel), else text
  bool byte_fallback = false;     ///< SentencePiece-style: a character without a token becomes byte tokens
  bool fuse_unk = false;          ///< consecutive unknown characters become one unk
  bool one_merge_at_a_time = false;  ///< tokenizer.json: Hugging Face's order of merges (see merge)
  bool ignore_merges = false;
  int unk = -1;
  bool wordpiece = false;         ///< model.type WordPiece: greedy longest match instead of merges
  std::string continuing_prefix;  ///< WordPiece: what a token inside a word starts with ("##")
  std::size_t max_word_chars = 100;  ///< WordPiece: a longer word is one unk
  std::size_t longest_token = 0;     ///< WordPiece: the bytes of the vocabulary's longest token
  /// The post-processor's templates; without one, the sequences as they are, $B's type 1.
  std::vector<TemplatePiece> single{{0, {}, 0}}, pair{{0, {}, 0}, {1, {}, 1}};
  bool pair_known = true;      ///< false: a TemplateProcessing without a pair template
  bool template_read = false;  ///< a post-processor that adds special tokens was read
  AddedTrie raw_added;         ///< added tokens matched in the raw text (normalized: false)
  AddedTrie normalized_added;  ///< the others, matched in each normalized stretch between those
  int limit = 0;                                    ///< one more than the largest id

  Impl() { byte_ids.fill(-1); }
  void read_vocab(const json& vocab, const std::string& where,
                  const std::set<std::string>& added_contents);
  void read_text_vocab(const json& vocab, const std::string& where);
  void read_normalizer(const json& node, const std::string& where, int depth);
  void read_decoder(const json& node, const std::string& where, int depth, std::vector<DecoderStep>& steps) const;
  std::string normalize(std::string text, const detail::Budget& budget) const;
  void add_merge(const std::string& a, const std::string& b, int rank, const std::string& where);
  void read_merges(const json& merges, const std::string& where);
  void read_merges_txt(const std::string& text);
  void read_added(const json& list, const std::string& file);
  void read_model(const json& model, const std::string& file);
  void read_wordpiece(const json& model, const std::string& where);
  void read_document(const json& doc, const std::string& file);
  void finish();
  void read_post_processor(const json& node, const std::string& where, int depth);
  void read_template(const json& node, const std::string& where);
  std::vector<TemplatePiece> read_pieces(const json& list, const json& special_tokens,
                                         const std::string& where, const char* key) const;
  void read_bert_processing(const json& node, const std::string& where, bool roberta);
  std::vector<int> special_ids(const json& special_tokens, const std::string& name,
                               const std::string& where, const std::string& field) const;
  void encode_sequence(const std::string& text, const detail::Budget& budget,
                       const std::function<void()>& check_count, std::vector<int>& out) const;
  Encoding assemble(const std::vector<TemplatePiece>& pieces, const std::string* texts[2],
                    const EncodeLimits& limits) const;
  void wordpiece_word(const std::string& word, std::vector<int>& out,
                      const detail::Budget& budget) const;
  void bpe(const std::string& piece, std::vector<int>& out,
           std::unordered_map<std::string, std::vector<int>>& cache, const detail::Budget& budget) const;
  void merge(std::vector<int>& symbols, const detail::Budget& budget) const;
  void text_symbols(const std::string& piece, std::vector<int>& symbols) const;
};

// ---- reading ------------------------------------------------------------------------------------

void Tokenizer::Impl::read_vocab(const json& vocab, const std::string& where,
                                 const std::set<std::string>& added_contents) {
  if (!vocab.is_object())
    refuse(where, "expected an object of token -> id, got " + describe(&vocab));
  ids.reserve(vocab.size());
  std::string token_bytes;
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    const std::string& token = it.key();
    const auto entry = [&] { return where + "." + prefix_excerpt(token, 40); };
    const int id = it->is_number_integer() ? it->get<int>() : -1;  // in range: checked below
    if (!it->is_number_integer() || it->get<long long>() < 0 || it->get<long long>() > kMaxId)
      read_id(*it, entry());
    char32_t bad = 0;
    if (!symbols_to_bytes(token, token_bytes, bad)) {
      if (added_contents.count(token)) continue;  // an added token's own entry ("<|endoftext|>")
      refuse(entry(), code_point_name(bad) + " is not a byte-level symbol (a ByteLevel pre-tokenizer's vocabulary is written in them)");
    }
    if (!bytes.emplace(id, token_bytes).second)
      refuse(entry(), "id " + std::to_string(id) + " is given to two tokens");
    ids.emplace(token_bytes, id);
    if (token_bytes.size() == 1) byte_ids[static_cast<unsigned char>(token_bytes[0])] = id;
  }
}

/// A SentencePiece-style vocabulary (tokenizer.json without ByteLevel): tokens are text, "▁the",
/// and "<0x0A>" is byte 10 for byte_fallback.
void Tokenizer::Impl::read_text_vocab(const json& vocab, const std::string& where) {
  if (!vocab.is_object())
    refuse(where, "expected an object of token -> id, got " + describe(&vocab));
  ids.reserve(vocab.size());
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    const std::string& token = it.key();
    if (!it->is_number_integer() || it->get<long long>() < 0 || it->get<long long>() > kMaxId)
      read_id(*it, where + "." + prefix_excerpt(token, 40));
    const int id = it->get<int>();
    if (!spelled.emplace(id, token).second)
      refuse(where + "." + prefix_excerpt(token, 40), "id " + std::to_string(id) + " is given to two tokens");
    ids.emplace(token, id);
    const int b = fallback_byte(token);
    if (b >= 0) byte_ids[std::size_t(b)] = id;
  }
}

void Tokenizer::Impl::add_merge(const std::string& a, const std::string& b, int rank,
                                const std::string& where) {
  std::string left, right;
  char32_t bad = 0;
  const auto id_of = [&](const std::string& symbols, std::string& out) {
    const bool known = byte_level ? symbols_to_bytes(symbols, out, bad) : (out = symbols, true);
    const auto it = known ? ids.find(out) : ids.end();
    if (it == ids.end()) refuse(where, quoted_excerpt(symbols) + " is not in the vocabulary");
    return it->second;
  };
  const int left_id = id_of(a, left), right_id = id_of(b, right);
  const auto result = ids.find(left + right);
  if (result == ids.end())
    refuse(where, "the merge's result " + quoted_excerpt(a + b) + " is not in the vocabulary");
  merges[pair_key(left_id, right_id)] =
      Merge{rank, result->second};  // a repeated pair: the later rank, as GPT-2
}

void Tokenizer::Impl::read_merges(const json& list, const std::string& where) {
  if (!list.is_array()) refuse(where, "expected an array, got " + describe(&list));
  merges.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& m = list[i];
    const std::string entry = where + "[" + std::to_string(i) + "]";
    if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      add_merge(m[0].get<std::string>(), m[1].get<std::string>(), static_cast<int>(i), entry);
      continue;
    }
    const std::string text = m.is_string() ? m.get<std::string>() : "";
    const auto space = text.find(' ');
    if (!m.is_string() || space == 0 || space == std::string::npos || space + 1 == text.size() ||
        text.find(' ', space + 1) != std::string::npos)
      refuse(entry, "expected \"a b\" or [\"a\", \"b\"], got " + describe(&m));
    add_merge(text.substr(0, space), text.substr(space + 1), static_cast<int>(i), entry);
  }
}

void Tokenizer::Impl::read_merges_txt(const std::string& text) {
  std::size_t line_start = 0;
  int rank = 0;
  for (int line = 1; line_start < text.size(); ++line) {
    std::size_t end = text.find('\n', line_start);
    if (end == std::string::npos) end = text.size();
    std::string_view row(text.data() + line_start, end - line_start);
    line_start = end + 1;
    if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
    if (row.empty() || (line == 1 && row.substr(0, 8) == "#version")) continue;
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < row.size();) {
      const std::size_t j = std::min(row.find(' ', i), row.size());
      if (j > i) parts.emplace_back(row.substr(i, j - i));
      i = j + 1;
    }
    const std::string where = "merges.txt: line " + std::to_string(line);
    if (parts.size() != 2)
      refuse(where,
             "expected two tokens, got " +
                 (parts.size() < 2 ? quoted_excerpt(row)
                                   : std::to_string(parts.size()) + " in " + quoted_excerpt(row)));
    add_merge(parts[0], parts[1], rank++, where);
  }
}

void Tokenizer::Impl::read_added(const json& list, const std::string& file) {
  const std::string where = file + ": added_tokens";
  if (!list.is_array()) refuse(where, "expected an array, got " + describe(&list));
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string entry = where + "[" + std::to_string(i) + "]";
    const json* content = member(list[i], "content");
    const json* id = member(list[i], "id");
    if (!content || !content->is_string() || content->get_ref<const std::string&>().empty())
      refuse(entry + ".content", "expected a non-empty string, got " + describe(content));
    if (!id) refuse(entry + ".id", "expected an id, got nothing");
    const json* special = member(list[i], "special");
    const bool special_token = special && special->is_boolean() && special->get<bool>();
    // Hugging Face's default: a special token is matched in the raw text, another one normalized.
    const bool normalized = read_bool(list[i], "normalized", !special_token, entry);
    added.push_back(AddedToken{content->get<std::string>(), read_id(*id, entry + ".id"), normalized,
                               read_bool(list[i], "lstrip", false, entry), read_bool(list[i], "rstrip", false, entry),
                               read_bool(list[i], "single_word", false, entry)});
  }
  // Leftmost-longest, as Hugging Face matches them: at one position the longest wins.
  std::stable_sort(added.begin(), added.end(), [](const AddedToken& a, const AddedToken& b) {
    return a.content.size() > b.content.size();
  });
}

void Tokenizer::Impl::read_model(const json& model, const std::string& file) {
  const std::string where = file + ": model";
  if (!model.is_object()) refuse(where, "expected an object, got " + describe(&model));
  const json* type = member(model, "type");
  const std::string name = type && type->is_string() ? type->get<std::string>() : "";
  if (name == "WordPiece") return read_wordpiece(model, where);
  if (name != "BPE") refuse(where + ".type", describe(type) + " is not supported (BPE, WordPiece)");
  const json* dropout = member(model, "dropout");
  if (dropout && (!dropout->is_number() || dropout->get<double>() != 0.0))
    refuse(where + ".dropout", describe(dropout) + " is not supported (dropout merges at random)");
  for (const char* affix : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    const json* v = member(model, affix);
    if (v && (!v->is_string() || !v->get_ref<const std::string&>().empty()))
      refuse(where + "." + affix, describe(v) + " is not supported (only an empty one)");
  }
  byte_fallback = read_bool(model, "byte_fallback", false, where);
  fuse_unk = read_bool(model, "fuse_unk", false, where);
  if (byte_fallback && byte_level)
    refuse(where + ".byte_fallback",
           "true with a ByteLevel pre-tokenizer is not supported (byte-level vocabularies hold every byte)");
  const json* ignore = member(model, "ignore_merges");
  if (ignore && !ignore->is_boolean())
    refuse(where + ".ignore_merges", "expected true or false, got " + describe(ignore));
  ignore_merges = ignore && ignore->get<bool>();
  std::set<std::string> contents;
  for (const AddedToken& t : added) contents.insert(t.content);
  const json* vocab = member(model, "vocab");
  if (!vocab) refuse(where + ".vocab", "expected an object of token -> id, got nothing");
  if (byte_level)
    read_vocab(*vocab, where + ".vocab", contents);
  else
    read_text_vocab(*vocab, where + ".vocab");
  const json* merge_list = member(model, "merges");
  if (merge_list) read_merges(*merge_list, where + ".merges");
  const json* unk_token = member(model, "unk_token");
  if (unk_token && !unk_token->is_string())
    refuse(where + ".unk_token", "expected a token, got " + describe(unk_token));
  if (unk_token) {
    const auto it = ids.find(unk_token->get<std::string>());
    if (it != ids.end())
      unk = it->second;
    else if (!byte_level)  // Hugging Face fails on the first unknown character instead
      refuse(where + ".unk_token", quoted_excerpt(unk_token->get<std::string>()) + " is not in the vocabulary");
  }
}

/// WordPiece (BERT): a vocabulary of text, "##" starting the tokens inside a word, the unk_token
/// for a word no tokens spell, and for a word longer than max_input_chars_per_word characters.
void Tokenizer::Impl::read_wordpiece(const json& model, const std::string& where) {
  if (byte_level)
    refuse(where + ".type",
           "WordPiece with a ByteLevel pre-tokenizer is not supported (a WordPiece vocabulary is "
           "text)");
  wordpiece = true;
  const json* vocab = member(model, "vocab");
  if (!vocab) refuse(where + ".vocab", "expected an object of token -> id, got nothing");
  read_text_vocab(*vocab, where + ".vocab");
  for (const auto& entry : ids) longest_token = std::max(longest_token, entry.first.size());
  const json* prefix = member(model, "continuing_subword_prefix");
  if (prefix && !prefix->is_string())
    refuse(where + ".continuing_subword_prefix", "expected a string, got " + describe(prefix));
  continuing_prefix = prefix ? prefix->get<std::string>() : "##";
  const json* max_chars = member(model, "max_input_chars_per_word");
  if (max_chars && !(max_chars->is_number_integer() && max_chars->get<long long>() >= 0))
    refuse(where + ".max_input_chars_per_word",
           "expected a whole number of characters, got " + describe(max_chars));
  if (max_chars) max_word_chars = max_chars->get<std::size_t>();
  const json* unk_token = member(model, "unk_token");
  if (unk_token && !unk_token->is_string())
    refuse(where + ".unk_token", "expected a token, got " + describe(unk_token));
  // Hugging Face fails on the first word it needs unk for; attnlab says so when reading.
  const std::string unk_text = unk_token ? unk_token->get<std::string>() : "[UNK]";
  const auto it = ids.find(unk_text);
  if (it == ids.end())
    refuse(where + ".unk_token",
           quoted_excerpt(unk_text) + " is not in the vocabulary (WordPiece needs it)");
  unk = it->second;
}

/// The ids of a template's special token: its `special_tokens` entry, else the added token with
/// that content.
std::vector<int> Tokenizer::Impl::special_ids(const json& special_tokens, const std::string& name,
                                              const std::string& where,
                                              const std::string& template_field) const {
  const std::string field = where + ".special_tokens." + prefix_excerpt(name, 40) + ".ids";
  const json* entry = member(special_tokens, name.c_str());
  const json* list = entry ? member(*entry, "ids") : nullptr;
  std::vector<int> out;
  if (list) {
    if (!list->is_array() || list->empty() || list->size() > 16)
      refuse(field, "expected 1 to 16 ids, got " + describe(list));
    for (std::size_t i = 0; i < list->size(); ++i)
      out.push_back(read_id((*list)[i], field + "[" + std::to_string(i) + "]"));
  } else {
    for (const AddedToken& t : added)
      if (t.content == name) out = {t.id};
  }
  if (out.empty())
    refuse(template_field, "the special token " + quoted_excerpt(name) +
                               " is in neither special_tokens nor added_tokens");
  for (const int id : out)
    if (!bytes.count(id)) refuse(field, "id " + std::to_string(id) + " is not in the vocabulary");
  return out;
}

/// The template `key` ("single": $A once; "pair": $A and $B once each) of the post-processor at
/// `processor`: {"SpecialToken": {"id": "[CLS]", "type_id": 0}} or {"Sequence": {"id": "A",
/// "type_id": 0}}.
std::vector<TemplatePiece> Tokenizer::Impl::read_pieces(const json& list,
                                                        const json& special_tokens,
                                                        const std::string& processor,
                                                        const char* key) const {
  const std::string where = processor + "." + key;
  const int sequences = std::string(key) == "pair" ? 2 : 1;
  if (!list.is_array()) refuse(where, "expected an array, got " + describe(&list));
  std::vector<TemplatePiece> pieces;
  bool seen[2] = {false, false};
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& item = list[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    const json* special = member(item, "SpecialToken");
    const json* sequence = member(item, "Sequence");
    const json* body = special ? special : sequence;
    const json* name = body ? member(*body, "id") : nullptr;
    if (!name || !name->is_string())
      refuse(at,
             "expected {\"SpecialToken\": {\"id\": ...}} or {\"Sequence\": {\"id\": \"A\"}}, got " +
                 describe(&item));
    const json* type_id = member(*body, "type_id");
    const int type = type_id ? read_id(*type_id, at + ".type_id") : 0;
    if (special) {
      pieces.push_back(
          {-1, special_ids(special_tokens, name->get<std::string>(), processor, where), type});
      continue;
    }
    const std::string& id = name->get_ref<const std::string&>();
    const int k = id == "A" ? 0 : id == "B" ? 1 : 2;
    if (k >= sequences || seen[k])
      refuse(at, std::string("expected the sequence $A") + (sequences == 2 ? " or $B" : "") +
                     " once, got " + describe(&item));
    seen[k] = true;
    pieces.push_back({k, {}, type});
  }
  if (!seen[0] || (sequences == 2 && !seen[1]))
    refuse(where, std::string("expected the sequence ") + (seen[0] ? "$B" : "$A") + ", got none");
  return pieces;
}

/// TemplateProcessing: `single` for one text (BOS before $A, EOS after it), `pair` for two
/// (BERT's [CLS] $A [SEP] $B:1 [SEP]:1).
void Tokenizer::Impl::read_template(const json& node, const std::string& where) {
  const json* special_tokens = member(node, "special_tokens");
  const json no_specials = json::object();
  const json& specials = special_tokens ? *special_tokens : no_specials;
  const json* single_list = member(node, "single");
  if (!single_list) refuse(where + ".single", "expected an array, got nothing");
  single = read_pieces(*single_list, specials, where, "single");
  // Hugging Face reads a file whose pair template is empty (it then cannot encode a pair).
  const json* pair_list = member(node, "pair");
  pair_known = pair_list && !(pair_list->is_array() && pair_list->empty());
  if (pair_known) pair = read_pieces(*pair_list, specials, where, "pair");
}

/// BertProcessing ("sep": ["[SEP]", 102], "cls": ["[CLS]", 101]): [CLS] $A [SEP], and [CLS] $A
/// [SEP] $B:1 [SEP]:1. RobertaProcessing: <s> $A </s>, and <s> $A </s> </s> $B </s>, every type 0.
void Tokenizer::Impl::read_bert_processing(const json& node, const std::string& where,
                                           bool roberta) {
  const auto token = [&](const char* key) {
    const json* v = member(node, key);
    if (!v || !v->is_array() || v->size() != 2 || !(*v)[0].is_string())
      refuse(where + "." + key, "expected [\"token\", id], got " + describe(v));
    const int id = read_id((*v)[1], where + "." + key + "[1]");
    if (!bytes.count(id))
      refuse(where + "." + key + "[1]", "id " + std::to_string(id) + " is not in the vocabulary");
    return id;
  };
  const int cls = token("cls"), sep = token("sep");
  const int b = roberta ? 0 : 1;
  single = {{-1, {cls}, 0}, {0, {}, 0}, {-1, {sep}, 0}};
  pair = {{-1, {cls}, 0},
          {0, {}, 0},
          {-1, roberta ? std::vector<int>{sep, sep} : std::vector<int>{sep}, 0},
          {1, {}, b},
          {-1, {sep}, b}};
  pair_known = true;
}

void Tokenizer::Impl::read_post_processor(const json& node, const std::string& where, int depth) {
  if (node.is_null()) return;
  const json* type = member(node, "type");
  const std::string name = type && type->is_string() ? type->get<std::string>() : "";
  if (name == "ByteLevel") return;  // offsets only
  if (name == "TemplateProcessing" || name == "BertProcessing" || name == "RobertaProcessing") {
    if (template_read)
      refuse(where, "a second post-processor that adds special tokens is not supported");
    template_read = true;
    if (name == "TemplateProcessing") return read_template(node, where);
    return read_bert_processing(node, where, name == "RobertaProcessing");
  }
  if (name == "Sequence" && depth < kMaxSequenceDepth) {
    const json* list = member(node, "processors");
    if (!list || !list->is_array())
      refuse(where + ".processors", "expected an array, got " + describe(list));
    for (std::size_t i = 0; i < list->size(); ++i)
      read_post_processor((*list)[i], where + ".processors[" + std::to_string(i) + "]", depth + 1);
    return;
  }
  refuse(where + ".type",
         describe(type) +
             " is not supported (ByteLevel, TemplateProcessing, BertProcessing, RobertaProcessing, "
             "Sequence)");
}

/// The normalizer: null, NFC, NFD, Replace, Prepend, Lowercase, BertNormalizer, or a Sequence of
/// them, in order.
void Tokenizer::Impl::read_normalizer(const json& node, const std::string& where, int depth) {
  if (node.is_null()) return;
  const json* type = member(node, "type");
  const std::string name = type && type->is_string() ? type->get<std::string>() : "";
  if (name == "NFC") return normalizer.push_back({NormalizerStep::Kind::nfc, nullptr, ""});
  if (name == "NFD") return normalizer.push_back({NormalizerStep::Kind::nfd, nullptr, ""});
  if (name == "Lowercase")
    return normalizer.push_back({NormalizerStep::Kind::lowercase, nullptr, ""});
  if (name == "BertNormalizer") {
    NormalizerStep step{NormalizerStep::Kind::bert, nullptr, ""};
    step.bert.clean_text = read_bool(node, "clean_text", true, where);
    step.bert.chinese_chars = read_bool(node, "handle_chinese_chars", true, where);
    step.bert.lowercase = read_bool(node, "lowercase", true, where);
    step.bert.strip_accents =
        read_bool(node, "strip_accents", step.bert.lowercase, where);  // null: as lowercase
    return normalizer.push_back(step);
  }
  if (name == "Replace") {
    const json* pattern = member(node, "pattern");
    const json* content = member(node, "content");
    const bool one = pattern && pattern->is_object() && pattern->size() == 1;
    const std::string kind = one ? pattern->begin().key() : "";
    if (!one || (kind != "String" && kind != "Regex") || !pattern->begin()->is_string())
      refuse(where + ".pattern", "expected {\"String\": ...} or {\"Regex\": ...}, got " + describe(pattern));
    if (!content || !content->is_string())
      refuse(where + ".content", "expected a string, got " + describe(content));
    return normalizer.push_back(
        {NormalizerStep::Kind::replace,
         std::make_shared<detail::Regex>(pattern->begin()->get<std::string>(), kind == "String", where + ".pattern"),
         content->get<std::string>()});
  }
  if (name == "Prepend") {
    const json* prepend = member(node, "prepend");
    if (!prepend || !prepend->is_string())
      refuse(where + ".prepend", "expected a string, got " + describe(prepend));
    return normalizer.push_back({NormalizerStep::Kind::prepend, nullptr, prepend->get<std::string>()});
  }
  if (name == "Sequence" && depth < kMaxSequenceDepth) {
    const json* list = member(node, "normalizers");
    if (!list || !list->is_array())
      refuse(where + ".normalizers", "expected an array, got " + describe(list));
    for (std::size_t i = 0; i < list->size(); ++i)
      read_normalizer((*list)[i], where + ".normalizers[" + std::to_string(i) + "]", depth + 1);
    return;
  }
  refuse(where + ".type",
         describe(type) +
             " is not supported (NFC, NFD, Replace, Prepend, Lowercase, BertNormalizer, Sequence)");
}

/// The decoder of a vocabulary of text, as far as it changes one token's text: Replace (of a
/// string), ByteFallback, Metaspace (its replacement back to a space), WordPiece (a token inside a
/// word without its "##", one that starts a word after a space); Fuse and Strip act on a whole
/// sequence. Anything else is refused.
void Tokenizer::Impl::read_decoder(const json& node, const std::string& where, int depth,
                                   std::vector<DecoderStep>& steps) const {
  if (node.is_null()) return;
  const json* type = member(node, "type");
  const std::string name = type && type->is_string() ? type->get<std::string>() : "";
  if (name == "Fuse" || name == "Strip") return;
  if (name == "ByteFallback") return steps.push_back({DecoderStep::Kind::byte_fallback, "", ""});
  if (name == "Replace") {
    const json* pattern = member(node, "pattern");
    const json* text = pattern ? member(*pattern, "String") : nullptr;
    const json* content = member(node, "content");
    if (!text || !text->is_string() || pattern->size() != 1)
      refuse(where + ".pattern", "expected {\"String\": ...}, got " + describe(pattern));
    if (!content || !content->is_string())
      refuse(where + ".content", "expected a string, got " + describe(content));
    return steps.push_back({DecoderStep::Kind::replace, text->get<std::string>(), content->get<std::string>()});
  }
  if (name == "WordPiece") {  // its cleanup joins punctuation across tokens: a whole-sequence step
    const json* prefix = member(node, "prefix");
    if (prefix && !prefix->is_string())
      refuse(where + ".prefix", "expected a string, got " + describe(prefix));
    return steps.push_back(
        {DecoderStep::Kind::wordpiece, prefix ? prefix->get<std::string>() : "##", ""});
  }
  if (name == "Metaspace") {
    const json* replacement = member(node, "replacement");
    if (!replacement || !replacement->is_string())
      refuse(where + ".replacement", "expected a string, got " + describe(replacement));
    return steps.push_back({DecoderStep::Kind::replace, replacement->get<std::string>(), " "});
  }
  if (name == "Sequence" && depth < kMaxSequenceDepth) {
    const json* list = member(node, "decoders");
    if (!list || !list->is_array()) refuse(where + ".decoders", "expected an array, got " + describe(list));
    for (std::size_t i = 0; i < list->size(); ++i)
      read_decoder((*list)[i], where + ".decoders[" + std::to_string(i) + "]", depth + 1, steps);
    return;
  }
  refuse(
      where + ".type",
      describe(type) +
          " is not supported (Replace, ByteFallback, Fuse, Strip, Metaspace, WordPiece, Sequence)");
}

// ---- encoding -----------------------------------------------------------------------------------

/// BPE on `symbols` (ids): while some adjacent pair has a merge, take the lowest rank and merge all
/// its occurrences left to right, then look again (GPT-2's encoder). A heap of candidate pairs
/// (rank, position) makes it O(n log n); a stale candidate is skipped when its pair has changed.
/// one_merge_at_a_time (tokenizer.json): Hugging Face's word.rs instead, the lowest (rank, position)
/// merged alone and the pairs it makes considered at once, a candidate stale when its pair no
/// longer merges into the same token.
void Tokenizer::Impl::merge(std::vector<int>& symbols, const detail::Budget& budget) const {
  const int n = static_cast<int>(symbols.size());
  std::vector<int> next(n), prev(n);
  for (int i = 0; i < n; ++i) next[i] = i + 1 < n ? i + 1 : -1, prev[i] = i - 1;
  struct Candidate {
    int rank, pos, left, right, result;
    bool operator>(const Candidate& o) const {
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  const auto consider = [&](int pos) {
    if (pos < 0 || next[pos] < 0) return;
    const auto it = merges.find(pair_key(symbols[pos], symbols[next[pos]]));
    if (it != merges.end())
      heap.push({it->second.rank, pos, symbols[pos], symbols[next[pos]], it->second.result});
  };
  for (int i = 0; i + 1 < n; ++i) consider(i);
  std::vector<Candidate> round;
  // A SentencePiece-style text between added tokens is one piece (Gemma): the budget is checked
  // here too, every 65,536 candidates.
  for (std::size_t popped = 0; !heap.empty(); ++popped) {
    if (popped % 65536 == 65535) budget.check();
    // All occurrences of the lowest-ranked pair, left to right, before any pair they create (which
    // may rank lower): GPT-2's pass over the word. Hugging Face merges one at a time instead, which
    // differs only when a merge's result also takes part in a lower-ranked merge.
    round.clear();
    if (one_merge_at_a_time) {
      round.push_back(heap.top());
      heap.pop();
    } else {
      for (const int rank = heap.top().rank; !heap.empty() && heap.top().rank == rank; heap.pop())
        round.push_back(heap.top());
    }
    for (const Candidate& c : round) {
      const int right = next[c.pos];
      if (symbols[c.pos] < 0 || right < 0) continue;  // merged away, or the last symbol
      if (one_merge_at_a_time) {
        const auto now = merges.find(pair_key(symbols[c.pos], symbols[right]));
        if (now == merges.end() || now->second.result != c.result) continue;  // stale
      } else if (symbols[c.pos] != c.left || symbols[right] != c.right) {
        continue;  // stale
      }
      symbols[c.pos] = c.result;
      symbols[right] = -1;
      next[c.pos] = next[right];
      if (next[right] >= 0) prev[next[right]] = c.pos;
      consider(prev[c.pos]);
      consider(c.pos);
    }
  }
  symbols.erase(std::remove(symbols.begin(), symbols.end(), -1), symbols.end());
}

void Tokenizer::Impl::bpe(const std::string& piece, std::vector<int>& out,
                          std::unordered_map<std::string, std::vector<int>>& cache,
                          const detail::Budget& budget) const {
  if (ignore_merges) {  // Llama 3: a piece that is itself a token stays whole
    const auto it = ids.find(piece);
    if (it != ids.end()) return out.push_back(it->second);
  }
  const auto cached = cache.find(piece);
  if (cached != cache.end()) {
    out.insert(out.end(), cached->second.begin(), cached->second.end());
    return;
  }
  std::vector<int> symbols;
  symbols.reserve(piece.size());
  if (!byte_level) {
    text_symbols(piece, symbols);
  } else {
    for (const char ch : piece) {
      const auto b = static_cast<unsigned char>(ch);
      if (byte_ids[b] < 0 && unk < 0)
        refuse("text", "the byte " + hex_byte(b) +
                           " has no token in the vocabulary (and there is no unk_token)");
      symbols.push_back(byte_ids[b] >= 0 ? byte_ids[b] : unk);
    }
  }
  merge(symbols, budget);
  out.insert(out.end(), symbols.begin(), symbols.end());
  if (piece.size() <= kMaxCachedPiece) cache.emplace(piece, std::move(symbols));
}

/// A SentencePiece-style piece's first symbols, as Hugging Face's BPE::merge_word makes them: each
/// character its token; without one, its bytes' "<0xNN>" tokens (byte_fallback), else unk (a run
/// of them one unk with fuse_unk).
void Tokenizer::Impl::text_symbols(const std::string& piece, std::vector<int>& symbols) const {
  int pending_unk = -1;  // an unk not yet added, which the next unknown character may join
  for (std::size_t i = 0; i < piece.size();) {
    const std::size_t n = std::max<std::size_t>(utf8_sequence(piece, i), 1);
    const std::string character = piece.substr(i, n);
    i += n;
    const auto it = ids.find(character);
    if (it != ids.end()) {
      if (pending_unk >= 0) symbols.push_back(pending_unk), pending_unk = -1;
      symbols.push_back(it->second);
      continue;
    }
    if (byte_fallback && std::all_of(character.begin(), character.end(),
                                     [&](char b) { return byte_ids[static_cast<unsigned char>(b)] >= 0; })) {
      for (const char b : character) symbols.push_back(byte_ids[static_cast<unsigned char>(b)]);
      continue;  // as Hugging Face: a pending unk is added after these
    }
    if (unk < 0)
      refuse("text", code_point_name(detail::code_point(character, 0, n)) +
                         " has no token in the vocabulary (and no byte_fallback or unk_token)");
    if (pending_unk >= 0 && !fuse_unk) symbols.push_back(pending_unk);
    pending_unk = unk;
  }
  if (pending_unk >= 0) symbols.push_back(pending_unk);
}

namespace {

/// `text` in NFC (`compose`) or NFD.
std::string normalization_form(const std::string& text, bool compose) {
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                   static_cast<utf8proc_ssize_t>(text.size()), &out,
                   static_cast<utf8proc_option_t>(
                       UTF8PROC_STABLE | (compose ? UTF8PROC_COMPOSE : UTF8PROC_DECOMPOSE)));
  if (n < 0) {
    std::free(out);
    refuse("text", std::string(compose ? "NFC" : "NFD") + " failed: " + utf8proc_errmsg(n));
  }
  std::string result(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
  std::free(out);
  return result;
}

void append_code_point(std::string& out, char32_t c) {
  utf8proc_uint8_t bytes[4];
  const auto n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(c), bytes);
  out.append(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(n));
}

/// `text` with `change` applied to each code point: it appends what the code point becomes.
template <typename Change>
std::string map_code_points(const std::string& text, const Change& change) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = std::max<std::size_t>(utf8_sequence(text, i), 1);
    change(detail::code_point(text, i, n), out);
    i += n;
  }
  return out;
}

/// Rust's char::to_lowercase, as Hugging Face's Lowercase: utf8proc's mapping, and the one code
/// point whose lower case is two, U+0130 (I with dot above) -> "i" U+0307.
std::string lowercase(const std::string& text) {
  return map_code_points(text, [](char32_t c, std::string& out) {
    if (c == 0x130)
      out += "i\xCC\x87";
    else
      append_code_point(out,
                        static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
  });
}

/// Hugging Face's BertNormalizer: control characters dropped and whitespace made a space, spaces
/// around CJK ideographs, accents stripped (NFD, then the non-spacing marks dropped), lower case.
std::string bert_normalize(std::string text, const tokenizer_parts::BertOptions& options) {
  if (options.clean_text)
    text = map_code_points(text, [](char32_t c, std::string& out) {
      if (detail::bert_removed_control(c)) return;
      if (white_space(c)) return out.push_back(' ');
      append_code_point(out, c);
    });
  if (options.chinese_chars)
    text = map_code_points(text, [](char32_t c, std::string& out) {
      if (!detail::chinese_character(c)) return append_code_point(out, c);
      out.push_back(' ');
      append_code_point(out, c);
      out.push_back(' ');
    });
  if (options.strip_accents)
    text = map_code_points(normalization_form(text, false), [](char32_t c, std::string& out) {
      if (!detail::bert_nonspacing_mark(c)) append_code_point(out, c);
    });
  return options.lowercase ? lowercase(text) : text;
}

}  // namespace

/// `text` through the normalizer's steps in order.
std::string Tokenizer::Impl::normalize(std::string text, const detail::Budget& budget) const {
  for (const NormalizerStep& step : normalizer) {
    if (step.kind == NormalizerStep::Kind::nfc || step.kind == NormalizerStep::Kind::nfd) {
      text = normalization_form(text, step.kind == NormalizerStep::Kind::nfc);
    } else if (step.kind == NormalizerStep::Kind::lowercase) {
      text = lowercase(text);
    } else if (step.kind == NormalizerStep::Kind::bert) {
      text = bert_normalize(std::move(text), step.bert);
    } else if (step.kind == NormalizerStep::Kind::prepend) {
      if (!text.empty()) text.insert(0, step.content);
    } else {
      std::string out;
      std::size_t done = 0;
      for (const auto& [begin, end] : step.pattern->find_all(text, budget)) {
        out.append(text, done, begin - done);
        out += step.content;
        done = end;
        // A long content for every character could ask for gigabytes: bounded as a file is.
        if (out.size() > kMaxNormalizedBytes)
          refuse("text", "the normalizer's Replace makes the text longer than 256 MiB");
      }
      out.append(text, done, std::string::npos);
      text = std::move(out);
    }
  }
  return text;
}

// ---- the public interface -----------------------------------------------------------------------

Tokenizer::Tokenizer() : impl_(std::make_unique<Impl>()) {}
Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

/// tokenizer.json. A pre-tokenizer ending in ByteLevel means a vocabulary of byte symbols (GPT-2,
/// Llama 3, Qwen2); without ByteLevel the vocabulary is text, SentencePiece-style ("▁the", byte
/// tokens "<0x0A>"; Gemma, Llama 2, Mistral), and the decoder says what a token stands for.
void Tokenizer::Impl::read_document(const json& doc, const std::string& file) {
  if (!doc.is_object())
    refuse(file, "expected a JSON object at the top level, got " + describe(&doc));
  if (const json* list = member(doc, "added_tokens")) read_added(*list, file);
  const json* pre_tokenizer = member(doc, "pre_tokenizer");
  pre = detail::parse_pre_tokenizer(pre_tokenizer ? *pre_tokenizer : json(), file);
  byte_level = pre.byte_level();
  one_merge_at_a_time = true;
  const json* model = member(doc, "model");
  if (!model) refuse(file + ": model", "expected an object, got nothing");
  read_model(*model, file);
  if (const json* node = member(doc, "normalizer")) read_normalizer(*node, file + ": normalizer", 0);
  if (!byte_level) {
    std::vector<DecoderStep> decoder;
    if (const json* node = member(doc, "decoder")) read_decoder(*node, file + ": decoder", 0, decoder);
    for (const auto& [id, token] : spelled) {
      std::string text = token;
      for (const DecoderStep& step : decoder) {
        const int b = step.kind == DecoderStep::Kind::byte_fallback ? fallback_byte(text) : -1;
        if (b >= 0) text = std::string(1, static_cast<char>(b));
        if (step.kind == DecoderStep::Kind::replace) text = replace_all(text, step.from, step.to);
        if (step.kind == DecoderStep::Kind::wordpiece)
          text = text.compare(0, step.from.size(), step.from) == 0 ? text.substr(step.from.size())
                                                                   : " " + text;
      }
      bytes[id] = text;
    }
  }
  for (const AddedToken& a : added) bytes[a.id] = a.content, spelled[a.id] = a.content;
  if (const json* post = member(doc, "post_processor"))
    read_post_processor(*post, file + ": post_processor", 0);
}

void Tokenizer::Impl::finish() {
  const detail::Budget no_limit(1e9, nullptr);
  for (std::size_t k = 0; k < added.size(); ++k) {
    // A normalized one is matched as the normalizer makes its content, as Hugging Face does.
    const std::string matched = added[k].normalized ? normalize(added[k].content, no_limit) : added[k].content;
    added[k].matched_size = matched.size();
    (added[k].normalized ? normalized_added : raw_added).add(matched, static_cast<int>(k));
  }
  for (const auto& entry : bytes) limit = std::max(limit, entry.first + 1);
}

Tokenizer Tokenizer::from_tokenizer_json(const std::string& json_text, const std::string& file) {
  Tokenizer t;
  try {
    t.impl_->read_document(parse_json(json_text, file), file);
  } catch (const json::exception& e) {  // a value of an unexpected type the checks above missed
    refuse(file, std::string("unexpected JSON: ") + e.what());
  }
  t.impl_->finish();
  return t;
}

Tokenizer Tokenizer::from_vocab_and_merges(const std::string& vocab_json,
                                           const std::string& merges_txt) {
  Tokenizer t;
  Impl& impl = *t.impl_;
  try {
    impl.read_vocab(parse_json(vocab_json, "vocab.json"), "vocab.json", {});
  } catch (const json::exception& e) {
    refuse("vocab.json", std::string("unexpected JSON: ") + e.what());
  }
  impl.read_merges_txt(merges_txt);
  impl.pre = detail::gpt2_pre_tokenizer();
  impl.finish();
  return t;
}

namespace {

/// vocab.txt's tokens, the one of line n with id n - 1. Refused, naming the line: an empty line, a
/// token on two lines (Hugging Face's BertTokenizer reads both: the empty line's id is one no text
/// reaches, the repeated token keeps the later line's id and the earlier one is never produced),
/// bytes that are not UTF-8 (which Python's reader refuses too). "\r\n" ends a line as "\n" does.
json vocab_txt_tokens(const std::string& text) {
  json vocab = json::object();
  std::unordered_map<std::string, int> line_of;
  std::size_t line_start = 0;
  for (int line = 1; line_start < text.size(); ++line) {
    const std::size_t end = std::min(text.find('\n', line_start), text.size());
    std::string token = text.substr(line_start, end - line_start);
    line_start = end + 1;
    if (!token.empty() && token.back() == '\r') token.pop_back();
    const std::string where = "vocab.txt: line " + std::to_string(line);
    if (token.empty())
      refuse(
          where,
          "expected a token, got an empty line (Hugging Face would give it an id no text reaches)");
    for (std::size_t i = 0; i < token.size(); i += utf8_sequence(token, i))
      if (utf8_sequence(token, i) == 0)
        refuse(where, "not valid UTF-8 at byte " + std::to_string(i));
    if (line - 1 > kMaxId) refuse(where, "more than " + std::to_string(kMaxId + 1) + " tokens");
    const auto [first, fresh] = line_of.emplace(token, line);
    if (!fresh)
      refuse(where, quoted_excerpt(token) + " is also line " + std::to_string(first->second) +
                        " (Hugging Face would keep this line's id and never produce the other)");
    vocab[token] = line - 1;
  }
  return vocab;
}

/// tokenizer_config.json's `key` as a bool: `fallback` when absent or null.
bool config_bool(const json& config, const char* key, bool fallback) {
  const json* v = member(config, key);
  if (v && !v->is_boolean())
    refuse(std::string("tokenizer_config.json: ") + key,
           "expected true or false, got " + describe(v));
  return v ? v->get<bool>() : fallback;
}

}  // namespace

/// vocab.txt as the tokenizer.json that Hugging Face's BertTokenizerFast makes of it
/// (convert_slow_tokenizer's BertConverter), read as such.
Tokenizer Tokenizer::from_vocab_txt(const std::string& vocab_txt,
                                    const std::string& tokenizer_config_json) {
  json vocab = vocab_txt_tokens(vocab_txt);
  const json config = tokenizer_config_json.empty()
                          ? json::object()
                          : parse_json(tokenizer_config_json, "tokenizer_config.json");
  if (!config.is_object())
    refuse("tokenizer_config.json",
           "expected a JSON object at the top level, got " + describe(&config));
  const bool lower_case = config_bool(config, "do_lower_case", true);
  const json* strip = member(config, "strip_accents");
  if (strip && !strip->is_boolean())
    refuse("tokenizer_config.json: strip_accents",
           "expected true, false or null, got " + describe(strip));
  json added = json::array();
  for (const char* special : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}) {
    const json* id = member(vocab, special);
    if (!id && (std::string(special) == "[UNK]" || std::string(special) == "[CLS]" ||
                std::string(special) == "[SEP]"))
      refuse("vocab.txt",
             std::string("no line holds ") + special + ", which BERT's tokenizer needs");
    if (id)
      added.push_back(
          {{"id", *id}, {"content", special}, {"special", true}, {"normalized", false}});
  }
  const json doc = {{"added_tokens", added},
                    {"normalizer",
                     {{"type", "BertNormalizer"},
                      {"clean_text", true},
                      {"handle_chinese_chars", config_bool(config, "tokenize_chinese_chars", true)},
                      {"strip_accents", strip ? *strip : json(nullptr)},
                      {"lowercase", lower_case}}},
                    {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
                    {"post_processor",
                     {{"type", "BertProcessing"},
                      {"sep", {"[SEP]", vocab["[SEP]"]}},
                      {"cls", {"[CLS]", vocab["[CLS]"]}}}},
                    {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}}},
                    {"model",
                     {{"type", "WordPiece"},
                      {"unk_token", "[UNK]"},
                      {"continuing_subword_prefix", "##"},
                      {"max_input_chars_per_word", 100},
                      {"vocab", std::move(vocab)}}}};
  Tokenizer t;
  t.impl_->read_document(doc, "vocab.txt");
  t.impl_->finish();
  return t;
}

Tokenizer Tokenizer::load(const fs::path& dir) {
  std::error_code ec;
  const bool is_file = fs::is_regular_file(dir, ec) && dir.filename() == "tokenizer.json";
  const fs::path json_path = is_file ? dir : dir / "tokenizer.json";
  if (detail::present(json_path)) return from_tokenizer_json(read_file(json_path), "tokenizer.json");
  const bool vocab = detail::present(dir / "vocab.json"), merges = detail::present(dir / "merges.txt");
  if (vocab && merges)
    return from_vocab_and_merges(read_file(dir / "vocab.json"), read_file(dir / "merges.txt"));
  if (detail::present(dir / "vocab.txt")) {
    const fs::path config = dir / "tokenizer_config.json";
    return from_vocab_txt(read_file(dir / "vocab.txt"),
                          detail::present(config) ? read_file(config) : "");
  }
  if (detail::present(dir / "tokenizer.model"))
    refuse("tokenizer",
           "only tokenizer.model (SentencePiece) found; attnlab reads tokenizer.json, vocab.json + "
           "merges.txt or vocab.txt");
  if (vocab || merges)
    refuse("tokenizer",
           std::string(vocab ? "vocab.json without merges.txt" : "merges.txt without vocab.json") +
               " in " + quoted_excerpt(dir.string()) + "; byte-level BPE needs both");
  refuse("tokenizer", "no tokenizer.json, vocab.json + merges.txt or vocab.txt in " +
                          quoted_excerpt(dir.string()));
}

/// The ids of one text as the model reads them, before the post-processor's special tokens,
/// appended to `out`; `check_count` after each piece.
void Tokenizer::Impl::encode_sequence(const std::string& text, const detail::Budget& budget,
                                      const std::function<void()>& check_count,
                                      std::vector<int>& out) const {
  std::unordered_map<std::string, std::vector<int>>
      cache;  // per call: encode may run on two threads
  // `s` cut at the added tokens of `trie` (leftmost-longest, one walk per position): each stretch
  // between them to `stretch(begin, end)`, each token's id to the output.
  std::size_t walks = 0;
  const auto split_added = [&](const std::string& s, const AddedTrie& trie, const auto& stretch) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size() && !trie.empty();) {
      if (++walks % 4096 == 0) budget.check();
      const int k = trie.find(s, i);
      if (k < 0) {
        ++i;
        continue;
      }
      const AddedToken& token = added[std::size_t(k)];
      std::size_t begin = i, end = i + token.matched_size;
      if (token.single_word && ((begin > 0 && word_character(code_point_before(s, begin))) ||
                                (end < s.size() && word_character(detail::code_point(s, end, utf8_sequence(s, end)))))) {
        i = end;  // as Hugging Face's search, which goes on after the match it drops
        continue;
      }
      while (token.lstrip && begin > start && white_space(code_point_before(s, begin)))
        while ((static_cast<unsigned char>(s[--begin]) & 0xC0) == 0x80) {}
      while (token.rstrip && end < s.size() && white_space(detail::code_point(s, end, utf8_sequence(s, end))))
        end += utf8_sequence(s, end);
      if (start < begin) stretch(start, begin);
      out.push_back(token.id);
      check_count();
      i = start = end;
    }
    if (start < s.size()) stretch(start, s.size());
  };
  // As Hugging Face: the raw text cut at the added tokens matched raw, each stretch normalized and
  // cut at the normalized ones, each piece of that pre-tokenized and merged (or split into word
  // pieces).
  split_added(text, raw_added, [&](std::size_t begin, std::size_t end) {
    const std::string normalized = normalize(text.substr(begin, end - begin), budget);
    split_added(normalized, normalized_added, [&](std::size_t b, std::size_t e) {
      for (const std::string& piece :
           pre.run(normalized.substr(b, e - b), budget, begin == 0 && b == 0)) {
        if (wordpiece)
          wordpiece_word(piece, out, budget);
        else
          bpe(piece, out, cache, budget);
        check_count();
      }
    });
  });
}

/// The post-processor's template `pieces` filled with the texts ($A, and $B when given): the
/// sequences encoded first, each token counted against the limit with the special tokens the
/// template adds, then laid out in the template's order with its token types.
Tokenizer::Encoding Tokenizer::Impl::assemble(const std::vector<TemplatePiece>& pieces,
                                              const std::string* texts[2],
                                              const EncodeLimits& limits) const {
  const char* names[2] = {"text", "second text"};
  for (int k = 0; k < 2; ++k) {
    for (std::size_t i = 0; texts[k] && i < texts[k]->size();) {
      const std::size_t n = utf8_sequence(*texts[k], i);
      if (n == 0) refuse(names[k], "not valid UTF-8 at byte " + std::to_string(i));
      i += n;
    }
  }
  std::size_t specials = 0;
  for (const TemplatePiece& piece : pieces) specials += piece.ids.size();
  const detail::Budget budget(limits.seconds, limits.cancelled);
  std::vector<int> sequence[2];
  // Counted as they are produced: a text of a million characters stops at the model's limit.
  const auto check_count = [&] {
    if (sequence[0].size() + sequence[1].size() + specials > limits.max_tokens)
      refuse("text", "more than " + std::to_string(limits.max_tokens) + " tokens, " +
                         limits.max_tokens_reason);
  };
  for (int k = 0; k < 2; ++k)
    if (texts[k]) encode_sequence(*texts[k], budget, check_count, sequence[k]);
  check_count();
  Encoding encoding;
  for (const TemplatePiece& piece : pieces) {
    const std::vector<int>& ids = piece.sequence < 0 ? piece.ids : sequence[piece.sequence];
    encoding.ids.insert(encoding.ids.end(), ids.begin(), ids.end());
    encoding.type_ids.insert(encoding.type_ids.end(), ids.size(), piece.type_id);
    encoding.sequence_ids.insert(encoding.sequence_ids.end(), ids.size(), piece.sequence);
  }
  return encoding;
}

/// WordPiece on one pre-tokenized word, as Hugging Face's: from the word's start, the longest
/// prefix that is a token, then the longest continuation ("##" + the rest's prefix), and so on; a
/// word with a stretch no token spells, or longer than max_input_chars_per_word characters, is
/// the unk token alone.
void Tokenizer::Impl::wordpiece_word(const std::string& word, std::vector<int>& out,
                                     const detail::Budget& budget) const {
  std::size_t chars = 0;
  for (const char c : word) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  if (chars > max_word_chars) return out.push_back(unk);
  const std::size_t first = out.size();
  std::string candidate;
  std::size_t hashed = 0;  // bytes looked up since the budget was last checked: a token may be long
  for (std::size_t start = 0; start < word.size();) {
    const std::string_view prefix =
        start > 0 ? std::string_view(continuing_prefix) : std::string_view();
    // No token is longer than the longest one: a candidate starts there, at a character's start.
    std::size_t end = word.size();
    if (prefix.size() + (end - start) > longest_token) {
      end = start + (longest_token > prefix.size() ? longest_token - prefix.size() : 0);
      while (end > start && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80) --end;
    }
    int found = -1;
    for (; end > start; end = code_point_start(word, end - 1)) {
      hashed += prefix.size() + end - start;
      if (hashed > kHashedBytesPerCheck) {
        hashed = 0;
        budget.check();
      }
      candidate.assign(prefix);
      candidate.append(word, start, end - start);
      const auto it = ids.find(candidate);
      if (it != ids.end()) {
        found = it->second;
        break;
      }
    }
    if (found < 0) {
      out.resize(first);
      return out.push_back(unk);
    }
    out.push_back(found);
    start = end;
  }
}

std::vector<int> Tokenizer::encode(const std::string& text, const EncodeLimits& limits) const {
  return encode_single(text, limits).ids;
}

Tokenizer::Encoding Tokenizer::encode_single(const std::string& text,
                                             const EncodeLimits& limits) const {
  const std::string* texts[2] = {&text, nullptr};
  return impl_->assemble(impl_->single, texts, limits);
}

Tokenizer::Encoding Tokenizer::encode_pair(const std::string& a, const std::string& b,
                                           const EncodeLimits& limits) const {
  if (!impl_->pair_known)
    refuse("second text", "the tokenizer's post-processor has no template for a pair of texts");
  const std::string* texts[2] = {&a, &b};
  return impl_->assemble(impl_->pair, texts, limits);
}

std::string Tokenizer::decode(int id) const {
  const auto it = impl_->bytes.find(id);
  if (it == impl_->bytes.end())
    refuse("token id", "expected an id the vocabulary holds (0.." + std::to_string(id_limit() - 1) +
                           "), got " + std::to_string(id));
  return it->second;
}

std::string Tokenizer::label(int id) const { return label_text(decode(id)); }

std::string Tokenizer::token(int id) const {
  const auto it = impl_->spelled.find(id);
  if (it != impl_->spelled.end()) return it->second;
  std::string symbols;
  for (const char c : decode(id)) {  // byte-level: each byte as its symbol, "Ġ" for a space
    const char32_t symbol = detail::byte_to_symbol()[static_cast<unsigned char>(c)];
    if (symbol < 0x80)
      symbols += static_cast<char>(symbol);
    else
      symbols += {static_cast<char>(0xC0 | symbol >> 6), static_cast<char>(0x80 | (symbol & 0x3F))};
  }
  return symbols;
}

int Tokenizer::id_limit() const { return impl_->limit; }

bool Tokenizer::contains(int id) const { return impl_->bytes.count(id) > 0; }

std::optional<int> Tokenizer::id_of(const std::string& spelled) const {
  for (const AddedToken& added : impl_->added)
    if (added.content == spelled) return added.id;
  std::string key = spelled;
  char32_t bad = 0;
  if (impl_->byte_level && !detail::symbols_to_bytes(spelled, key, bad)) return std::nullopt;
  const auto it = impl_->ids.find(key);
  if (it == impl_->ids.end()) return std::nullopt;
  return it->second;
}

std::optional<int> Tokenizer::bos() const {
  const TemplatePiece& first = impl_->single.front();
  if (first.sequence >= 0) return std::nullopt;
  return first.ids.front();
}

}  // namespace attnlab::models
