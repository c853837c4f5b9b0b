#include "pretokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <cstdio>

#include "attnlab/message_text.h"
#include "attnlab/scenario.h"
#include "byte_level.h"
#include "json_read.h"
#include "unicode_classes.h"

namespace attnlab::models::detail {
namespace {

using json = nlohmann::json;
using Range = std::pair<std::size_t, std::size_t>;

// Bounded work whatever the pattern: a match that backtracks more than this is refused.
constexpr uint32_t kMatchLimit = 10'000'000;
constexpr uint32_t kHeapLimitKiB = 64 * 1024;
constexpr std::size_t kMaxPatternBytes = 64 * 1024;
constexpr int kMaxSequenceDepth = 8;

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  if (pcre2_get_error_message(code, buffer, sizeof buffer) < 0)
    return "error " + std::to_string(code);
  return reinterpret_cast<const char*>(buffer);
}

std::size_t next_char(std::string_view text, std::size_t i) {
  ++i;
  while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
  return i;
}

struct Segment {
  std::size_t begin, end;
  bool match;
};

/// `text` cut at `matches` into alternating non-matched and matched segments covering it.
std::vector<Segment> segments(std::string_view text, const std::vector<Range>& matches) {
  std::vector<Segment> out;
  std::size_t prev = 0;
  for (const auto& [b, e] : matches) {
    if (prev < b) out.push_back({prev, b, false});
    out.push_back({b, e, true});
    prev = e;
  }
  if (prev < text.size()) out.push_back({prev, text.size(), false});
  return out;
}

/// Hugging Face's SplitDelimiterBehavior on the segments: which are kept, and which are joined.
std::vector<Segment> apply_behavior(std::vector<Segment> segs, SplitBehavior behavior) {
  std::vector<Segment> out;
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::isolated: return segs;
    case SplitBehavior::removed:
      for (const Segment& s : segs)
        if (!s.match) out.push_back(s);
      return out;
    case SplitBehavior::contiguous:  // "the-final--countdown" -> the, -, final, --, countdown
      for (const Segment& s : segs) {
        if (!out.empty() && s.match == previous_match)
          out.back().end = s.end;
        else
          out.push_back(s);
        previous_match = s.match;
      }
      return out;
    case SplitBehavior::merged_with_previous:  // -> the-, final-, -, countdown
      for (const Segment& s : segs) {
        if (!out.empty() && s.match && !previous_match)
          out.back().end = s.end;
        else
          out.push_back(s);
        previous_match = s.match;
      }
      return out;
    case SplitBehavior::merged_with_next:  // -> the, -final, -, -countdown
      for (auto it = segs.rbegin(); it != segs.rend(); ++it) {
        if (!out.empty() && it->match && !previous_match)
          out.back().begin = it->begin;
        else
          out.push_back(*it);
        previous_match = it->match;
      }
      return std::vector<Segment>(out.rbegin(), out.rend());
  }
  return segs;
}

/// The pieces of `text` split by `regex` with `behavior` (empty pieces dropped). `invert`: the
/// matches are the pieces and what lies between them the delimiters (Hugging Face's Invert).
void split_into(const std::string& text, const Regex& regex, SplitBehavior behavior, bool invert,
                const Budget& budget, std::vector<std::string>& out) {
  std::vector<Segment> segs = segments(text, regex.find_all(text, budget));
  if (invert)
    for (Segment& s : segs) s.match = !s.match;
  for (const Segment& s : apply_behavior(std::move(segs), behavior))
    if (s.end > s.begin) out.push_back(text.substr(s.begin, s.end - s.begin));
}

/// BertPreTokenizer: `text` split at whitespace (dropped), each punctuation character a piece of
/// its own (bert_punctuation). WhitespaceSplit (`punctuation` false): at whitespace only.
void split_words(const std::string& text, bool punctuation, std::vector<std::string>& out) {
  std::size_t word = 0;  // where the current piece began
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = std::max<std::size_t>(utf8_sequence(text, i), 1);
    const char32_t c = code_point(text, i, n);
    const bool space = white_space(c), alone = !space && punctuation && bert_punctuation(c);
    if (space || alone) {
      if (i > word) out.push_back(text.substr(word, i - word));
      if (alone) out.push_back(text.substr(i, n));
      word = i + n;
    }
    i += n;
  }
  if (text.size() > word) out.push_back(text.substr(word));
}

