#pragma once
/// One model family: how its config.json is read into a ModelConfig, and where its tensors are.
/// Each family is one file in this folder and one row of the table in families.cpp (ARCHITECTURE.md,
/// "Adding a model family").
#include <string>

#include <nlohmann/json.hpp>

#include "attnlab/models/config.h"

namespace attnlab::models {

/// config.json's fields, each read once with its type and range checked; a wrong one is refused in one
/// line naming the file and the key.
class ConfigReader {
 public:
  ConfigReader(const nlohmann::json& config, std::string file) : config_(config), file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  bool has(const std::string& key) const { return config_.contains(key) && !config_[key].is_null(); }
  const nlohmann::json& value(const std::string& key) const { return config_[key]; }

  /// A whole number from 1 to max.
  int count(const std::string& key, int max) const;
  int count_or(const std::string& key, int max, int fallback) const { return has(key) ? count(key, max) : fallback; }
  /// A positive number up to 1e12.
  double positive(const std::string& key, double fallback) const;
  /// RoPE's base: the range a scenario file holds (limits.h), so a layer written with --layer reopens.
  double rope_base(const std::string& key, double fallback) const;
  bool flag(const std::string& key, bool fallback) const;
  std::string text(const std::string& key, const std::string& fallback) const;
  /// Refuses an option that changes the math when it is set to anything but what attnlab computes.
  void require(const std::string& key, const nlohmann::json& supported, const std::string& why) const;
  /// A name of the file's key in messages: "config.json: rope_scaling.factor".
  const std::string& file() const { return file_; }

 private:
  const nlohmann::json& config_;
  std::string file_;
};

/// Where a family keeps each tensor: the name with "{}" for the layer's index, without ".weight" or
/// ".bias" and without the prefix a file may add ("model.", "transformer.", "gpt_neox."); empty where
/// the family has no such tensor.
struct TensorNames {
  std::string embed, positions, final_norm, lm_head;
  std::string attn_norm;       ///< before attention (none in OLMo 2)
  std::string attn_post_norm;  ///< on the attention's output, before the residual add (Gemma, OLMo 2)
  std::string mlp_norm, mlp_post_norm;
  std::string q, k, v, o;
  /// One projection for Q, K and V: Q's columns, K's, then V's (GPT-2, Phi-3), or per head its Q,
  /// K and V side by side (GPT-NeoX: `qkv_per_head`).
  std::string qkv;
  bool qkv_per_head = false;
  std::string q_norm, k_norm;
  std::string up, gate, down;
  std::string gate_up;   ///< Phi-3: gate's rows, then up's
  bool conv1d = false;   ///< GPT-2's Conv1D: weights stored [in, out], not nn.Linear's [out, in]
  // Encoders (BERT, DistilBERT, RoBERTa).
  std::string token_types;  ///< token_type_embeddings (BERT, RoBERTa)
  std::string embed_norm;   ///< the LayerNorm of the summed embeddings
  /// Post-LN: the LayerNorm of the residual stream after attention's add, and after the MLP's.
  std::string attn_residual_norm, mlp_residual_norm;
  /// The masked-LM head: dense, the head's activation, LayerNorm, then the (tied) unembedding plus
  /// its own bias (a vector name, with its ".bias" or ".weight" suffix written out).
  std::string head_dense, head_norm, head_bias;
};

struct Family {
  const char* model_type;
  /// Fills every field of `config` but model_type from the file's keys; refuses what it cannot compute.
  void (*read)(const ConfigReader& read, ModelConfig& config);
  TensorNames names;
};

/// The family of `model_type`, or null.
const Family* find_family(const std::string& model_type);

namespace families {

// The families, one file each.
Family gpt2();
Family gpt_neox();
Family llama();
Family mistral();
Family qwen2();
Family qwen3();
Family gemma2();
Family gemma3_text();
Family smollm3();
Family olmo2();
Family phi3();
Family bert();
Family roberta();
Family distilbert();

// What several families share (families.cpp).
Activation activation(const ConfigReader& read, const std::string& key, const std::string& fallback);
/// The sizes of a Llama-shaped config (num_hidden_layers, hidden_size, num_attention_heads,
/// num_key_value_heads, head_dim, intermediate_size, vocab_size, max_position_embeddings, rms_norm_eps),
/// the scale 1/sqrt(head_dim) and one full layer without RoPE per layer.
void read_llama_sizes(const ConfigReader& read, ModelConfig& config);
/// RoPE on a head's first `dims` coordinates (rotate_half pairs) with rope_theta and, when the file
/// has one, the rope_scaling rules that `allowed` names ("linear", "llama3", "longrope").
Rope read_rope(const ConfigReader& read, const ModelConfig& config, double base, int dims,
               const std::vector<std::string>& allowed);
/// The per-layer windows of layer_types ("sliding_attention" / "full_attention"), or `sliding(i)`
/// for a config without the key; sliding_window is the window.
void read_layer_types(const ConfigReader& read, ModelConfig& config, bool (*sliding)(int layer, const ConfigReader&));
/// What BERT and RoBERTa read alike (configuration_bert.py's keys): sizes, post-LN LayerNorms with
/// layer_norm_eps, absolute learned positions, token types, bidirectional attention.
void read_bert_sizes(const ConfigReader& read, ModelConfig& config);
/// BERT's post-LN encoder blocks, which RoBERTa and DistilBERT share: LayerNorm, `act` in the MLP and
/// the masked-LM head, biases everywhere, learned positions, no causal mask, 1/sqrt(head_dim), every
/// layer global. Needs config.layers and head_dim.
void post_ln_encoder(ModelConfig& config, Activation act);
/// BertModel's tensor names without the "bert." / "roberta." prefix
/// (encoder.layer.{}.attention...).
TensorNames bert_names();
/// The nn.Linear names of a Llama-shaped layer (model.layers.{}.self_attn.q_proj ...).
TensorNames llama_names();

}  // namespace families
}  // namespace attnlab::models
