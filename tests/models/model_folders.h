#pragma once
// Model folders for hostile cases (tests/hostile/cases.json, "model_cases"): a fixture of
// tests/fixtures/models copied and edited one way, and the command-line words of a case. Shared by
// tests/models/test_model_hostile.cpp (the CLI) and tests/gui/gui_model_open_check.cpp (the window).
//
// Edits (each key of "edit" one kind; several may be combined):
//   remove NAME | write NAME + text | truncate NAME + keep   files as they are
//   files {NAME: text, ...}                                   several files written
//   fifo NAME | folder NAME | symlink {NAME: TARGET}          NAME replaced by a named pipe, a
//                                                             folder, a symbolic link
//   config {...} | tokenizer {...}                            keys set in config.json / tokenizer.json
//   added_tokens {count, content, first_id}                   added tokens "content" with {} the index
//   header {TENSOR: {key: value}}                             safetensors header entries set (or added)
//   header_text {from, to}                                    the header's text edited (a name twice)
//   poke {tensor, index, value: "nan" | "inf"}                one F32 element of a tensor overwritten
#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab::testing::model_folders {

namespace fs = std::filesystem;
using nlohmann::json;

inline std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

/// A safetensors file split into its header (parsed) and the data after it.
struct Safetensors {
  json header;
  std::string data;

  static Safetensors read(const fs::path& file) {
    const std::string bytes = read_bytes(file);
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | std::uint8_t(bytes[std::size_t(i)]);
    return {json::parse(bytes.substr(8, n)), bytes.substr(8 + n)};
  }
  /// Writes `header_text` (the header as given, duplicate names included) and the data.
  static void write(const fs::path& file, const std::string& header_text, const std::string& data) {
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[std::size_t(i)] = char((header_text.size() >> (8 * i)) & 0xff);
    write_bytes(file, out + header_text + data);
  }
  void write(const fs::path& file) const { write(file, header.dump(), data); }
};

inline void update_json_file(const fs::path& file, const json& changes) {
  json doc = json::parse(read_bytes(file));
  doc.update(changes);
  write_bytes(file, doc.dump(2));
}

inline void add_tokens(const fs::path& file, const json& spec) {
  json doc = json::parse(read_bytes(file));
  const std::string content = spec.at("content");
  for (int i = 0; i < spec.at("count").get<int>(); ++i) {
    std::string text = content;
    text.replace(text.find("{}"), 2, std::to_string(i));
    doc["added_tokens"].push_back({{"id", spec.at("first_id").get<int>() + i}, {"content", text},
                                   {"single_word", false}, {"lstrip", false}, {"rstrip", false},
                                   {"normalized", false}, {"special", true}});
  }
  write_bytes(file, doc.dump());
}

/// Overwrites element `index` of an F32 tensor of model.safetensors with NaN or infinity.
inline void poke(const fs::path& file, const json& spec) {
  Safetensors st = Safetensors::read(file);
  const json& entry = st.header.at(spec.at("tensor").get<std::string>());
  const std::size_t at = entry.at("data_offsets")[0].get<std::size_t>() + 4 * spec.at("index").get<std::size_t>();
  const float value = spec.at("value") == "nan" ? std::numeric_limits<float>::quiet_NaN()
                                                 : std::numeric_limits<float>::infinity();
  std::memcpy(&st.data[at], &value, 4);
  st.write(file);
}

inline void replace_with(const fs::path& path, const std::string& kind, const std::string& target = "") {
  fs::remove_all(path);
  if (kind == "fifo") ::mkfifo(path.c_str(), 0644);
  if (kind == "folder") fs::create_directory(path);
  if (kind == "symlink") fs::create_symlink(target, path);
}

/// Applies a case's "edit" to the copied folder `dir`.
inline void apply(const fs::path& dir, const json& edit) {
  if (edit.contains("remove")) fs::remove(dir / edit["remove"].get<std::string>());
  if (edit.contains("write")) write_bytes(dir / edit["write"].get<std::string>(), edit.at("text").get<std::string>());
  if (edit.contains("files"))
    for (const auto& [name, text] : edit["files"].items()) write_bytes(dir / name, text.get<std::string>());
  if (edit.contains("truncate"))
    fs::resize_file(dir / edit["truncate"].get<std::string>(), edit.at("keep").get<std::uintmax_t>());
  for (const char* kind : {"fifo", "folder"})
    if (edit.contains(kind)) replace_with(dir / edit[kind].get<std::string>(), kind);
  if (edit.contains("symlink"))
    for (const auto& [name, target] : edit["symlink"].items()) replace_with(dir / name, "symlink", target);
  if (edit.contains("config")) update_json_file(dir / "config.json", edit["config"]);
  if (edit.contains("tokenizer")) update_json_file(dir / "tokenizer.json", edit["tokenizer"]);
  if (edit.contains("added_tokens")) add_tokens(dir / "tokenizer.json", edit["added_tokens"]);
  if (edit.contains("header")) {
    Safetensors st = Safetensors::read(dir / "model.safetensors");
    for (const auto& [tensor, fields] : edit["header"].items())
      for (const auto& [key, value] : fields.items()) st.header[tensor][key] = value;
    st.write(dir / "model.safetensors");
  }
  if (edit.contains("header_text")) {
    const Safetensors st = Safetensors::read(dir / "model.safetensors");
    std::string text = st.header.dump();
    const std::string from = edit["header_text"].at("from"), to = edit["header_text"].at("to");
    text.replace(text.find(from), from.size(), to);
    Safetensors::write(dir / "model.safetensors", text, st.data);
  }
  if (edit.contains("poke")) poke(dir / "model.safetensors", edit["poke"]);
}

