#include "attnlab/models/weights.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>

#include <nlohmann/json.hpp>

#include "attnlab/message_text.h"
#include "attnlab/scenario.h"
#include "folder_files.h"
#include "json_read.h"

namespace attnlab::models {
namespace {

using nlohmann::json;

constexpr const char* kSingleFile = "model.safetensors";
constexpr const char* kIndexFile = "model.safetensors.index.json";
// Prefixes real files put before the names the architectures use (GPT-2 checkpoints saved from
// GPT2LMHeadModel: "transformer."; GPT-NeoX: "gpt_neox."; the others: "model.").
constexpr const char* kPrefixes[] = {"", "model.", "transformer.", "gpt_neox."};

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // inf, NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    exponent = 113;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

void to_float(const unsigned char* data, DType dtype, std::size_t count, float* out) {
  for (std::size_t i = 0; i < count; ++i) {
    if (dtype == DType::f32) {
      std::memcpy(out + i, data + 4 * i, 4);
      continue;
    }
    if (dtype == DType::f64) {
      double d;
      std::memcpy(&d, data + 8 * i, 8);
      out[i] = float(d);
      continue;
    }
    std::uint16_t h;
    std::memcpy(&h, data + 2 * i, 2);
    if (dtype == DType::f16) {
      out[i] = half_to_float(h);
    } else {
      const std::uint32_t bits = std::uint32_t(h) << 16;
      std::memcpy(out + i, &bits, 4);
    }
  }
}

/// The shard files `model.safetensors.index.json` names, and for each tensor its file.
std::map<std::string, std::string> read_index(const std::filesystem::path& path) {
  const json index = detail::parse_json(detail::read_file(path), kIndexFile);
  if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
    refuse(std::string(kIndexFile) + ": weight_map", "expected an object of tensor name: file name");
  std::map<std::string, std::string> files;
  for (const auto& [name, file] : index["weight_map"].items()) {
    const std::string field = std::string(kIndexFile) + ": weight_map." + excerpt(name);
    if (!file.is_string()) refuse(field, "expected a file name");
    const std::string file_name = file.get<std::string>();
    if (file_name.empty() || file_name.find('/') != std::string::npos || file_name == "." || file_name == "..")
      refuse(field, quoted_excerpt(file_name) + " is not a file name in the model's folder");
    files[name] = file_name;
  }
  if (files.empty()) refuse(std::string(kIndexFile) + ": weight_map", "names no tensor");
  return files;
}

/// Refuses a tensor holding NaN or an infinity: the forward pass would spread it into every number
/// after it, and a layer could not be written as a scenario (JSON has no such numbers).
void check_finite(const TensorInfo& tensor, const float* values) {
  const std::size_t count = std::size_t(tensor.element_count());
  // |x|'s bits order like |x| itself, and infinity and NaN are the largest: one max over the bits,
  // which vectorises to a load, an and and a max an element (GPT-2 small's 498 MB: 0.13 s with
  // Eigen's allFinite, measured with attnlab-cli model --ids 1).
  std::uint32_t largest = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, values + i, 4);
    largest = std::max(largest, bits & 0x7fffffffu);
  }
  if (largest < 0x7f800000u) return;
  std::size_t at = 0;
  while (std::isfinite(values[at])) ++at;
  std::vector<std::size_t> coordinates(tensor.shape.size());
  for (std::size_t d = coordinates.size(), rest = at; d-- > 0; rest /= std::size_t(tensor.shape[d]))
    coordinates[d] = rest % std::size_t(tensor.shape[d]);
  std::string index;
  for (std::size_t c : coordinates) index += (index.empty() ? "" : ", ") + std::to_string(c);
  refuse(excerpt(tensor.name), std::string("holds ") + (std::isnan(values[at]) ? "NaN" : "an infinity") + " at [" + index +
                                   "]: attnlab computes only finite weights");
}

}  // namespace

