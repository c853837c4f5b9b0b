// BERT (google-bert/bert-base-uncased; transformers' models/bert/modeling_bert.py): an encoder.
// Word + position + token-type embeddings, then LayerNorm; bidirectional attention; post-LN blocks
// (LayerNorm after attention + residual and after MLP + residual); GELU (erf); the masked-LM head
// cls.predictions: transform.dense, hidden_act, transform.LayerNorm, then the word embeddings
// (tied) plus cls.predictions.bias.
#include "attnlab/limits.h"
#include "family.h"

namespace attnlab::models::families {

void read_bert_sizes(const ConfigReader& read, ModelConfig& config) {
  config.layers = read.count("num_hidden_layers", 1024);
  config.d_model = read.count("hidden_size", limits::max_width);
  config.heads = read.count("num_attention_heads", limits::max_heads);
  if (config.d_model % config.heads != 0)
    read.fail("num_attention_heads", std::to_string(config.heads) +
                                         " does not divide hidden_size " +
                                         std::to_string(config.d_model));
  config.kv_heads = config.heads;
  config.head_dim = config.d_model / config.heads;
  config.d_mlp = read.count("intermediate_size", 16 * limits::max_width);
  config.vocab = read.count("vocab_size", 1 << 20);
  config.max_positions = read.count_or("max_position_embeddings", 1 << 20, 512);
  config.type_vocab = read.count_or("type_vocab_size", 1 << 16, 2);
  config.norm_eps = read.positive("layer_norm_eps", 1e-12);
  post_ln_encoder(config, activation(read, "hidden_act", "gelu"));
  config.tie_embeddings = read.flag("tie_word_embeddings", true);
  read.require("position_embedding_type", "absolute", "relative position embeddings");
  read.require("is_decoder", false, "BERT used as a causal decoder");
  read.require("add_cross_attention", false, "an encoder-decoder BERT");
}

void post_ln_encoder(ModelConfig& config, Activation act) {
  config.norm = NormKind::layer_norm;
  config.activation = config.head_activation = act;
  config.qkv_bias = config.o_bias = config.mlp_bias = true;
  config.gated_mlp = false;
  config.learned_positions = true;
  config.causal = false;
  config.attention_scale = 1.0 / std::sqrt(double(config.head_dim));
  config.attention.assign(std::size_t(config.layers), LayerAttention{});
}

TensorNames bert_names() {
  TensorNames n;
  n.embed = "embeddings.word_embeddings";
  n.positions = "embeddings.position_embeddings";
  n.token_types = "embeddings.token_type_embeddings";
  n.embed_norm = "embeddings.LayerNorm";
  n.q = "encoder.layer.{}.attention.self.query";
  n.k = "encoder.layer.{}.attention.self.key";
  n.v = "encoder.layer.{}.attention.self.value";
  n.o = "encoder.layer.{}.attention.output.dense";
  n.attn_residual_norm = "encoder.layer.{}.attention.output.LayerNorm";
  n.up = "encoder.layer.{}.intermediate.dense";
  n.down = "encoder.layer.{}.output.dense";
  n.mlp_residual_norm = "encoder.layer.{}.output.LayerNorm";
  return n;
}

namespace {

TensorNames bert_mlm_names() {
  TensorNames n = bert_names();
  n.lm_head = "cls.predictions.decoder";
  n.head_dense = "cls.predictions.transform.dense";
  n.head_norm = "cls.predictions.transform.LayerNorm";
  n.head_bias = "cls.predictions.bias";
  return n;
}

}  // namespace

Family bert() { return {"bert", read_bert_sizes, bert_mlm_names()}; }

}  // namespace attnlab::models::families
