// OLMo 2 (allenai/OLMo-2-0425-1B; models/olmo2/modeling_olmo2.py): no norm before attention or MLP;
// RMSNorm on each block's output inside the residual (post_attention_layernorm,
// post_feedforward_layernorm), and QK-norm over the whole projected width of Q and of K.
#include "family.h"

namespace attnlab::models::families {
namespace {

void read_olmo2(const ConfigReader& read, ModelConfig& config) {
  read_llama_sizes(read, config);
  config.qkv_bias = config.o_bias = read.flag("attention_bias", false);
  config.qk_norm = QkNorm{QkNorm::Scope::width, false, config.norm_eps, {}, {}};
  const Rope rope = read_rope(read, config, read.rope_base("rope_theta", 10000.0), config.head_dim, {"linear", "llama3"});
  for (LayerAttention& layer : config.attention) layer.rope = rope;
}

}  // namespace

Family olmo2() {
  TensorNames n = llama_names();
  n.attn_norm.clear();
  n.mlp_norm.clear();
  n.attn_post_norm = "layers.{}.post_attention_layernorm";
  n.mlp_post_norm = "layers.{}.post_feedforward_layernorm";
  n.q_norm = "layers.{}.self_attn.q_norm";
  n.k_norm = "layers.{}.self_attn.k_norm";
  return {"olmo2", read_olmo2, n};
}

}  // namespace attnlab::models::families
