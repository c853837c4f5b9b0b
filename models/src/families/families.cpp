// The table of families, config.json's typed fields, and what several families read alike.
#include <cmath>
#include <cstdio>

#include "attnlab/limits.h"
#include "attnlab/message_text.h"
#include "attnlab/scenario.h"
#include "family.h"
#include "../json_read.h"

namespace attnlab::models {
namespace {

using nlohmann::json;

// Vocabulary rows and positions: Llama 3's 128256 and Qwen2's 151936 fit; a bound on what is
// allocated before the weights are looked at.
constexpr int kMaxVocab = 1 << 20;
constexpr int kMaxLayers = 1024;

/// The one table: adding a family is its file and a row here.
const std::vector<Family>& table() {
  static const std::vector<Family> families = {
      families::gpt2(),    families::gpt_neox(),   families::llama(),  families::mistral(),
      families::qwen2(),   families::qwen3(),      families::gemma2(), families::gemma3_text(),
      families::smollm3(), families::olmo2(),      families::phi3(),   families::bert(),
      families::roberta(), families::distilbert(),
  };
  return families;
}

std::string excerpt(const json& value) { return prefix_excerpt(value.dump(), 40); }

}  // namespace

void ConfigReader::fail(const std::string& key, const std::string& message) const { refuse(file_ + ": " + key, message); }

int ConfigReader::count(const std::string& key, int max) const {
  if (!has(key)) fail(key, "missing");
  const json& v = config_[key];
  if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > max)
    fail(key, "expected a whole number from 1 to " + std::to_string(max) + ", got " + excerpt(v));
  return v.get<int>();
}

double ConfigReader::positive(const std::string& key, double fallback) const {
  if (!has(key)) return fallback;
  const json& v = config_[key];
  if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 1e12)
    fail(key, "expected a positive number, got " + excerpt(v));
  return v.get<double>();
}

double ConfigReader::rope_base(const std::string& key, double fallback) const {
  if (!has(key)) return fallback;
  const json& v = config_[key];
  if (!v.is_number() || !(v.get<double>() > 1) || v.get<double>() > limits::max_rope_base)
    fail(key, std::string("expected ") + limits::rope_base_range + ", got " + excerpt(v));
  return v.get<double>();
}

bool ConfigReader::flag(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  if (!config_[key].is_boolean()) fail(key, "expected true or false, got " + excerpt(config_[key]));
  return config_[key].get<bool>();
}

std::string ConfigReader::text(const std::string& key, const std::string& fallback) const {
  if (!has(key)) return fallback;
  if (!config_[key].is_string()) fail(key, "expected a string, got " + excerpt(config_[key]));
  return config_[key].get<std::string>();
}

void ConfigReader::require(const std::string& key, const json& supported, const std::string& why) const {
  if (has(key) && config_[key] != supported) fail(key, excerpt(config_[key]) + " is not supported (" + why + ")");
}

const Family* find_family(const std::string& model_type) {
  for (const Family& family : table())
    if (model_type == family.model_type) return &family;
  return nullptr;
}

std::string supported_model_types() {
  std::string list;
  for (const Family& family : table()) list += (list.empty() ? "" : ", ") + std::string(family.model_type);
  return list;
}

