// GPT-2 (openai-community/gpt2; transformers' models/gpt2/modeling_gpt2.py): learned positions,
// LayerNorm before attention and MLP, Conv1D weights ([in, out]), q | k | v in one c_attn.
#include "attnlab/limits.h"
#include "family.h"

namespace attnlab::models::families {
namespace {

void read_gpt2(const ConfigReader& read, ModelConfig& config) {
  config.layers = read.count("n_layer", 1024);
  config.d_model = read.count("n_embd", limits::max_width);
  config.heads = read.count("n_head", limits::max_heads);
  if (config.d_model % config.heads != 0)
    read.fail("n_head", std::to_string(config.heads) + " does not divide n_embd " + std::to_string(config.d_model));
  config.kv_heads = config.heads;
  config.head_dim = config.d_model / config.heads;
  config.d_mlp = read.count_or("n_inner", 4 * limits::max_width, 4 * config.d_model);
  config.vocab = read.count("vocab_size", 1 << 20);
  config.max_positions = read.count_or("n_positions", 1 << 20, read.count_or("n_ctx", 1 << 20, 1024));
  config.norm = NormKind::layer_norm;
  config.norm_eps = read.positive("layer_norm_epsilon", 1e-5);
  config.activation = activation(read, "activation_function", "gelu_new");
  config.qkv_bias = config.o_bias = config.mlp_bias = true;
  config.gated_mlp = false;
  config.learned_positions = true;
  config.attention_scale = 1.0 / std::sqrt(double(config.head_dim));
  config.attention.assign(std::size_t(config.layers), LayerAttention{});
  // GPT2LMHeadModel ties lm_head to wte unless the config says not to; then lm_head.weight is read.
  config.tie_embeddings = read.flag("tie_word_embeddings", true);
  read.require("scale_attn_weights", true, "attnlab scales scores by 1/sqrt(d_head)");
  read.require("scale_attn_by_inverse_layer_idx", false, "scores scaled by 1/(layer + 1)");
  read.require("add_cross_attention", false, "an encoder-decoder GPT-2");
}

}  // namespace

Family gpt2() {
  TensorNames n;
  n.embed = "wte";
  n.positions = "wpe";
  n.final_norm = "ln_f";
  n.lm_head = "lm_head";
  n.attn_norm = "h.{}.ln_1";
  n.mlp_norm = "h.{}.ln_2";
  n.qkv = "h.{}.attn.c_attn";
  n.o = "h.{}.attn.c_proj";
  n.up = "h.{}.mlp.c_fc";
  n.down = "h.{}.mlp.c_proj";
  n.conv1d = true;
  return {"gpt2", read_gpt2, n};
}

}  // namespace attnlab::models::families