/// A pre-tokenizer whose pattern backtracks a little on every match: (?:a+)+b|c tries every split
/// of a run of a's before it matches the c after it ("a" x 21 + "c", 4,500 times: 117 s unbounded).
inline json backtracking_pre_tokenizer() {
  return {{"type", "Sequence"},
          {"pretokenizers",
           {{{"type", "Split"}, {"pattern", {{"Regex", "(?:a+)+b|c"}}}, {"behavior", "Isolated"}},
            {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
}

/// A Qwen2-shaped folder of many layers and heads and tiny widths (d_model 8, heads of 2
/// coordinates, weights 0.01, qwen2-f32's tokenizer): its weights take kilobytes, but every
/// layer's and head's n x n attention weights at a long text take terabytes.
inline void write_wide_qwen2(const fs::path& fixtures, const fs::path& dir, int layers, int heads, int positions) {
  fs::create_directories(dir);
  const int d = 8, head_dim = 2, mlp = 8, vocab = 384, q = heads * head_dim, kv = head_dim;
  write_bytes(dir / "config.json",
              json{{"model_type", "qwen2"}, {"num_hidden_layers", layers}, {"hidden_size", d},
                   {"num_attention_heads", heads}, {"num_key_value_heads", 1}, {"head_dim", head_dim},
                   {"intermediate_size", mlp}, {"vocab_size", vocab}, {"max_position_embeddings", positions},
                   {"tie_word_embeddings", true}}
                  .dump());
  fs::copy(fixtures / "qwen2-f32/tokenizer.json", dir / "tokenizer.json");
  json header = json::object();
  std::string data;
  const auto tensor = [&](const std::string& name, std::vector<int> shape) {
    std::size_t count = 1;
    for (int s : shape) count *= std::size_t(s);
    const std::size_t begin = data.size();
    const float value = 0.01f;
    for (std::size_t i = 0; i < count; ++i) data.append(reinterpret_cast<const char*>(&value), 4);
    header[name] = {{"dtype", "F32"}, {"shape", shape}, {"data_offsets", {begin, data.size()}}};
  };
  tensor("model.embed_tokens.weight", {vocab, d});
  tensor("model.norm.weight", {d});
  for (int l = 0; l < layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    tensor(p + "input_layernorm.weight", {d});
    tensor(p + "post_attention_layernorm.weight", {d});
    for (const auto& [name, out] : std::vector<std::pair<std::string, int>>{{"q_proj", q}, {"k_proj", kv}, {"v_proj", kv}}) {
      tensor(p + "self_attn." + name + ".weight", {out, d});
      tensor(p + "self_attn." + name + ".bias", {out});
    }
    tensor(p + "self_attn.o_proj.weight", {d, q});
    tensor(p + "mlp.gate_proj.weight", {mlp, d});
    tensor(p + "mlp.up_proj.weight", {mlp, d});
    tensor(p + "mlp.down_proj.weight", {d, mlp});
  }
  Safetensors{header, data}.write(dir / "model.safetensors");
}

/// A case's folder, made under `parent`: the fixture copied and edited, or nothing for base null.
/// Named "model" unless the case gives "folder_name".
inline fs::path make(const fs::path& fixtures, const fs::path& parent, const json& c) {
  const fs::path dir = parent / c.value("folder_name", std::string("model"));
  if (c.at("base").is_null()) return dir;
  fs::copy(fixtures / c["base"].get<std::string>(), dir);
  if (c.contains("edit")) apply(dir, c["edit"]);
  return dir;
}

/// A case's "message" with each DIR replaced by `dir` (the folder as a message names it).
inline std::string message(const json& c, const std::string& dir) {
  std::string text = c.at("message");
  for (std::size_t at = text.find("DIR"); at != std::string::npos; at = text.find("DIR", at + dir.size()))
    text.replace(at, 3, dir);
  return text;
}

/// A case's argument: a word, or {"repeat": S, "times": N} for S written N times.
inline std::string argument(const json& arg) {
  if (arg.is_string()) return arg.get<std::string>();
  std::string text;
  for (int i = 0; i < arg.at("times").get<int>(); ++i) text += arg.at("repeat").get<std::string>();
  return text;
}

}  // namespace attnlab::testing::model_folders
