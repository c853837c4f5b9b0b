// attnlab-cli tokenize DIR (--text T [--pair T2] | --file F): how a model folder's tokenizer cuts a
// text, the ids and the tokens as the vocabulary spells them, as JSON; with --pair, two texts as
// the model reads a pair (BERT's [CLS] A [SEP] B [SEP]) and their token types; with --file, one
// text per line.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.h"
#include "attnlab/scenario.h"
#include "attnlab/models/tokenizer.h"
#include "commands.h"

namespace attnlab::cli {
namespace {

using nlohmann::json;

struct TokenizeOptions {
  std::string dir, text, pair, file;
};

json tokens_of(const models::Tokenizer& tokenizer, const std::vector<int>& ids) {
  json tokens = json::array();
  for (const int id : ids) tokens.push_back(tokenizer.token(id));
  return tokens;
}

/// {"ids": [...], "tokens": [...]} for `text`; throws ScenarioError when it cannot be encoded.
json tokenized(const models::Tokenizer& tokenizer, const std::string& text) {
  const std::vector<int> ids = tokenizer.encode(text);
  return {{"ids", ids}, {"tokens", tokens_of(tokenizer, ids)}};
}

/// {"ids", "tokens", "type_ids"} for the pair `a`, `b`.
json tokenized_pair(const models::Tokenizer& tokenizer, const std::string& a,
                    const std::string& b) {
  const models::Tokenizer::Encoding encoding = tokenizer.encode_pair(a, b);
  return {{"ids", encoding.ids},
          {"tokens", tokens_of(tokenizer, encoding.ids)},
          {"type_ids", encoding.type_ids}};
}

std::string line_of(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

int run_tokenize(const TokenizeOptions& o, const CLI::App& command) {
  const bool text = command.count("--text") > 0, file = command.count("--file") > 0;
  if (text == file) throw UsageError(text ? "give --text or --file, not both" : "tokenize needs --text TEXT or --file F");
  const bool pair = command.count("--pair") > 0;
  if (pair && !text) throw UsageError("--pair goes with --text (the pair's first text)");
  std::ifstream lines;
  if (file) {
    lines.open(o.file, std::ios::binary);
    if (!lines) throw UsageError("--file " + quote_arg(o.file) + " cannot be read");
  }
  try {
    // Only the tokenizer's files: no config.json or weights needed.
    const models::Tokenizer tokenizer = models::Tokenizer::load(o.dir);
    if (text) {
      std::cout << line_of(pair ? tokenized_pair(tokenizer, o.text, o.pair)
                                : tokenized(tokenizer, o.text))
                << "\n";
      return 0;
    }
    // One JSON string per line in, one object per line out, in order; a line that fails says why
    // on its own line and the rest go on.
    std::string line;
    for (int number = 1; std::getline(lines, line); ++number) {
      json out;
      try {
        const json value = json::parse(line, nullptr, false);
        if (!value.is_string())
          refuse("line " + std::to_string(number), "expected a JSON string, got " +
                                                       (value.is_discarded() ? std::string("text that is not JSON")
                                                                             : std::string(value.type_name())));
        out = tokenized(tokenizer, value.get<std::string>());
      } catch (const ScenarioError& e) {
        out = {{"error", e.what()}};
      }
      std::cout << line_of(out) << "\n";
    }
  } catch (const ScenarioError& e) {
    return report_invalid(o.dir, e);
  }
  return 0;
}

}  // namespace

Run add_tokenize(CLI::App& program) {
  auto o = std::make_shared<TokenizeOptions>();
  CLI::App* c = program.add_subcommand(
      "tokenize",
      "how a model folder's tokenizer cuts a text: {\"ids\": [...], \"tokens\": [...]} as JSON\n"
      "(tokens as the vocabulary spells them: GPT-2's byte symbols, SentencePiece's pieces,\n"
      "<0xF0>, WordPiece's ##s)");
  c->add_option(
       "DIR", o->dir,
       "the folder (tokenizer.json, vocab.json + merges.txt, or vocab.txt; no weights needed)")
      ->required()
      ->type_name("");
  c->add_option("--text", o->text,
                "the text, with the special tokens the tokenizer adds (BOS; [CLS] ... [SEP])")
      ->type_name("TEXT")
      ->group(kRequired);
  c->add_option("--pair", o->pair,
                "a second text: the two as the model reads a pair ([CLS] A [SEP] B [SEP]),\n"
                "with \"type_ids\" (0 for A, 1 for B in BERT's)")
      ->type_name("TEXT2");
  c->add_option("--file", o->file,
                "texts, one JSON string per line (\"a\\tb\"): one object per line, in order; a text\nthat "
                "fails gives {\"error\": \"...\"} on its line and the rest go on")
      ->type_name("F");
  return [o, c] { return run_tokenize(*o, *c); };
}

}  // namespace attnlab::cli
