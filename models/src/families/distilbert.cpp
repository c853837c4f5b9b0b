// DistilBERT (distilbert/distilbert-base-uncased; transformers'
// models/distilbert/modeling_distilbert.py): an encoder with BERT's post-LN blocks under its own
// names (q_lin ... out_lin, sa_layer_norm, ffn.lin1 / lin2, output_layer_norm), word + position
// embeddings then LayerNorm (no token types; with sinusoidal_pos_embds the stored position table
// holds the sinusoids, which is what is read), LayerNorm eps 1e-12 everywhere, and the head
// vocab_transform, activation, vocab_layer_norm, then vocab_projector (tied to the word embeddings)
// with its bias.
#include "attnlab/limits.h"
#include "family.h"

namespace attnlab::models::families {
namespace {

void read_distilbert(const ConfigReader& read, ModelConfig& config) {
  config.layers = read.count("n_layers", 1024);
  config.d_model = read.count("dim", limits::max_width);
  config.heads = read.count("n_heads", limits::max_heads);
  if (config.d_model % config.heads != 0)
    read.fail("n_heads", std::to_string(config.heads) + " does not divide dim " +
                             std::to_string(config.d_model));
  config.kv_heads = config.heads;
  config.head_dim = config.d_model / config.heads;
  config.d_mlp = read.count("hidden_dim", 16 * limits::max_width);
  config.vocab = read.count("vocab_size", 1 << 20);
  config.max_positions = read.count_or("max_position_embeddings", 1 << 20, 512);
  config.norm_eps = 1e-12;  // DistilBERT's nn.LayerNorm(eps=1e-12), not a config key
  post_ln_encoder(config, activation(read, "activation", "gelu"));
  config.tie_embeddings = read.flag("tie_word_embeddings", true);
  read.flag("sinusoidal_pos_embds",
            false);  // only its type: the file's position table is read either way
}

}  // namespace

Family distilbert() {
  TensorNames n;
  n.embed = "embeddings.word_embeddings";
  n.positions = "embeddings.position_embeddings";
  n.embed_norm = "embeddings.LayerNorm";
  n.q = "transformer.layer.{}.attention.q_lin";
  n.k = "transformer.layer.{}.attention.k_lin";
  n.v = "transformer.layer.{}.attention.v_lin";
  n.o = "transformer.layer.{}.attention.out_lin";
  n.attn_residual_norm = "transformer.layer.{}.sa_layer_norm";
  n.up = "transformer.layer.{}.ffn.lin1";
  n.down = "transformer.layer.{}.ffn.lin2";
  n.mlp_residual_norm = "transformer.layer.{}.output_layer_norm";
  n.lm_head = "vocab_projector";
  n.head_dense = "vocab_transform";
  n.head_norm = "vocab_layer_norm";
  n.head_bias = "vocab_projector.bias";
  return {"distilbert", read_distilbert, n};
}

}  // namespace attnlab::models::families
