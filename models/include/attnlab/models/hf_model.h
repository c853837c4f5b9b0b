#pragma once
/// A Hugging Face model folder opened as a whole: config.json, the weights (mapped), the tokenizer
/// when the folder has one attnlab reads, and the bound forward pass.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/models/config.h"
#include "attnlab/models/tokenizer.h"
#include "attnlab/models/transformer.h"
#include "attnlab/models/weights.h"
#include "attnlab/scenario.h"

namespace attnlab::models {

class HfModel {
 public:
  /// Opens `dir`. Throws ScenarioError (one line): not a folder, no or a bad config.json, no or a bad
  /// weights file, a tensor missing or of the wrong shape. A tokenizer that cannot be read does not
  /// stop the model (ids still work): tokenizer_error() says why.
  static std::shared_ptr<const HfModel> open(const std::filesystem::path& dir);

  const ModelConfig& config() const { return config_; }
  const Transformer& transformer() const { return transformer_; }
  const Tokenizer* tokenizer() const { return tokenizer_ ? &*tokenizer_ : nullptr; }
  const std::string& tokenizer_error() const { return tokenizer_error_; }
  const std::filesystem::path& dir() const { return dir_; }
  /// The folder's name ("gpt2"), for titles.
  std::string name() const;
  std::string dtype() const { return dtype_; }
  /// WeightSet::fingerprint(), taken at open: a saved layer records it to know its weights again.
  const std::string& weights_id() const { return weights_id_; }

  /// The ids of `text`. Throws ScenarioError: "text: empty", no tokenizer (its reason), more tokens
  /// than the model's positions (found as they are produced), the tokenizer's time budget spent,
  /// `cancelled` set.
  std::vector<int> encode(const std::string& text, const std::atomic<bool>* cancelled = nullptr) const;
  /// The same with each id's sequence (0: the text's, -1: a special token such as [CLS]); with
  /// `to_limit`, up to attnlab's limit of tokens (limits::max_tokens) whatever the model's
  /// positions: a window that says "45 tokens, more than the model's 32 positions" and runs the
  /// first 32.
  Tokenizer::Encoding encode_single(const std::string& text, const std::atomic<bool>* cancelled = nullptr,
                                    bool to_limit = false) const;
  /// encode_single(text, cancelled, true)'s ids.
  std::vector<int> encode_to_limit(const std::string& text, const std::atomic<bool>* cancelled = nullptr) const;
  /// Two texts as an encoder reads a pair ([CLS] A [SEP] B [SEP], token types 0 and 1). Throws as
  /// encode(), and "second text: ..." for the pair's own faults.
  Tokenizer::Encoding encode_pair(const std::string& text, const std::string& pair,
                                  const std::atomic<bool>* cancelled = nullptr) const;
  /// The id of the tokenizer's mask token ("[MASK]" of BERT and DistilBERT, "<mask>" of RoBERTa),
  /// where an encoder predicts the hidden word; none without a tokenizer or such a token.
  std::optional<int> mask_id() const;
  /// Token ids typed as text, for a folder without a tokenizer: "464, 3797 3332" (commas or spaces
  /// between). Throws ScenarioError ("ids: expected token ids ... got "the"") for anything else;
  /// run() checks them against the vocabulary and the positions.
  std::vector<int> ids_from_text(const std::string& text) const;
  /// Token labels (Tokenizer::label, or "#id" without a tokenizer).
  std::string label(int id) const;
  std::vector<std::string> labels(const std::vector<int>& ids) const;

 private:
  std::filesystem::path dir_;
  ModelConfig config_;
  std::unique_ptr<WeightSet> weights_;  ///< owns the mappings the transformer reads
  Transformer transformer_;
  std::optional<Tokenizer> tokenizer_;
  std::string tokenizer_error_;
  std::string dtype_;
  std::string weights_id_;
};

/// Layer `layer` of a forward run as an ordinary Scenario (Transformer::attention_scenario(): what
/// the forward pass computed, with every variant of the family), with the tokens as labels, a title
/// and notes. Computing it gives the layer's weights per query head and, as its output, the
/// attention's output. `view.model` records the folder, the layer, the ids, the weights'
/// fingerprint, `text` when one is given and an encoder's second text `pair` (what reopening the
/// file types again into the window's Model view). Throws ScenarioError for a layer out of range.
Scenario layer_scenario(const HfModel& model, const ForwardRun& run, int layer,
                        const std::string& text = "", const std::string& pair = "");

}  // namespace attnlab::models