namespace families {

Activation activation(const ConfigReader& read, const std::string& key, const std::string& fallback) {
  const std::string name = read.text(key, fallback);
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::gelu_tanh;
  if (name == "gelu") return Activation::gelu;
  if (name == "silu" || name == "swish") return Activation::silu;
  if (name == "relu") return Activation::relu;
  read.fail(key, quoted_excerpt(name) + " is not supported (gelu_new, gelu_pytorch_tanh, gelu, silu, relu)");
}

void read_llama_sizes(const ConfigReader& read, ModelConfig& config) {
  config.layers = read.count("num_hidden_layers", kMaxLayers);
  config.d_model = read.count("hidden_size", limits::max_width);
  config.heads = read.count("num_attention_heads", limits::max_heads);
  config.kv_heads = read.count_or("num_key_value_heads", config.heads, config.heads);
  if (config.heads % config.kv_heads != 0)
    read.fail("num_key_value_heads", std::to_string(config.kv_heads) + " does not divide num_attention_heads " +
                                         std::to_string(config.heads));
  config.head_dim = read.count_or("head_dim", limits::max_width, config.d_model / config.heads);
  if (config.head_dim < 1)
    read.fail("num_attention_heads", std::to_string(config.heads) + " is more than hidden_size " + std::to_string(config.d_model));
  config.d_mlp = read.count("intermediate_size", 16 * limits::max_width);
  config.vocab = read.count("vocab_size", kMaxVocab);
  config.max_positions = read.count_or("max_position_embeddings", 1 << 22, 2048);
  config.norm = NormKind::rms_norm;
  config.norm_eps = read.positive("rms_norm_eps", 1e-6);
  config.attention_scale = 1.0 / std::sqrt(double(config.head_dim));
  config.activation = activation(read, "hidden_act", "silu");
  config.tie_embeddings = read.flag("tie_word_embeddings", false);
  config.gated_mlp = true;
  config.attention.assign(std::size_t(config.layers), LayerAttention{});
  read.require("mlp_bias", false, "biases in the MLP");
}

namespace {

/// rope_scaling's own fields, named "rope_scaling.factor" in messages.
class ScalingReader {
 public:
  ScalingReader(const ConfigReader& outer, const json& scaling) : outer_(outer), scaling_(scaling) {}
  const json* member(const char* key) const { return detail::member(scaling_, key); }
  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    outer_.fail("rope_scaling." + key, message);
  }
  double positive(const char* key) const {
    const json* v = member(key);
    if (!v) fail(key, "missing");
    if (!v->is_number() || !(v->get<double>() > 0) || v->get<double>() > 1e12)
      fail(key, "expected a positive number, got " + excerpt(*v));
    return v->get<double>();
  }
  double positive_or(const char* key, double fallback) const { return member(key) ? positive(key) : fallback; }
  /// A list of `count` positive numbers (longrope's factors, one per pair).
  std::vector<double> factors(const char* key, int count) const {
    const json* v = member(key);
    if (!v) fail(key, "missing");
    if (!v->is_array() || int(v->size()) != count)
      fail(key, "expected " + std::to_string(count) + " numbers (one per rotated pair), got " + excerpt(*v));
    std::vector<double> out;
    for (const json& x : *v) {
      if (!x.is_number() || !(x.get<double>() > 0) || x.get<double>() > 1e12)
        fail(key, "expected positive numbers, got " + excerpt(x));
      out.push_back(x.get<double>());
    }
    return out;
  }

 private:
  const ConfigReader& outer_;
  const json& scaling_;
};

std::string joined(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  return list.empty() ? "none" : list;
}

RopeScaling read_scaling(const ConfigReader& read, const ModelConfig& config, int dims,
                         const std::vector<std::string>& allowed) {
  RopeScaling scaling;
  if (!read.has("rope_scaling")) return scaling;
  const json& object = read.value("rope_scaling");
  if (!object.is_object()) read.fail("rope_scaling", "expected an object, got " + excerpt(object));
  const ScalingReader field(read, object);
  const json* type = field.member("rope_type");
  if (!type) type = field.member("type");
  if (!type || !type->is_string()) field.fail("rope_type", "expected a string such as \"llama3\", got " + detail::describe(type));
  const std::string kind = type->get<std::string>();
  if (kind == "default") return scaling;
  if (std::find(allowed.begin(), allowed.end(), kind) == allowed.end())
    field.fail("rope_type", quoted_excerpt(kind) + " is not supported for " + config.model_type + " (attnlab computes " +
                                joined(allowed) + ")");
  if (kind == "linear") {
    scaling.kind = RopeScaling::Kind::linear;
    scaling.factor = field.positive("factor");
  } else if (kind == "llama3") {
    scaling.kind = RopeScaling::Kind::llama3;
    scaling.factor = field.positive("factor");
    scaling.low_freq_factor = field.positive("low_freq_factor");
    scaling.high_freq_factor = field.positive("high_freq_factor");
    scaling.original_positions = field.positive("original_max_position_embeddings");
    if (!(scaling.high_freq_factor > scaling.low_freq_factor))
      field.fail("high_freq_factor", "expected more than low_freq_factor " + std::to_string(scaling.low_freq_factor));
  } else {  // longrope, as modeling_rope_utils.py's _compute_longrope_parameters
    scaling.kind = RopeScaling::Kind::longrope;
    scaling.short_factors = field.factors("short_factor", dims / 2);
    scaling.long_factors = field.factors("long_factor", dims / 2);
    double factor = field.positive_or("factor", 1.0);
    scaling.original_positions = double(config.max_positions);
    if (read.has("original_max_position_embeddings")) {
      scaling.original_positions = read.count("original_max_position_embeddings", 1 << 22);
      if (scaling.original_positions < 2)  // the attention factor divides by its logarithm
        read.fail("original_max_position_embeddings", "expected at least 2 for longrope, got 1");
      factor = double(config.max_positions) / scaling.original_positions;
    }
    scaling.factor = factor;
    if (factor > 1.0 && scaling.original_positions < 2)  // the default attention factor divides by its logarithm
      read.fail("max_position_embeddings", "expected at least 2 for longrope scaling");
    scaling.attention_factor = field.positive_or(
        "attention_factor",
        factor <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(factor) / std::log(scaling.original_positions)));
  }
  return scaling;
}

}  // namespace

