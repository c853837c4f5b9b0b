#include "attnlab/models/tokenizer.h"

#include <algorithm>
#include <array>
#include <cstdlib>
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

/// The code point that ends at s[end] (valid UTF-8, end > 0).
char32_t code_point_before(std::string_view s, std::size_t end) {
  std::size_t begin = end - 1;
  while (begin > 0 && (static_cast<unsigned char>(s[begin]) & 0xC0) == 0x80) --begin;
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

/// One normalizer: NFC, Replace (a string or a regex, every match) or Prepend (a non-empty text).
struct NormalizerStep {
  enum class Kind { nfc, replace, prepend };
  Kind kind;
  std::shared_ptr<const detail::Regex> pattern;  ///< replace
  std::string content;                           ///< replace: the new text; prepend: what goes first
};

/// What a decoder does to one token's text (the per-token part of Replace, ByteFallback, Metaspace;
/// Fuse and Strip act on the whole sequence and change no token).
struct DecoderStep {
  enum class Kind { replace, byte_fallback };
  Kind kind;
  std::string from, to;  ///< replace (Metaspace: its replacement -> " ")
};

}  // namespace tokenizer_parts

using tokenizer_parts::AddedToken;
using tokenizer_parts::AddedTrie;
using tokenizer_parts::DecoderStep;
using tokenizer_parts::Merge;
using tokenizer_parts::NormalizerStep;

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
  std::vector<int> prefix, suffix;  ///< the post-processor's special tokens around $A
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
  void read_document(const json& doc, const std::string& file);
  void finish();
  void read_post_processor(const json& node, const std::string& where, int depth);
  void read_template(const json& node, const std::string& where);
  std::vector<int> special_ids(const json& special_tokens, const std::string& name,
                               const std::string& where) const;
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
  if (!type || !type->is_string() || type->get_ref<const std::string&>() != "BPE")
    refuse(where + ".type", describe(type) + " is not supported (BPE only)");
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

/// The ids of a template's special token: its `special_tokens` entry, else the added token with
/// that content.
std::vector<int> Tokenizer::Impl::special_ids(const json& special_tokens, const std::string& name,
                                              const std::string& where) const {
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
    refuse(where + ".single", "the special token " + quoted_excerpt(name) +
                                  " is in neither special_tokens nor added_tokens");
  for (const int id : out)
    if (!bytes.count(id)) refuse(field, "id " + std::to_string(id) + " is not in the vocabulary");
  return out;
}

/// TemplateProcessing's `single`: the special tokens before $A become the prefix (BOS), those
/// after it the suffix (EOS), both added by encode.
void Tokenizer::Impl::read_template(const json& node, const std::string& where) {
  const json* single = member(node, "single");
  if (!single || !single->is_array())
    refuse(where + ".single", "expected an array, got " + describe(single));
  const json* special_tokens = member(node, "special_tokens");
  const json no_specials = json::object();
  bool seen_a = false;
  for (std::size_t i = 0; i < single->size(); ++i) {
    const json& item = (*single)[i];
    const std::string at = where + ".single[" + std::to_string(i) + "]";
    const json* special = member(item, "SpecialToken");
    const json* sequence = member(item, "Sequence");
    const json* name = special    ? member(*special, "id")
                       : sequence ? member(*sequence, "id")
                                  : nullptr;
    if (!name || !name->is_string())
      refuse(at,
             "expected {\"SpecialToken\": {\"id\": ...}} or {\"Sequence\": {\"id\": \"A\"}}, got " +
                 describe(&item));
    if (sequence) {
      if (name->get_ref<const std::string&>() != "A" || seen_a)
        refuse(at, "expected the sequence $A once, got " + describe(&item));
      seen_a = true;
      continue;
    }
    const std::vector<int> ids_of = special_ids(special_tokens ? *special_tokens : no_specials,
                                                name->get<std::string>(), where);
    std::vector<int>& side = seen_a ? suffix : prefix;
    side.insert(side.end(), ids_of.begin(), ids_of.end());
  }
  if (!seen_a) refuse(where + ".single", "expected the sequence $A, got none");
}

void Tokenizer::Impl::read_post_processor(const json& node, const std::string& where, int depth) {
  if (node.is_null()) return;
  const json* type = member(node, "type");
  const std::string name = type && type->is_string() ? type->get<std::string>() : "";
  if (name == "ByteLevel") return;  // offsets only
  if (name == "TemplateProcessing") {
    if (!prefix.empty() || !suffix.empty())
      refuse(where, "a second TemplateProcessing is not supported");
    return read_template(node, where);
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
         describe(type) + " is not supported (ByteLevel, TemplateProcessing, Sequence)");
}