WeightSet WeightSet::open(const std::filesystem::path& dir) {
  WeightSet set;
  if (detail::present(dir / kSingleFile)) {
    auto file = SafetensorsFile::open(dir / kSingleFile);
    set.files_.push_back(file);
    for (const TensorInfo& tensor : file->tensors()) set.by_name_[tensor.name] = {file, &tensor};
    return set;
  }
  if (!detail::present(dir / kIndexFile))
    refuse("weights", std::string("no ") + kSingleFile + " or " + kIndexFile +
                          " in the folder (attnlab reads safetensors; convert .bin or .gguf files first)");
  std::map<std::string, std::shared_ptr<const SafetensorsFile>> shards;
  for (const auto& [name, file_name] : read_index(dir / kIndexFile)) {
    auto& shard = shards[file_name];
    if (!shard) {
      if (!detail::present(dir / file_name))
        refuse(std::string(kIndexFile) + ": weight_map", "names " + quoted_excerpt(file_name) + ", which is not in the folder");
      shard = SafetensorsFile::open(dir / file_name);
      set.files_.push_back(shard);
    }
    const TensorInfo* tensor = shard->find(name);
    if (!tensor) refuse(file_name, "has no tensor " + quoted_excerpt(name) + ", which the index places there");
    set.by_name_[name] = {shard, tensor};
  }
  return set;
}

const WeightSet::Location* WeightSet::locate(const std::string& name) const {
  for (const char* prefix : kPrefixes) {
    auto found = by_name_.find(prefix + name);
    if (found != by_name_.end()) return &found->second;
  }
  return nullptr;
}

bool WeightSet::contains(const std::string& name) const { return locate(name) != nullptr; }

const float* WeightSet::as_float(const Location& where) {
  auto cached = floats_.find(where.tensor);
  if (cached != floats_.end()) return cached->second;
  if (!is_float(where.tensor->dtype))
    refuse(excerpt(where.tensor->name), std::string("dtype ") + dtype_name(where.tensor->dtype) +
                                            " is not a weight type attnlab reads (F32, F16, BF16, F64)");
  const unsigned char* data = where.file->data(*where.tensor);
  const float* result;
  if (where.tensor->dtype == DType::f32 && reinterpret_cast<std::uintptr_t>(data) % alignof(float) == 0) {
    result = reinterpret_cast<const float*>(data);  // used in place: the mapping is the only copy
  } else {
    const std::size_t count = std::size_t(where.tensor->element_count());
    converted_.push_back(std::make_unique<std::vector<float>>(count));
    to_float(data, where.tensor->dtype, count, converted_.back()->data());
    where.file->file().release(where.tensor->begin, where.tensor->bytes);
    result = converted_.back()->data();
  }
  check_finite(*where.tensor, result);
  floats_[where.tensor] = result;
  return result;
}

MatrixFMap WeightSet::matrix(const std::string& name, Eigen::Index rows, Eigen::Index cols) {
  const Location* where = locate(name);
  if (!where) refuse("weights", "no tensor " + quoted_excerpt(name) + " (nor with a model., transformer. or gpt_neox. prefix)");
  const std::vector<std::int64_t>& shape = where->tensor->shape;
  const bool matches = (shape.size() == 2 && shape[0] == rows && shape[1] == cols) ||
                       (cols == 1 && shape.size() == 1 && shape[0] == rows);
  if (!matches) {
    std::string got;
    for (std::int64_t s : shape) got += (got.empty() ? "" : ", ") + std::to_string(s);
    const std::string expected = cols == 1 ? std::to_string(rows) : std::to_string(rows) + ", " + std::to_string(cols);
    refuse(excerpt(where->tensor->name), "expected shape [" + expected + "] from config.json, got [" + got + "]");
  }
  return MatrixFMap(as_float(*where), rows, cols);
}

VectorFMap WeightSet::vector(const std::string& name, Eigen::Index n) {
  return VectorFMap(matrix(name, n, 1).data(), n);
}

std::string WeightSet::dtype_summary() const {
  std::set<std::string> names;
  for (const auto& [tensor, data] : floats_) names.insert(dtype_name(tensor->dtype));
  std::string summary;
  for (const std::string& name : names) summary += (summary.empty() ? "" : "+") + name;
  return summary;
}

std::vector<std::string> WeightSet::file_names() const {
  std::vector<std::string> names;
  for (const auto& file : files_) names.push_back(file->name());
  return names;
}

}  // namespace attnlab::models
