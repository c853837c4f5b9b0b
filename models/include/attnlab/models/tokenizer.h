#pragma once
/// BPE and WordPiece tokenizers as Hugging Face's tokenizers read them. Byte-level, as GPT-2, Llama
/// 3, Qwen2/3, SmolLM2, DeepSeek V3 and gpt-oss ship them: `vocab.json` + `merges.txt` (GPT-2), or
/// `tokenizer.json` whose pre-tokenizer ends in ByteLevel (its vocabulary written in GPT-2's byte
/// symbols; Split with a regex and Digits before it). SentencePiece-style, as Gemma, Llama 2 /
/// TinyLlama, Mistral and Phi-3 ship them: `tokenizer.json` without ByteLevel, a vocabulary of text
/// ("▁the"), `byte_fallback` to the "<0x00>".."<0xFF>" tokens, unk with `fuse_unk`, the Metaspace
/// pre-tokenizer (prepend_scheme always / first / never, split) or the Replace / Prepend
/// normalizers; the decoder (Replace, ByteFallback, Metaspace, Fuse, Strip) says what a token
/// stands for. Both: model.type "BPE" (merges as "a b" strings or ["a", "b"] pairs,
/// ignore_merges), added_tokens (lstrip, rstrip, single_word, normalized), the NFC normalizer.
/// WordPiece, as BERT and DistilBERT ship it: `tokenizer.json` with model.type "WordPiece" (the
/// "##" continuing_subword_prefix, unk_token, max_input_chars_per_word: a longer word is one unk),
/// the BertNormalizer (clean_text, handle_chinese_chars, strip_accents, lowercase; or NFD and
/// Lowercase), the BertPreTokenizer (whitespace, then each punctuation character alone),
/// Whitespace or WhitespaceSplit, the WordPiece decoder; or `vocab.txt` alone (older BERT folders:
/// one token a line, BERT's defaults, tokenizer_config.json's do_lower_case, strip_accents and
/// tokenize_chinese_chars). The post-processor (TemplateProcessing, BertProcessing,
/// RobertaProcessing) puts its special tokens around one text (BOS; [CLS] A [SEP]) or a pair
/// ([CLS] A [SEP] B [SEP], token types 0 and 1). Regexes run on PCRE2 with `\s` and the Unicode
/// classes as Hugging Face's engine has them, BERT's character classes as its Unicode 8.0 tables
/// have them (unicode_classes.h); NFC and NFD on utf8proc. Anything else (SentencePiece
/// `tokenizer.model` alone, Unigram, an unknown pre-tokenizer, normalizer or decoder) is refused
/// with one line naming it.
///
/// What is read how: added tokens are matched leftmost-longest, those with `normalized` false in
/// the raw text, the others (their content normalized too) in each normalized stretch between
/// those, as Hugging Face does; the pre-tokenizer splits each stretch; BPE merges each piece, for
/// tokenizer.json in Hugging Face's order (the lowest-ranked pair, leftmost first, one at a time),
/// for vocab.json + merges.txt as GPT-2's encoder does (all occurrences of the lowest-ranked pair,
/// then again); ids are 0..2^24-1, as the file gives them. vocab.json + merges.txt alone has no
/// added tokens: "<|endoftext|>" in the text is encoded as text, as OpenAI's encoder does.
/// WordPiece splits each pre-tokenized word greedily, longest token first, as Hugging Face does.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace attnlab::models {

/// Bounds on encoding one text, whatever the text and the tokenizer file: no more tokens than the
/// model can read, and a time budget for the whole text (a pre-tokenizer's pattern may backtrack a
/// little on every match). `cancelled`, when set by another thread, stops the encoding early.
struct EncodeLimits {
  std::size_t max_tokens = std::size_t(-1);  ///< more is refused as soon as it is produced
  std::string max_tokens_reason = "the limit";  ///< why max_tokens: "the model's positions"
  double seconds = 5.0;                      ///< the whole text's budget
  const std::atomic<bool>* cancelled = nullptr;
};

class Tokenizer {
 public:
  /// The ids of a text or a pair of texts and, per id, its token type (segment: 0 for A, 1 for B
  /// in BERT's pair) and the sequence it came from (0: A, 1: B, -1: a special token the
  /// post-processor added; RoBERTa's types are all 0, its sequences tell A from B).
  struct Encoding {
    std::vector<int> ids, type_ids, sequence_ids;
  };