std::string read_type(const json& node, const std::string& field) {
  if (!node.is_object()) refuse(field, "expected an object, got " + describe(&node));
  const json* type = member(node, "type");
  if (!type || !type->is_string())
    refuse(field + ".type", "expected a string, got " + describe(type));
  return type->get<std::string>();
}

SplitBehavior read_behavior(const json& node, const std::string& field) {
  const json* v = member(node, "behavior");
  const std::string name = v && v->is_string() ? v->get<std::string>() : "";
  if (name == "Isolated") return SplitBehavior::isolated;
  if (name == "Removed") return SplitBehavior::removed;
  if (name == "MergedWithPrevious") return SplitBehavior::merged_with_previous;
  if (name == "MergedWithNext") return SplitBehavior::merged_with_next;
  if (name == "Contiguous") return SplitBehavior::contiguous;
  refuse(field + ".behavior",
         "expected Isolated, Removed, MergedWithPrevious, MergedWithNext or Contiguous, got " +
             describe(v));
}

PreTokenizerStep read_split(const json& node, const std::string& field) {
  const json* pattern = member(node, "pattern");
  if (!pattern || !pattern->is_object() || pattern->size() != 1)
    refuse(field + ".pattern",
           "expected {\"Regex\": ...} or {\"String\": ...}, got " + describe(pattern));
  const std::string kind = pattern->begin().key();
  const json& text = pattern->begin().value();
  if ((kind != "Regex" && kind != "String") || !text.is_string())
    refuse(field + ".pattern",
           "expected {\"Regex\": ...} or {\"String\": ...}, got " + describe(pattern));
  PreTokenizerStep step;
  step.behavior = read_behavior(node, field);
  step.invert = read_bool(node, "invert", false, field);
  step.regex =
      std::make_shared<Regex>(text.get<std::string>(), kind == "String", field + ".pattern");
  return step;
}

/// Whitespace: runs of word characters, and runs of what is neither a word character nor
/// whitespace (Rust's regex `\w+|[^\w\s]+`; its `\w` is Alphabetic, marks, decimal digits,
/// connector punctuation and the joiners). Alphabetic as PCRE2 has it (Unicode 14) joined by the
/// letters, which hf_pattern brings to Unicode 15.
PreTokenizerStep whitespace_step(const std::string& field) {
  PreTokenizerStep step;
  const std::string word = R"(\p{Alphabetic}\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D})";
  step.regex = std::make_shared<Regex>("[" + word + "]+|[^" + word + R"(\s]+)", false, field);
  step.behavior = SplitBehavior::removed;
  step.invert = true;
  return step;
}

PreTokenizerStep read_digits(const json& node, const std::string& field) {
  PreTokenizerStep step;
  // Rust's char::is_numeric is \p{N}; runs of digits stay together unless individual_digits.
  const bool individual = read_bool(node, "individual_digits", false, field);
  step.behavior = individual ? SplitBehavior::isolated : SplitBehavior::contiguous;
  step.regex = std::make_shared<Regex>(R"(\p{N})", false, field);
  return step;
}

PreTokenizerStep read_byte_level(const json& node, const std::string& field) {
  PreTokenizerStep step;
  step.kind = PreTokenizerStep::Kind::byte_level;
  step.add_prefix_space = read_bool(node, "add_prefix_space", true, field);
  if (read_bool(node, "use_regex", true, field))
    step.regex = std::make_shared<Regex>(kGpt2Pattern, false, field);
  return step;
}

PreTokenizerStep read_metaspace(const json& node, const std::string& field) {
  PreTokenizerStep step;
  step.kind = PreTokenizerStep::Kind::metaspace;
  const json* replacement = member(node, "replacement");
  if (!replacement || !replacement->is_string() || replacement->get_ref<const std::string&>().empty() ||
      replacement->get_ref<const std::string&>().size() > 4)
    refuse(field + ".replacement", "expected one character, got " + describe(replacement));
  step.replacement = replacement->get<std::string>();
  const json* scheme = member(node, "prepend_scheme");
  if (scheme) {  // newer files; older ones say add_prefix_space
    const std::string name = scheme->is_string() ? scheme->get<std::string>() : "";
    if (name == "always") step.prepend = PrependScheme::always;
    else if (name == "first") step.prepend = PrependScheme::first;
    else if (name == "never") step.prepend = PrependScheme::never;
    else refuse(field + ".prepend_scheme", "expected \"always\", \"first\" or \"never\", got " + describe(scheme));
  } else {
    step.prepend = read_bool(node, "add_prefix_space", true, field) ? PrependScheme::always : PrependScheme::never;
  }
  // split: pieces start at each replacement character, which stays with the text after it.
  if (read_bool(node, "split", true, field)) {
    step.regex = std::make_shared<Regex>(step.replacement, true, field + ".replacement");
    step.behavior = SplitBehavior::merged_with_next;
  }
  return step;
}

