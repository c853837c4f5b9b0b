// libFuzzer target: BPE (byte-level and SentencePiece-style) and WordPiece (models/tokenizer.h), on
// an arbitrary tokenizer.json and text, and the same bytes read as BERT's vocab.txt. The input is
// the tokenizer.json (or vocab.txt) text, a NUL byte, then the text to encode (no NUL: no text);
// the text is also encoded as a pair with itself.
//
// Oracles:
// - from_tokenizer_json, from_vocab_txt, encode and encode_pair throw nothing but ScenarioError,
//   whose message is one line of at most kMaxMessageBytes;
// - every id encode gives is one the tokenizer holds (contains, below id_limit), and decode, label
//   and token accept it; a label is one printable line (no byte below 0x20, no DEL);
// - encoding is deterministic: twice the same ids; a pair has a token type and a sequence per id.
//
//   scripts/fuzz.sh [SECONDS]
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "attnlab/message_text.h"
#include "attnlab/models/tokenizer.h"
#include "attnlab/scenario.h"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_message(const attnlab::ScenarioError& e) {
  const std::string message = e.what();
  check(!message.empty() && message.size() <= attnlab::kMaxMessageBytes);
  for (const char c : message) check(c != '\n' && c != '\r');
}

void check_label(const std::string& label) {
  for (const char c : label) check(static_cast<unsigned char>(c) >= 0x20 && c != 0x7F);
}

void check_ids(const attnlab::models::Tokenizer& tokenizer, const std::vector<int>& ids) {
  for (const int id : ids) {
    check(id >= 0 && id < tokenizer.id_limit() && tokenizer.contains(id));
    tokenizer.decode(id);
    check_label(tokenizer.label(id));
    tokenizer.token(id);
  }
}

/// `text` alone and as a pair with itself, and the ids around the vocabulary's edges.
void exercise(const attnlab::models::Tokenizer& tokenizer, const std::string& text) {
  if (const auto bos = tokenizer.bos()) check(tokenizer.contains(*bos));
  try {
    const std::vector<int> ids = tokenizer.encode(text);
    check_ids(tokenizer, ids);
    check(tokenizer.encode(text) == ids);
  } catch (const attnlab::ScenarioError& e) {
    check_message(e);
  }
  try {
    const attnlab::models::Tokenizer::Encoding pair = tokenizer.encode_pair(text, text);
    check_ids(tokenizer, pair.ids);
    check(pair.type_ids.size() == pair.ids.size() && pair.sequence_ids.size() == pair.ids.size());
  } catch (const attnlab::ScenarioError& e) {
    check_message(e);
  }
  // A few ids around the vocabulary's edges: held ones decode, others are refused.
  for (const int id : {-1, 0, 1, tokenizer.id_limit() - 1, tokenizer.id_limit()}) {
    try {
      check_label(tokenizer.label(id));
      check(tokenizer.contains(id));
    } catch (const attnlab::ScenarioError& e) {
      check_message(e);
      check(!tokenizer.contains(id));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* bytes = reinterpret_cast<const char*>(data);
  const void* nul = std::memchr(bytes, 0, size);
  const std::size_t json_size = nul ? static_cast<const char*>(nul) - bytes : size;
  const std::string file_text(bytes, json_size);
  const std::string text =
      nul ? std::string(bytes + json_size + 1, size - json_size - 1) : std::string();
  for (const bool vocab_txt : {false, true}) {
    attnlab::models::Tokenizer tokenizer;
    try {
      tokenizer = vocab_txt ? attnlab::models::Tokenizer::from_vocab_txt(file_text)
                            : attnlab::models::Tokenizer::from_tokenizer_json(file_text);
    } catch (const attnlab::ScenarioError& e) {
      check_message(e);
      continue;
    }
    exercise(tokenizer, text);
  }
  return 0;
}
