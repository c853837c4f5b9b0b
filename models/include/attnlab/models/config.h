#pragma once
/// A Hugging Face `config.json` read into the recipe of a forward pass: the sizes, and how each layer
/// computes (norms and where they sit, the attention's variants per layer, the MLP, the head). One
/// file per family reads its keys (models/src/families/, registered by `model_type` in one table).
/// Every option that changes the math and is not computed (yarn scaling, experts...) is refused with
/// one line naming it, never ignored.
#include <optional>
#include <string>
#include <vector>

#include "attnlab/scenario.h"

namespace attnlab::models {

enum class Activation { gelu_tanh, gelu, silu, relu };
enum class NormKind { layer_norm, rms_norm };

/// What one layer's attention does that its neighbours' may not: Gemma's local (sliding) and global
/// layers with their own RoPE bases, SmolLM3's layers without RoPE.
struct LayerAttention {
  std::optional<Rope> rope;  ///< none: no rotation in this layer (GPT-2's learned positions, NoPE layers)
  int window = 0;            ///< > 0: a query sees only the `window` latest tokens, itself included
};

struct ModelConfig {
  std::string model_type;    ///< as the file writes it; names the family
  int layers = 0;            ///< n_layer / num_hidden_layers
  int d_model = 0;           ///< n_embd / hidden_size
  int heads = 0;             ///< H: n_head / num_attention_heads
  int kv_heads = 0;          ///< G: num_key_value_heads (H when absent)
  int head_dim = 0;          ///< d_model / H unless head_dim is given
  int d_mlp = 0;             ///< n_inner (4 d_model when null) / intermediate_size
  int vocab = 0;             ///< vocab_size: rows of the embedding
  int max_positions = 0;     ///< n_positions / max_position_embeddings

  // How every layer computes, filled by the family's reader.
  NormKind norm = NormKind::rms_norm;
  bool norm_plus_one = false;      ///< Gemma's RMSNorm: weights used as 1 + w
  double norm_eps = 1e-5;          ///< layer_norm_epsilon / rms_norm_eps
  bool parallel_residual = false;  ///< GPT-NeoX: attention and MLP both read the layer's input
  bool qkv_bias = false, o_bias = false, mlp_bias = false;
  /// QK-norm's scope, 1 + w and eps (its weights are each layer's own q_norm and k_norm); none: no QK-norm.
  std::optional<QkNorm> qk_norm;
  double attention_scale = 0.0;    ///< multiplies the scores: 1/sqrt(head_dim), or Gemma's query_pre_attn_scalar^-1/2
  double attn_softcap = 0.0;       ///< Gemma 2: cap tanh(s / cap) on the scaled scores; 0: none
  double final_softcap = 0.0;      ///< Gemma 2: the same on the logits; 0: none
  double embedding_scale = 1.0;    ///< Gemma: the embeddings times sqrt(hidden_size)
  bool learned_positions = false;  ///< GPT-2's wpe, added to the token embeddings
  bool gated_mlp = true;           ///< down(act(gate x) * up x); false: down(act(up x + b) ) + b
  Activation activation = Activation::silu;
  bool tie_embeddings = true;      ///< the LM head is the token embedding
  /// false for an encoder (BERT, DistilBERT, RoBERTa): every token sees every other, and the head
  /// predicts the word at a masked position instead of the next token.
  bool causal = true;
  int type_vocab = 0;  ///< BERT's token types (segments): rows of token_type_embeddings; 0: none
  /// RoBERTa's positions: padding_idx + 1 + i for the i-th token that is not padding, padding_idx
  /// for padding (create_position_ids_from_input_ids); -1: positions 0 .. n - 1.
  int position_padding_idx = -1;
  /// The positions a text may take: RoBERTa's start after position_padding_idx + 1 rows.
  int usable_positions() const {
    return position_padding_idx >= 0 ? max_positions - position_padding_idx - 1 : max_positions;
  }
  /// The masked-LM head's activation between its dense layer and its LayerNorm (BERT: hidden_act,
  /// RoBERTa: gelu, DistilBERT: activation).
  Activation head_activation = Activation::gelu;
  std::vector<LayerAttention> attention;  ///< one per layer

  std::string describe() const;  ///< "gpt2: 12 layers, 12 heads of 64, d 768, vocabulary 50257"
  /// What is special about layer `layer`'s attention, for captions: "local 512" (its window),
  /// "global" (beside local layers), "no RoPE" (beside layers with it), "" when like the others.
  std::string layer_caption(int layer) const;
};

/// Parses config.json's text. Throws ScenarioError ("config.json: model_type: ..." ) on a missing or
/// wrong field, an unknown model_type, an unsupported option, sizes beyond attnlab's limits.
ModelConfig parse_config(const std::string& json_text, const std::string& file = "config.json");

/// The model types attnlab reads, for messages and the README: "gpt2, llama, mistral, ...".
std::string supported_model_types();

}  // namespace attnlab::models