void read_steps(const json& node, const std::string& field, const std::string& file, int depth,
                std::vector<PreTokenizerStep>& steps) {
  const std::string type = read_type(node, file + ": " + field);
  const std::string where = file + ": " + field;
  if (!steps.empty() && steps.back().kind == PreTokenizerStep::Kind::byte_level)
    refuse(where + ".type",
           quoted_excerpt(type) + " after ByteLevel is not supported (ByteLevel must come last)");
  if (type == "Sequence") {
    const json* list = member(node, "pretokenizers");
    if (!list || !list->is_array()) refuse(where + ".pretokenizers", "expected an array");
    if (depth >= kMaxSequenceDepth) refuse(where, "Sequence nested too deep");
    for (std::size_t i = 0; i < list->size(); ++i)
      read_steps((*list)[i], field + ".pretokenizers[" + std::to_string(i) + "]", file, depth + 1,
                 steps);
  } else if (type == "ByteLevel") {
    steps.push_back(read_byte_level(node, where));
  } else if (type == "Split") {
    steps.push_back(read_split(node, where));
  } else if (type == "Digits") {
    steps.push_back(read_digits(node, where));
  } else if (type == "Metaspace") {
    steps.push_back(read_metaspace(node, where));
  } else if (type == "BertPreTokenizer" || type == "WhitespaceSplit") {
    PreTokenizerStep step;
    step.kind = type == "BertPreTokenizer" ? PreTokenizerStep::Kind::bert
                                           : PreTokenizerStep::Kind::whitespace_split;
    steps.push_back(step);
  } else if (type == "Whitespace") {
    steps.push_back(whitespace_step(where));
  } else {
    refuse(where + ".type",
           quoted_excerpt(type) +
               " is not supported (ByteLevel, Split, Digits, Metaspace, BertPreTokenizer, "
               "Whitespace, WhitespaceSplit, Sequence)");
  }
}

}  // namespace

struct Regex::Code {
  pcre2_code* code = nullptr;
  pcre2_match_context* context = nullptr;
  ~Code() {
    pcre2_match_context_free(context);
    pcre2_code_free(code);
  }
};

Regex::Regex(const std::string& pattern, bool literal, std::string field)
    : code_(std::make_unique<Code>()), field_(std::move(field)) {
  if (pattern.size() > kMaxPatternBytes) refuse(field_, "expected a pattern of at most 64 KiB");
  if (pattern.empty()) refuse(field_, "expected a pattern, got an empty string");
  int error = 0;
  PCRE2_SIZE offset = 0;
  const uint32_t options =
      PCRE2_UTF | (literal ? PCRE2_LITERAL : PCRE2_UCP | PCRE2_NEVER_BACKSLASH_C);
  const auto compile = [&](const std::string& text) {
    return pcre2_compile(reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), options, &error, &offset, nullptr);
  };
  // The pattern as written first, so that an error's offset is the file's; then with \s and the
  // Unicode classes as Hugging Face's engine has them (unicode_classes.h).
  code_->code = compile(pattern);
  if (!code_->code)
    refuse(field_, pcre2_message(error) + " at offset " + std::to_string(offset) + " of " +
                       quoted_excerpt(pattern));
  if (!literal) {
    const std::string rewritten = hf_pattern(pattern);
    if (rewritten != pattern) {
      pcre2_code_free(code_->code);
      code_->code = compile(rewritten);
      if (!code_->code)
        refuse(field_, pcre2_message(error) + " in the pattern as rewritten for Unicode 15: " + quoted_excerpt(pattern));
    }
  }
  pcre2_jit_compile(code_->code, PCRE2_JIT_COMPLETE);  // when it fails, pcre2_match interprets
  code_->context = pcre2_match_context_create(nullptr);
  if (!code_->context) throw std::bad_alloc();
  pcre2_set_match_limit(code_->context, kMatchLimit);
  pcre2_set_heap_limit(code_->context, kHeapLimitKiB);
}

Regex::~Regex() = default;

Budget::Budget(double seconds, const std::atomic<bool>* cancelled)
    : deadline_(std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds))),
      seconds_(seconds),
      cancelled_(cancelled) {}

