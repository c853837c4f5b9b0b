// RoBERTa (FacebookAI/roberta-base; transformers' models/roberta/modeling_roberta.py): BERT's
// blocks, positions counted from padding_idx + 1 (pad_token_id;
// create_position_ids_from_input_ids), one token type, and its lm_head: dense, gelu (erf, whatever
// hidden_act says), layer_norm, then the word embeddings (tied) plus lm_head.bias.
#include "family.h"

namespace attnlab::models::families {
namespace {

void read_roberta(const ConfigReader& read, ModelConfig& config) {
  read_bert_sizes(read, config);
  config.type_vocab = read.count_or("type_vocab_size", 1 << 16, 1);
  config.head_activation = Activation::gelu;
  if (!read.has("pad_token_id"))
    read.fail("pad_token_id", "missing: RoBERTa counts its positions from it");
  const nlohmann::json& pad = read.value("pad_token_id");
  if (!pad.is_number_integer() || pad.get<long long>() < 0 ||
      pad.get<long long>() >= config.max_positions - 1)
    read.fail("pad_token_id", "expected a whole number from 0 to max_position_embeddings - 2 (" +
                                  std::to_string(config.max_positions - 2) + "), got " +
                                  pad.dump());
  config.position_padding_idx = pad.get<int>();
}

TensorNames roberta_names() {
  TensorNames n = bert_names();
  n.lm_head = "lm_head.decoder";
  n.head_dense = "lm_head.dense";
  n.head_norm = "lm_head.layer_norm";
  n.head_bias = "lm_head.bias";
  return n;
}

}  // namespace

Family roberta() { return {"roberta", read_roberta, roberta_names()}; }

}  // namespace attnlab::models::families
