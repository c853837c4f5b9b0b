#pragma once
/// The pre-tokenizers (private to attnlab_models): Hugging Face's ByteLevel, Split, Digits and
/// Metaspace (BPE), BertPreTokenizer, Whitespace and WhitespaceSplit (WordPiece), alone or in a
/// Sequence, run on the (normalized) UTF-8 text. Pieces stay UTF-8 bytes; the byte-to-unicode
/// mapping of ByteLevel is left to the vocabulary (tokenizer.cpp), which is read into bytes once,
/// so no step may follow ByteLevel (its regexes would see mapped text).
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab::models::detail {

/// The time one encoding may take and the flag that cancels it, checked between regex matches and
/// as the text is scanned: a pattern that backtracks a little on every match, or a text of a
/// million characters, ends in one line instead of minutes.
class Budget {
 public:
  Budget(double seconds, const std::atomic<bool>* cancelled);
  /// Throws ScenarioError ("text: ...") once the time is spent or the encoding was cancelled.
  void check() const;

 private:
  std::chrono::steady_clock::time_point deadline_;
  double seconds_;
  const std::atomic<bool>* cancelled_;
};

/// A compiled PCRE2 pattern (UTF, UCP; JIT when available), shared read-only between threads.
class Regex {
 public:
  /// Throws ScenarioError naming `field` when the pattern does not compile. `literal`: the
  /// pattern is a plain string (Split's {"String": ...}).
  Regex(const std::string& pattern, bool literal, std::string field);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  /// The non-empty matches of the pattern in `text` (valid UTF-8), left to right, as [begin, end)
  /// byte ranges. Bounded work: a match that exceeds PCRE2's match or heap limit is refused.
  std::vector<std::pair<std::size_t, std::size_t>> find_all(std::string_view text, const Budget& budget) const;

 private:
  struct Code;
  std::unique_ptr<Code> code_;
  std::string field_;
};

/// What Split does with the pieces a pattern matches (Hugging Face's SplitDelimiterBehavior).
enum class SplitBehavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };

/// Metaspace's prepend_scheme: when a piece gets the replacement in front (unless it has it).
enum class PrependScheme { always, first, never };

struct PreTokenizerStep {
  /// bert: split on whitespace (removed), then each punctuation character on its own (BERT's basic
  /// tokenizer); whitespace_split: split on whitespace only.
  enum class Kind { split, byte_level, metaspace, bert, whitespace_split };
  Kind kind = Kind::split;
  std::shared_ptr<const Regex> regex;  ///< split; byte_level with use_regex (GPT-2's pattern)
  SplitBehavior behavior = SplitBehavior::isolated;
  bool invert = false;            ///< split: the pattern matches what to keep, not the delimiters
  bool add_prefix_space = false;  ///< byte_level: a piece not starting with ' ' gets one
  std::string replacement;        ///< metaspace: what a space becomes ("\u2581")
  PrependScheme prepend = PrependScheme::always;  ///< metaspace; `first`: only at the text's start
};

/// The steps in order; each applies to every piece the previous ones left.
struct PreTokenizer {
  std::vector<PreTokenizerStep> steps;
  /// The pieces of `text` (valid UTF-8), each later encoded by BPE on its own. `at_start`: `text`
  /// begins the whole text (Metaspace's "first" prepends only there).
  std::vector<std::string> run(const std::string& text, const Budget& budget, bool at_start = true) const;
  /// Whether the last step is ByteLevel (the vocabulary is then written in GPT-2's byte symbols).
  bool byte_level() const { return !steps.empty() && steps.back().kind == PreTokenizerStep::Kind::byte_level; }
};

/// GPT-2's split: 's 't 're 've 'm 'll 'd, letters, numbers, other symbols each with an optional
/// leading space, then runs of whitespace.
constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

/// GPT-2's own pre-tokenizer (vocab.json + merges.txt): ByteLevel without a prefix space.
PreTokenizer gpt2_pre_tokenizer();
/// `node` is tokenizer.json's "pre_tokenizer" (null: no steps); refusals name `file` and the field.
/// ByteLevel may only come last, and not with Metaspace.
PreTokenizer parse_pre_tokenizer(const nlohmann::json& node, const std::string& file);

}  // namespace attnlab::models::detail
