// GPT-NeoX / Pythia (EleutherAI/pythia-*; models/gpt_neox/modeling_gpt_neox.py): one query_key_value
// laid out per head (q, k, v of head 0, then of head 1 ...), RoPE on the first rotary_pct of each
// head, LayerNorm with bias, attention and MLP side by side (use_parallel_residual), untied embed_out.
#include "attnlab/limits.h"
#include "family.h"

namespace attnlab::models::families {
namespace {

void read_gpt_neox(const ConfigReader& read, ModelConfig& config) {
  config.layers = read.count("num_hidden_layers", 1024);
  config.d_model = read.count("hidden_size", limits::max_width);
  config.heads = read.count("num_attention_heads", limits::max_heads);
  if (config.d_model % config.heads != 0)
    read.fail("num_attention_heads", std::to_string(config.heads) + " does not divide hidden_size " + std::to_string(config.d_model));
  config.kv_heads = config.heads;
  config.head_dim = config.d_model / config.heads;
  config.d_mlp = read.count("intermediate_size", 16 * limits::max_width);
  config.vocab = read.count("vocab_size", 1 << 20);
  config.max_positions = read.count_or("max_position_embeddings", 1 << 22, 2048);
  config.norm = NormKind::layer_norm;
  config.norm_eps = read.positive("layer_norm_eps", 1e-5);
  config.activation = activation(read, "hidden_act", "gelu");
  config.qkv_bias = config.o_bias = read.flag("attention_bias", true);
  config.mlp_bias = true;
  config.gated_mlp = false;
  config.parallel_residual = read.flag("use_parallel_residual", true);
  config.tie_embeddings = read.flag("tie_word_embeddings", false);
  config.attention_scale = 1.0 / std::sqrt(double(config.head_dim));
  // rotary_ndims = int(head_size * rotary_pct); newer configs name it partial_rotary_factor.
  const double fraction = read.positive(read.has("partial_rotary_factor") ? "partial_rotary_factor" : "rotary_pct", 0.25);
  if (fraction > 1) read.fail("rotary_pct", "expected at most 1, got " + std::to_string(fraction));
  const double base = read.rope_base(read.has("rope_theta") ? "rope_theta" : "rotary_emb_base", 10000.0);
  const Rope rope = read_rope(read, config, base, int(config.head_dim * fraction), {"linear"});
  config.attention.assign(std::size_t(config.layers), LayerAttention{rope, 0});
}

}  // namespace

Family gpt_neox() {
  TensorNames n;
  n.embed = "embed_in";
  n.final_norm = "final_layer_norm";
  n.lm_head = "embed_out";
  n.attn_norm = "layers.{}.input_layernorm";
  n.mlp_norm = "layers.{}.post_attention_layernorm";
  n.qkv = "layers.{}.attention.query_key_value";
  n.qkv_per_head = true;
  n.o = "layers.{}.attention.dense";
  n.up = "layers.{}.mlp.dense_h_to_4h";
  n.down = "layers.{}.mlp.dense_4h_to_h";
  return {"gpt_neox", read_gpt_neox, n};
}

}  // namespace attnlab::models::families