void Budget::check() const {
  if (cancelled_ && cancelled_->load(std::memory_order_relaxed)) refuse("text", "tokenizing cancelled");
  if (std::chrono::steady_clock::now() > deadline_) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", seconds_);
    refuse("text", std::string("the tokenizer took more than ") + limit +
                       " s on this text (its split pattern backtracks on it, or the text is very long)");
  }
}

std::vector<Range> Regex::find_all(std::string_view text, const Budget& budget) const {
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
      pcre2_match_data_create_from_pattern(code_->code, nullptr), &pcre2_match_data_free);
  if (!data) throw std::bad_alloc();
  std::vector<Range> matches;
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::size_t offset = 0;
  uint32_t no_jit = 0;
  bool not_empty = false;  // after an empty match at `offset`, look for a non-empty one there
  while (offset <= text.size()) {
    budget.check();
    const uint32_t options = PCRE2_NO_UTF_CHECK | no_jit | (not_empty ? PCRE2_NOTEMPTY_ATSTART : 0);
    const int rc =
        pcre2_match(code_->code, subject, text.size(), offset, options, data.get(), code_->context);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT && !no_jit) {
      no_jit = PCRE2_NO_JIT;  // the interpreter's frames live on the (limited) heap instead
      continue;
    }
    if (rc < 0) refuse(field_, "the pattern failed on the text: " + pcre2_message(rc));
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data.get());
    const std::size_t begin = ovector[0], end = ovector[1];
    if (begin < offset || end < begin || end > text.size())
      refuse(field_, "the pattern gave a match out of order (\\K?)");
    if (end ==
        begin) {  // skipped (an empty piece is dropped anyway); then look for a non-empty one
      if (not_empty && begin == offset) {  // PCRE2 promises otherwise; progress whatever happens
        offset = next_char(text, offset);
        not_empty = false;
      } else {
        offset = begin;
        not_empty = true;
      }
      continue;
    }
    matches.emplace_back(begin, end);
    offset = end;
    not_empty = false;
  }
  return matches;
}

std::vector<std::string> PreTokenizer::run(const std::string& text, const Budget& budget, bool at_start) const {
  std::vector<std::string> pieces{text};
  // Only the first piece can begin the text (Metaspace's "first"; a Split that removes what begins
  // the text is not followed: Hugging Face would look at offsets).
  const bool first_at_start = at_start;
  for (const PreTokenizerStep& step : steps) {
    std::vector<std::string> next;
    next.reserve(pieces.size());
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      std::string& piece = pieces[k];
      if (step.add_prefix_space && (piece.empty() || piece[0] != ' ')) piece.insert(0, 1, ' ');
      if (step.kind == PreTokenizerStep::Kind::metaspace) {
        std::string replaced;
        for (const char ch : piece) {
          if (ch == ' ')
            replaced += step.replacement;
          else
            replaced += ch;
        }
        const bool prepend = step.prepend == PrependScheme::always ||
                             (step.prepend == PrependScheme::first && k == 0 && first_at_start);
        if (prepend && replaced.compare(0, step.replacement.size(), step.replacement) != 0)
          replaced.insert(0, step.replacement);
        piece = std::move(replaced);
      }
      if (step.kind == PreTokenizerStep::Kind::bert ||
          step.kind == PreTokenizerStep::Kind::whitespace_split)
        split_words(piece, step.kind == PreTokenizerStep::Kind::bert, next);
      else if (step.regex)
        split_into(piece, *step.regex, step.behavior, step.invert, budget, next);
      else if (!piece.empty())
        next.push_back(std::move(piece));
    }
    pieces = std::move(next);
  }
  return pieces;
}

PreTokenizer gpt2_pre_tokenizer() {
  PreTokenizerStep step;
  step.kind = PreTokenizerStep::Kind::byte_level;
  step.regex = std::make_shared<Regex>(kGpt2Pattern, false, "pre_tokenizer");
  return PreTokenizer{{step}};
}

PreTokenizer parse_pre_tokenizer(const json& node, const std::string& file) {
  PreTokenizer pre;
  if (node.is_null()) return pre;  // the whole text (between added tokens) is one piece
  read_steps(node, "pre_tokenizer", file, 0, pre.steps);
  if (pre.byte_level())
    for (const PreTokenizerStep& step : pre.steps)
      if (step.kind == PreTokenizerStep::Kind::metaspace)
        refuse(file + ": pre_tokenizer",
               "Metaspace with ByteLevel is not supported (a vocabulary is either byte symbols or text)");
  return pre;
}

}  // namespace attnlab::models::detail