/// The normalizer: null, NFC, Replace, Prepend, or a Sequence of them, in order.
void Tokenizer::Impl::read_normalizer(const json& node, const std::string& where, int depth) {
  if (node.is_null()) return;
  const json* type = member(node, "type");
  const std::string name = type && type->is_string() ? type->get<std::string>() : "";
  if (name == "NFC") return normalizer.push_back({NormalizerStep::Kind::nfc, nullptr, ""});
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
  refuse(where + ".type", describe(type) + " is not supported (NFC, Replace, Prepend, Sequence)");
}

/// The decoder of a SentencePiece-style vocabulary, as far as it changes one token's text:
/// Replace (of a string), ByteFallback, Metaspace (its replacement back to a space); Fuse and
/// Strip act on a whole sequence. Anything else is refused.
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
  refuse(where + ".type",
         describe(type) + " is not supported (Replace, ByteFallback, Fuse, Strip, Metaspace, Sequence)");
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

std::string nfc(const std::string& text) {
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                   static_cast<utf8proc_ssize_t>(text.size()), &out,
                   static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (n < 0) {
    std::free(out);
    refuse("text", std::string("NFC failed: ") + utf8proc_errmsg(n));
  }
  std::string result(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
  std::free(out);
  return result;
}

/// `text` through the normalizer's steps in order.
std::string Tokenizer::Impl::normalize(std::string text, const detail::Budget& budget) const {
  for (const NormalizerStep& step : normalizer) {
    if (step.kind == NormalizerStep::Kind::nfc) {
      text = nfc(text);
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

Tokenizer Tokenizer::load(const fs::path& dir) {
  std::error_code ec;
  const bool is_file = fs::is_regular_file(dir, ec) && dir.filename() == "tokenizer.json";
  const fs::path json_path = is_file ? dir : dir / "tokenizer.json";
  if (detail::present(json_path)) return from_tokenizer_json(read_file(json_path), "tokenizer.json");
  const bool vocab = detail::present(dir / "vocab.json"), merges = detail::present(dir / "merges.txt");
  if (vocab && merges)
    return from_vocab_and_merges(read_file(dir / "vocab.json"), read_file(dir / "merges.txt"));
  if (detail::present(dir / "tokenizer.model"))
    refuse("tokenizer",
           "only tokenizer.model (SentencePiece) found; attnlab reads tokenizer.json or vocab.json "
           "+ merges.txt");
  if (vocab || merges)
    refuse("tokenizer",
           std::string(vocab ? "vocab.json without merges.txt" : "merges.txt without vocab.json") +
               " in " + quoted_excerpt(dir.string()) + "; byte-level BPE needs both");
  refuse("tokenizer", "no tokenizer.json or vocab.json + merges.txt in " +
                          quoted_excerpt(dir.string()));
}

std::vector<int> Tokenizer::encode(const std::string& text, const EncodeLimits& limits) const {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i);
    if (n == 0) refuse("text", "not valid UTF-8 at byte " + std::to_string(i));
    i += n;
  }
  const detail::Budget budget(limits.seconds, limits.cancelled);
  std::vector<int> out = impl_->prefix;
  // Counted as they are produced: a text of a million characters stops at the model's limit.
  const auto check_count = [&] {
    if (out.size() + impl_->suffix.size() > limits.max_tokens)
      refuse("text", "more than " + std::to_string(limits.max_tokens) + " tokens, " + limits.max_tokens_reason);
  };
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
      const AddedToken& token = impl_->added[std::size_t(k)];
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
  // cut at the normalized ones, each piece of that pre-tokenized and merged.
  split_added(text, impl_->raw_added, [&](std::size_t begin, std::size_t end) {
    const std::string normalized = impl_->normalize(text.substr(begin, end - begin), budget);
    split_added(normalized, impl_->normalized_added, [&](std::size_t b, std::size_t e) {
      for (const std::string& piece : impl_->pre.run(normalized.substr(b, e - b), budget, begin == 0 && b == 0)) {
        impl_->bpe(piece, out, cache, budget);
        check_count();
      }
    });
  });
  out.insert(out.end(), impl_->suffix.begin(), impl_->suffix.end());
  check_count();
  return out;
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

std::optional<int> Tokenizer::bos() const {
  if (impl_->prefix.empty()) return std::nullopt;
  return impl_->prefix.front();
}

}  // namespace attnlab::models
