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

namespace attnlab::models {
namespace {

using detail::code_point_name;
using detail::describe;
using detail::hex_byte;
using detail::kMaxId;
using detail::label_text;
using detail::member;
using detail::parse_json;
using detail::read_file;
using detail::read_id;
using detail::symbols_to_bytes;
using detail::utf8_sequence;
using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr int kMaxSequenceDepth = 8;
constexpr std::size_t kMaxCachedPiece = 256;  // longer pieces are merged afresh

std::uint64_t pair_key(int a, int b) {
  return static_cast<std::uint64_t>(a) << 32 | static_cast<std::uint32_t>(b);
}

/// The added tokens' trie: the key of the edge from `node` on byte `c`.
std::uint64_t edge_key(int node, char c) { return std::uint64_t(node) << 8 | static_cast<unsigned char>(c); }

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
};

}  // namespace tokenizer_parts

using tokenizer_parts::AddedToken;
using tokenizer_parts::Merge;

struct Tokenizer::Impl {
  std::unordered_map<std::string, int> ids;    ///< a byte-level token's bytes -> its id
  std::unordered_map<int, std::string> bytes;  ///< id -> what it stands for (added: its content)
  std::array<int, 256> byte_ids;               ///< the one-byte tokens BPE starts from; -1: none
  std::unordered_map<std::uint64_t, Merge> merges;  ///< pair_key(left, right) -> rank and result
  std::vector<AddedToken> added;                    ///< longest first, matched before splitting
  detail::PreTokenizer pre;
  bool nfc = false;
  bool ignore_merges = false;
  int unk = -1;
  std::vector<int> prefix, suffix;  ///< the post-processor's special tokens around $A
  /// The added tokens' bytes as a trie, so that one walk from a position finds the longest one there:
  /// node 0 is the root, added_edges maps edge_key(node, byte) to the child.
  std::unordered_map<std::uint64_t, int> added_edges;
  std::vector<int> added_end{-1};  ///< per node: the index into `added` of the token ending there, or -1
  int limit = 0;                                    ///< one more than the largest id

  Impl() { byte_ids.fill(-1); }
  void read_vocab(const json& vocab, const std::string& where,
                  const std::set<std::string>& added_contents);
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
  int find_added(std::string_view text, std::size_t at) const;
  void bpe(const std::string& piece, std::vector<int>& out,
           std::unordered_map<std::string, std::vector<int>>& cache) const;
  void merge(std::vector<int>& symbols) const;
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
      refuse(entry(), code_point_name(bad) + " is not a byte-level symbol (byte-level BPE only)");
    }
    if (!bytes.emplace(id, token_bytes).second)
      refuse(entry(), "id " + std::to_string(id) + " is given to two tokens");
    ids.emplace(token_bytes, id);
    if (token_bytes.size() == 1) byte_ids[static_cast<unsigned char>(token_bytes[0])] = id;
  }
}