  /// Reads `dir/tokenizer.json`, else `dir/vocab.json` + `dir/merges.txt`, else `dir/vocab.txt`
  /// (with `dir/tokenizer_config.json` when there). Throws ScenarioError (one line naming the file
  /// and field): no tokenizer file, only `tokenizer.model`, an unsupported model type /
  /// pre-tokenizer / normalizer / post-processor, a merges line with one token, a merge whose parts
  /// or result are not in the vocabulary, a vocab.txt line that is empty or repeats a token.
  static Tokenizer load(const std::filesystem::path& dir);
  /// The same from the files' text; `file` names them in refusals.
  static Tokenizer from_tokenizer_json(const std::string& json_text, const std::string& file = "tokenizer.json");
  static Tokenizer from_vocab_and_merges(const std::string& vocab_json, const std::string& merges_txt);
  /// BERT's vocab.txt (token of line n: id n - 1) as Hugging Face's BertTokenizer reads it, with
  /// the options of `tokenizer_config_json` ("" when the folder has none): do_lower_case (true;
  /// also strips accents unless strip_accents says otherwise), tokenize_chinese_chars (true); the
  /// special tokens [PAD] [UNK] [CLS] [SEP] [MASK] matched in the text, [CLS] A [SEP] around it.
  /// Refuses an empty line, a token on two lines (both of which Hugging Face reads silently, the
  /// later line's id winning), a line that is not UTF-8, no [UNK], [CLS] or [SEP] in it.
  static Tokenizer from_vocab_txt(const std::string& vocab_txt,
                                  const std::string& tokenizer_config_json = "");

  /// The ids of `text`, as the model reads it: the special tokens the post-processor's `single`
  /// template puts before $A (BOS, [CLS]) first, those after it (EOS, [SEP]) last. Thread-safe
  /// (caches are per call). Throws ScenarioError ("text: ...") for text that is not valid UTF-8, or
  /// with a byte the vocabulary has no token for (and no unk_token), and when `limits` stop it:
  /// more tokens than max_tokens, the time budget spent, cancelled. Added tokens are found in one
  /// pass over the text (a trie of their bytes).
  std::vector<int> encode(const std::string& text, const EncodeLimits& limits = {}) const;
  /// The same with each id's token type and sequence (0 for the text, -1 for a special token the
  /// template added: which tokens are words of the text).
  Encoding encode_single(const std::string& text, const EncodeLimits& limits = {}) const;
  /// Two texts as the model reads a pair (BERT's [CLS] A [SEP] B [SEP]), by the post-processor's
  /// pair template (without one: A then B, B's type 1). Throws as encode does ("second text: ..."
  /// for B's bytes), and when the post-processor has no template for a pair.
  Encoding encode_pair(const std::string& a, const std::string& b,
                       const EncodeLimits& limits = {}) const;
  /// The bytes token `id` stands for (GPT-2's "Ġcat" is " cat"; may be part of a UTF-8 sequence;
  /// WordPiece's "cat" is " cat" and "##s" is "s", as its decoder joins them).
  /// Throws ScenarioError for an id the vocabulary does not hold.
  std::string decode(int id) const;
  /// A one-line, printable label for token `id` for heatmaps and JSON: decode(id) with a space shown
  /// as "␣" (U+2423), newline, tab and other control bytes as \n, \t, \xNN, bytes that are not valid
  /// UTF-8 as \xNN; special tokens as their own text ("<|endoftext|>").
  std::string label(int id) const;
  /// Token `id` as the vocabulary spells it, as Hugging Face's `tokens` show it: "Ġcat" (byte
  /// symbols), "▁cat" or "<0xF0>" (SentencePiece-style), "##s" (WordPiece), an added token.
  std::string token(int id) const;
  /// One more than the largest id (the vocabulary's and the added tokens').
  int id_limit() const;
  bool contains(int id) const;
  /// The id of a token as token() spells it ("[MASK]", "<mask>", "##s", "Ġcat"), an added
  /// token's content first; none when the tokenizer has no such token.
  std::optional<int> id_of(const std::string& token) const;
  /// The id the post-processor puts first (Llama 3's <|begin_of_text|>), if any.
  std::optional<int> bos() const;

  struct Impl;
  Tokenizer();
  ~Tokenizer();
  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace attnlab::models
