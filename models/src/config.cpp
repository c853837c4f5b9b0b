#include "attnlab/models/config.h"

#include <nlohmann/json.hpp>

#include "attnlab/limits.h"
#include "attnlab/message_text.h"
#include "attnlab/scenario.h"
#include "json_read.h"

namespace attnlab::models {
namespace {

using nlohmann::json;

// Vocabulary rows and positions: Llama 3's 128256 and Qwen2's 151936 fit; a bound on what is
// allocated before the weights are looked at.
constexpr int kMaxVocab = 1 << 20;
constexpr int kMaxLayers = 1024;

class ConfigReader {
 public:
  ConfigReader(const json& config, std::string file) : config_(config), file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    refuse(file_ + ": " + key, message);
  }
  bool has(const std::string& key) const { return config_.contains(key) && !config_[key].is_null(); }

  int count(const std::string& key, int max) const {
    if (!has(key)) fail(key, "missing");
    const json& value = config_[key];
    if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > max)
      fail(key, "expected a whole number from 1 to " + std::to_string(max) + ", got " + prefix_excerpt(value.dump(), 40));
    return value.get<int>();
  }
  int count_or(const std::string& key, int max, int fallback) const { return has(key) ? count(key, max) : fallback; }

  double positive(const std::string& key, double fallback) const {
    if (!has(key)) return fallback;
    const json& value = config_[key];
    if (!value.is_number() || !(value.get<double>() > 0) || value.get<double>() > 1e12)
      fail(key, "expected a positive number, got " + prefix_excerpt(value.dump(), 40));
    return value.get<double>();
  }
  /// RoPE's base: the range a scenario file holds (limits.h), so a layer written with --layer reopens.
  double rope_base(const std::string& key, double fallback) const {
    if (!has(key)) return fallback;
    const json& value = config_[key];
    if (!value.is_number() || !(value.get<double>() > 1) || value.get<double>() > limits::max_rope_base)
      fail(key, std::string("expected ") + limits::rope_base_range + ", got " + prefix_excerpt(value.dump(), 40));
    return value.get<double>();
  }
  bool flag(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!config_[key].is_boolean()) fail(key, "expected true or false, got " + prefix_excerpt(config_[key].dump(), 40));
    return config_[key].get<bool>();
  }
  std::string text(const std::string& key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!config_[key].is_string()) fail(key, "expected a string, got " + prefix_excerpt(config_[key].dump(), 40));
    return config_[key].get<std::string>();
  }
  /// Refuses an option that changes the math when it is set to anything but what attnlab computes.
  void require(const std::string& key, const json& supported, const std::string& why) const {
    if (has(key) && config_[key] != supported)
      fail(key, prefix_excerpt(config_[key].dump(), 40) + " is not supported (" + why + ")");
  }

 private:
  const json& config_;
  std::string file_;
};

Activation parse_activation(const ConfigReader& read, const std::string& key, const std::string& fallback) {
  const std::string name = read.text(key, fallback);
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::gelu_new;
  if (name == "gelu") return Activation::gelu;
  if (name == "silu" || name == "swish") return Activation::silu;
  if (name == "relu") return Activation::relu;
  read.fail(key, quoted_excerpt(name) + " is not supported (gelu_new, gelu, silu, relu)");
}

void read_gpt2(const ConfigReader& read, ModelConfig& config) {
  config.layers = read.count("n_layer", kMaxLayers);
  config.d_model = read.count("n_embd", limits::max_width);
  config.heads = read.count("n_head", limits::max_heads);
  config.kv_heads = config.heads;
  config.d_mlp = read.count_or("n_inner", 4 * limits::max_width, 4 * config.d_model);
  config.vocab = read.count("vocab_size", kMaxVocab);
  config.max_positions = read.count_or("n_positions", 1 << 20, read.count_or("n_ctx", 1 << 20, 1024));
  config.norm_eps = read.positive("layer_norm_epsilon", 1e-5);
  config.activation = parse_activation(read, "activation_function", "gelu_new");
  config.qkv_bias = config.o_bias = true;
  // GPT2LMHeadModel ties lm_head to wte unless the config says not to; then lm_head.weight is read.
  config.tie_embeddings = read.flag("tie_word_embeddings", true);
  read.require("scale_attn_weights", true, "attnlab scales scores by 1/sqrt(d_head)");
  read.require("scale_attn_by_inverse_layer_idx", false, "scores scaled by 1/(layer + 1)");
  read.require("add_cross_attention", false, "an encoder-decoder GPT-2");
}

