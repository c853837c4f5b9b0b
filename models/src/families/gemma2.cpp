// Gemma 2 (google/gemma-2-2b; models/gemma2/modeling_gemma2.py, configuration_gemma2.py): RMSNorm
// with 1 + w before and after both attention and MLP (four per layer), the embeddings times
// sqrt(hidden_size), scores scaled by query_pre_attn_scalar^-1/2 and capped (cap tanh(s / cap)),
// local (sliding) and global layers alternating, logits capped too, a gelu_pytorch_tanh gated MLP.
#include "family.h"

namespace attnlab::models::families {

/// What Gemma 2 and Gemma 3 read alike: the norms, the scale, the caps, the embedding scale.
void read_gemma_common(const ConfigReader& read, ModelConfig& config) {
  read_llama_sizes(read, config);
  config.norm_plus_one = true;
  config.tie_embeddings = read.flag("tie_word_embeddings", true);
  config.qkv_bias = config.o_bias = read.flag("attention_bias", false);
  config.activation = activation(read, "hidden_activation", "gelu_pytorch_tanh");
  config.attention_scale = 1.0 / std::sqrt(read.positive("query_pre_attn_scalar", double(config.head_dim)));
  config.attn_softcap = read.positive("attn_logit_softcapping", 0.0);
  config.final_softcap = read.positive("final_logit_softcapping", 0.0);
  config.embedding_scale = std::sqrt(double(config.d_model));
}

TensorNames gemma_names() {
  TensorNames n = llama_names();
  n.attn_post_norm = "layers.{}.post_attention_layernorm";
  n.mlp_norm = "layers.{}.pre_feedforward_layernorm";
  n.mlp_post_norm = "layers.{}.post_feedforward_layernorm";
  return n;
}

namespace {

void read_gemma2(const ConfigReader& read, ModelConfig& config) {
  read_gemma_common(read, config);
  const Rope rope = read_rope(read, config, read.rope_base("rope_theta", 10000.0), config.head_dim, {"linear"});
  for (LayerAttention& layer : config.attention) layer.rope = rope;
  // Gemma2Config: layer 0 local, layer 1 global, and so on.
  read_layer_types(read, config, [](int layer, const ConfigReader&) { return (layer + 1) % 2 != 0; });
}

}  // namespace

Family gemma2() { return {"gemma2", read_gemma2, gemma_names()}; }

}  // namespace attnlab::models::families
