#pragma once
/// A Hugging Face `config.json`, for the architectures attnlab computes: `gpt2`, `llama`, `qwen2`
/// (by `model_type`). Every option that changes the math and is not supported (rope_scaling,
/// sliding windows, another activation...) is refused with one line naming it, never ignored.
#include <string>

namespace attnlab::models {

enum class Architecture { gpt2, llama, qwen2 };
enum class Activation { gelu_new, gelu, silu, relu };

struct ModelConfig {
  Architecture architecture = Architecture::gpt2;
  std::string model_type;    ///< as the file writes it
  int layers = 0;            ///< n_layer / num_hidden_layers
  int d_model = 0;           ///< n_embd / hidden_size
  int heads = 0;             ///< H: n_head / num_attention_heads
  int kv_heads = 0;          ///< G: num_key_value_heads (H for GPT-2)
  int head_dim = 0;          ///< d_model / H unless head_dim is given
  int d_mlp = 0;             ///< n_inner (4 d_model when null) / intermediate_size
  int vocab = 0;             ///< vocab_size: rows of the embedding
  int max_positions = 0;     ///< n_positions / max_position_embeddings
  double norm_eps = 1e-5;    ///< layer_norm_epsilon / rms_norm_eps
  double rope_theta = 0.0;   ///< 0: no RoPE (GPT-2's learned positions)
  bool tie_embeddings = true;  ///< the LM head is the token embedding
  bool qkv_bias = false;     ///< GPT-2, Qwen2, Llama with attention_bias
  bool o_bias = false;       ///< GPT-2, Llama with attention_bias
  Activation activation = Activation::gelu_new;

  bool layer_norm() const { return architecture == Architecture::gpt2; }  ///< else RMSNorm
  std::string describe() const;  ///< "gpt2: 12 layers, 12 heads of 64, d 768, vocabulary 50257"
};

/// Parses config.json's text. Throws ScenarioError ("config.json: model_type: ..." ) on a missing or
/// wrong field, an unknown model_type, an unsupported option, sizes beyond attnlab's limits.
ModelConfig parse_config(const std::string& json_text, const std::string& file = "config.json");

}  // namespace attnlab::models