void Tokenizer::Impl::add_merge(const std::string& a, const std::string& b, int rank,
                                const std::string& where) {
  std::string left, right;
  char32_t bad = 0;
  const auto id_of = [&](const std::string& symbols, std::string& out) {
    const auto it = symbols_to_bytes(symbols, out, bad) ? ids.find(out) : ids.end();
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
    for (const char* flag : {"lstrip", "rstrip", "single_word"}) {
      const json* v = member(list[i], flag);
      if (v && (!v->is_boolean() || v->get<bool>()))
        refuse(entry + "." + flag, describe(v) + " is not supported (only false)");
    }
    added.push_back(AddedToken{content->get<std::string>(), read_id(*id, entry + ".id")});
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
    refuse(where + ".type", describe(type) + " is not supported (byte-level BPE only)");
  const json* dropout = member(model, "dropout");
  if (dropout && (!dropout->is_number() || dropout->get<double>() != 0.0))
    refuse(where + ".dropout", describe(dropout) + " is not supported (dropout merges at random)");
  for (const char* affix : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    const json* v = member(model, affix);
    if (v && (!v->is_string() || !v->get_ref<const std::string&>().empty()))
      refuse(where + "." + affix, describe(v) + " is not supported (byte-level BPE has none)");
  }
  const json* ignore = member(model, "ignore_merges");
  if (ignore && !ignore->is_boolean())
    refuse(where + ".ignore_merges", "expected true or false, got " + describe(ignore));
  ignore_merges = ignore && ignore->get<bool>();
  std::set<std::string> contents;
  for (const AddedToken& t : added) contents.insert(t.content);
  const json* vocab = member(model, "vocab");
  if (!vocab) refuse(where + ".vocab", "expected an object of token -> id, got nothing");
  read_vocab(*vocab, where + ".vocab", contents);
  const json* merge_list = member(model, "merges");
  if (merge_list) read_merges(*merge_list, where + ".merges");
  const json* unk_token = member(model, "unk_token");
  if (unk_token && unk_token->is_string()) {
    const auto it = ids.find(unk_token->get<std::string>());
    if (it != ids.end()) unk = it->second;
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

/// The normalizer: null, NFC, or a Sequence of only NFC. Returns whether text is put in NFC.
bool read_normalizer(const json& node, const std::string& where, int depth) {
  if (node.is_null()) return false;
  const json* type = member(node, "type");
  const std::string name = type && type->is_string() ? type->get<std::string>() : "";
  if (name == "NFC") return true;
  if (name == "Sequence" && depth < kMaxSequenceDepth) {
    const json* list = member(node, "normalizers");
    if (!list || !list->is_array())
      refuse(where + ".normalizers", "expected an array, got " + describe(list));
    bool nfc = false;
    for (std::size_t i = 0; i < list->size(); ++i)
      nfc = read_normalizer((*list)[i], where + ".normalizers[" + std::to_string(i) + "]",
                            depth + 1) ||
            nfc;
    return nfc;
  }
  refuse(where + ".type", describe(type) + " is not supported (only NFC)");
}

// ---- encoding -----------------------------------------------------------------------------------

/// The longest added token at text[at] as an index into `added`; -1 when none starts there. One
/// walk down the trie, as far as the text follows it.
int Tokenizer::Impl::find_added(std::string_view text, std::size_t at) const {
  int node = 0, found = -1;
  for (std::size_t i = at; i < text.size(); ++i) {
    const auto edge = added_edges.find(edge_key(node, text[i]));
    if (edge == added_edges.end()) break;
    node = edge->second;
    if (added_end[std::size_t(node)] >= 0) found = added_end[std::size_t(node)];
  }
  return found;
}

/// Classic GPT-2 BPE on `symbols` (ids): while some adjacent pair has a merge, take the lowest
/// rank and merge all its occurrences left to right, then look again. A heap of candidate pairs
/// (rank, position) makes it O(n log n); a stale candidate is skipped when its pair has changed.
void Tokenizer::Impl::merge(std::vector<int>& symbols) const {
  const int n = static_cast<int>(symbols.size());
  std::vector<int> next(n), prev(n);
  for (int i = 0; i < n; ++i) next[i] = i + 1 < n ? i + 1 : -1, prev[i] = i - 1;
  struct Candidate {
    int rank, pos, left, right;
    bool operator>(const Candidate& o) const {
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  const auto consider = [&](int pos) {
    if (pos < 0 || next[pos] < 0) return;
    const auto it = merges.find(pair_key(symbols[pos], symbols[next[pos]]));
    if (it != merges.end()) heap.push({it->second.rank, pos, symbols[pos], symbols[next[pos]]});
  };
  for (int i = 0; i + 1 < n; ++i) consider(i);
  std::vector<Candidate> round;
  while (!heap.empty()) {
    // All occurrences of the lowest-ranked pair, left to right, before any pair they create (which
    // may rank lower): GPT-2's pass over the word. Hugging Face merges one at a time instead, which
    // differs only when a merge's result also takes part in a lower-ranked merge.
    round.clear();
    for (const int rank = heap.top().rank; !heap.empty() && heap.top().rank == rank; heap.pop())
      round.push_back(heap.top());
    for (const Candidate& c : round) {
      const int right = next[c.pos];
      if (symbols[c.pos] != c.left || right < 0 || symbols[right] != c.right) continue;  // stale
      symbols[c.pos] = merges.at(pair_key(c.left, c.right)).result;
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
                          std::unordered_map<std::string, std::vector<int>>& cache) const {
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
  for (const char ch : piece) {
    const auto b = static_cast<unsigned char>(ch);
    if (byte_ids[b] < 0 && unk < 0)
      refuse("text", "the byte " + hex_byte(b) +
                         " has no token in the vocabulary (and there is no unk_token)");
    symbols.push_back(byte_ids[b] >= 0 ? byte_ids[b] : unk);
  }
  merge(symbols);
  out.insert(out.end(), symbols.begin(), symbols.end());
  if (piece.size() <= kMaxCachedPiece) cache.emplace(piece, std::move(symbols));
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

// ---- the public interface -----------------------------------------------------------------------

Tokenizer::Tokenizer() : impl_(std::make_unique<Impl>()) {}
Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

void Tokenizer::Impl::read_document(const json& doc, const std::string& file) {
  if (!doc.is_object())
    refuse(file, "expected a JSON object at the top level, got " + describe(&doc));
  if (const json* list = member(doc, "added_tokens")) read_added(*list, file);
  const json* model = member(doc, "model");
  if (!model) refuse(file + ": model", "expected an object, got nothing");
  read_model(*model, file);
  for (const AddedToken& a : added) bytes[a.id] = a.content;
  const json* normalizer = member(doc, "normalizer");
  nfc = normalizer && read_normalizer(*normalizer, file + ": normalizer", 0);
  const json* pre_tokenizer = member(doc, "pre_tokenizer");
  pre = detail::parse_pre_tokenizer(pre_tokenizer ? *pre_tokenizer : json(), file);
  if (const json* post = member(doc, "post_processor"))
    read_post_processor(*post, file + ": post_processor", 0);
}

void Tokenizer::Impl::finish() {
  for (std::size_t k = 0; k < added.size(); ++k) {
    int node = 0;
    for (const char c : added[k].content) {
      const auto [edge, is_new] = added_edges.try_emplace(edge_key(node, c), static_cast<int>(added_end.size()));
      if (is_new) added_end.push_back(-1);
      node = edge->second;
    }
    int& end = added_end[std::size_t(node)];
    if (end < 0) end = static_cast<int>(k);  // the same content twice: the first, as before
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
  const auto encode_segment = [&](std::size_t begin, std::size_t end) {
    if (begin == end) return;
    const std::string segment = text.substr(begin, end - begin);
    for (const std::string& piece : impl_->pre.run(impl_->nfc ? nfc(segment) : segment, budget)) {
      impl_->bpe(piece, out, cache);
      check_count();
    }
  };
  std::size_t start = 0, walks = 0;
  for (std::size_t i = 0; i < text.size() && !impl_->added.empty();) {
    if (++walks % 4096 == 0) budget.check();
    const int k = impl_->find_added(text, i);
    if (k < 0) {
      ++i;
      continue;
    }
    encode_segment(start, i);
    out.push_back(impl_->added[k].id);
    check_count();
    i += impl_->added[k].content.size();
    start = i;
  }
  encode_segment(start, text.size());
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

int Tokenizer::id_limit() const { return impl_->limit; }

bool Tokenizer::contains(int id) const { return impl_->bytes.count(id) > 0; }

std::optional<int> Tokenizer::bos() const {
  if (impl_->prefix.empty()) return std::nullopt;
  return impl_->prefix.front();
}

}  // namespace attnlab::models