Rope read_rope(const ConfigReader& read, const ModelConfig& config, double base, int dims,
               const std::vector<std::string>& allowed) {
  const std::string why = " is odd: RoPE turns a head's coordinates in pairs (Hugging Face cannot compute it either)";
  if (dims != config.head_dim && (dims % 2 != 0 || dims < 2))  // a partial rotary factor
    read.fail(read.has("rotary_pct") ? "rotary_pct" : "partial_rotary_factor",
              "gives " + std::to_string(dims) + " rotated coordinates per head, which" +
                  (dims < 2 ? std::string(" is too few to turn a pair") : why));
  if (dims % 2 != 0)  // rotate_half pairs coordinate c with c + dims / 2
    read.fail(read.has("head_dim") ? "head_dim" : "num_attention_heads",
              (read.has("head_dim") ? std::to_string(dims)
                                    : "gives heads of " + std::to_string(dims) + " (hidden_size / num_attention_heads), which") +
                  why);
  Rope rope;
  rope.style = Rope::Style::half;
  rope.base = base;
  rope.dims = dims;
  rope.scaling = read_scaling(read, config, dims, allowed);
  return rope;
}

void read_layer_types(const ConfigReader& read, ModelConfig& config, bool (*sliding)(int layer, const ConfigReader&)) {
  std::vector<bool> local(std::size_t(config.layers));
  if (read.has("layer_types")) {
    const json& types = read.value("layer_types");
    if (!types.is_array() || int(types.size()) != config.layers)
      read.fail("layer_types", "expected " + std::to_string(config.layers) + " entries (one per layer), got " + excerpt(types));
    for (std::size_t i = 0; i < types.size(); ++i) {
      if (types[i] != "sliding_attention" && types[i] != "full_attention")
        read.fail("layer_types[" + std::to_string(i) + "]",
                  "expected \"sliding_attention\" or \"full_attention\", got " + excerpt(types[i]));
      local[i] = types[i] == "sliding_attention";
    }
  } else {
    for (int i = 0; i < config.layers; ++i) local[std::size_t(i)] = sliding(i, read);
  }
  if (std::find(local.begin(), local.end(), true) == local.end()) return;
  const int window = read.count("sliding_window", 1 << 22);
  for (int i = 0; i < config.layers; ++i)
    if (local[std::size_t(i)]) config.attention[std::size_t(i)].window = window;
}

TensorNames llama_names() {
  TensorNames n;
  n.embed = "embed_tokens";
  n.final_norm = "norm";
  n.lm_head = "lm_head";
  n.attn_norm = "layers.{}.input_layernorm";
  n.mlp_norm = "layers.{}.post_attention_layernorm";
  n.q = "layers.{}.self_attn.q_proj";
  n.k = "layers.{}.self_attn.k_proj";
  n.v = "layers.{}.self_attn.v_proj";
  n.o = "layers.{}.self_attn.o_proj";
  n.gate = "layers.{}.mlp.gate_proj";
  n.up = "layers.{}.mlp.up_proj";
  n.down = "layers.{}.mlp.down_proj";
  return n;
}

}  // namespace families

std::string ModelConfig::describe() const {
  std::string text = model_type + ": " + std::to_string(layers) + " layers, " + std::to_string(heads) + " heads of " +
                     std::to_string(head_dim);
  if (kv_heads != heads) text += " (" + std::to_string(kv_heads) + " K/V heads)";
  return text + ", d " + std::to_string(d_model) + ", vocabulary " + std::to_string(vocab);
}

std::string ModelConfig::layer_caption(int layer) const {
  const LayerAttention& a = attention.at(std::size_t(layer));
  const bool some_local = std::any_of(attention.begin(), attention.end(), [](const LayerAttention& l) { return l.window > 0; });
  const bool some_rope = std::any_of(attention.begin(), attention.end(), [](const LayerAttention& l) { return bool(l.rope); });
  std::string caption;
  if (a.window > 0) caption = "local " + std::to_string(a.window);
  else if (some_local) caption = "global";
  if (some_rope && !a.rope) caption += std::string(caption.empty() ? "" : ", ") + "no RoPE";
  return caption;
}

ModelConfig parse_config(const std::string& json_text, const std::string& file) {
  const json config = detail::parse_json(json_text, file);
  if (!config.is_object()) refuse(file, "expected a JSON object");
  const ConfigReader read(config, file);
  ModelConfig result;
  result.model_type = read.text("model_type", "");
  const Family* family = find_family(result.model_type);
  if (!family)
    read.fail("model_type", (result.model_type.empty() ? std::string("missing") : quoted_excerpt(result.model_type)) +
                                ": attnlab computes " + supported_model_types());
  family->read(read, result);
  if (result.heads * result.head_dim > limits::max_width)
    read.fail("head_dim", "heads x head_dim is above attnlab's width limit " + std::to_string(limits::max_width));
  return result;
}

}  // namespace attnlab::models