void read_llama_or_qwen2(const ConfigReader& read, ModelConfig& config) {
  config.layers = read.count("num_hidden_layers", kMaxLayers);
  config.d_model = read.count("hidden_size", limits::max_width);
  config.heads = read.count("num_attention_heads", limits::max_heads);
  config.kv_heads = read.count_or("num_key_value_heads", config.heads, config.heads);
  if (config.heads % config.kv_heads != 0)
    read.fail("num_key_value_heads", std::to_string(config.kv_heads) + " does not divide num_attention_heads " +
                                         std::to_string(config.heads));
  config.head_dim = read.count_or("head_dim", limits::max_width, config.d_model / config.heads);
  if (config.head_dim % 2 != 0)  // rotate_half pairs coordinate c with c + head_dim / 2
    read.fail(read.has("head_dim") ? "head_dim" : "num_attention_heads",
              (read.has("head_dim") ? std::to_string(config.head_dim)
                                    : "gives heads of " + std::to_string(config.head_dim) +
                                          " (hidden_size / num_attention_heads), which") +
                  " is odd: RoPE turns a head's coordinates in pairs (Hugging Face cannot compute it either)");
  config.d_mlp = read.count("intermediate_size", 16 * limits::max_width);
  config.vocab = read.count("vocab_size", kMaxVocab);
  config.max_positions = read.count_or("max_position_embeddings", 1 << 22, 2048);
  config.norm_eps = read.positive("rms_norm_eps", 1e-6);
  config.rope_theta = read.rope_base("rope_theta", 10000.0);
  config.activation = parse_activation(read, "hidden_act", "silu");
  config.tie_embeddings = read.flag("tie_word_embeddings", false);
  const bool qwen2 = config.architecture == Architecture::qwen2;
  const bool attention_bias = !qwen2 && read.flag("attention_bias", false);
  config.qkv_bias = qwen2 || attention_bias;
  config.o_bias = attention_bias;
  read.require("rope_scaling", nullptr, "RoPE scaling changes the angles; attnlab computes plain RoPE");
  read.require("partial_rotary_factor", 1.0, "attnlab rotates every coordinate of a head");
  read.require("mlp_bias", false, "biases in the MLP");
  if (qwen2) read.require("use_sliding_window", false, "sliding-window attention in some layers");
}

}  // namespace

std::string ModelConfig::describe() const {
  std::string text = model_type + ": " + std::to_string(layers) + " layers, " + std::to_string(heads) + " heads of " +
                     std::to_string(head_dim);
  if (kv_heads != heads) text += " (" + std::to_string(kv_heads) + " K/V heads)";
  return text + ", d " + std::to_string(d_model) + ", vocabulary " + std::to_string(vocab);
}

ModelConfig parse_config(const std::string& json_text, const std::string& file) {
  const json config = detail::parse_json(json_text, file);
  if (!config.is_object()) refuse(file, "expected a JSON object");
  const ConfigReader read(config, file);
  ModelConfig result;
  result.model_type = read.text("model_type", "");
  if (result.model_type == "gpt2") {
    result.architecture = Architecture::gpt2;
    read_gpt2(read, result);
    if (result.d_model % result.heads != 0)
      read.fail("n_head", std::to_string(result.heads) + " does not divide n_embd " + std::to_string(result.d_model));
    result.head_dim = result.d_model / result.heads;
  } else if (result.model_type == "llama" || result.model_type == "qwen2") {
    result.architecture = result.model_type == "llama" ? Architecture::llama : Architecture::qwen2;
    read_llama_or_qwen2(read, result);
  } else {
    read.fail("model_type", (result.model_type.empty() ? std::string("missing") : quoted_excerpt(result.model_type)) +
                                ": attnlab computes gpt2, llama and qwen2");
  }
  if (result.heads * result.head_dim > limits::max_width)
    read.fail("head_dim", "heads x head_dim is above attnlab's width limit " + std::to_string(limits::max_width));
  return result;
}

}  // namespace attnlab::models
