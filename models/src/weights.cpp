#include "attnlab/models/weights.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
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
// GPT2LMHeadModel: "transformer."; GPT-NeoX: "gpt_neox."; the encoders' *ForMaskedLM: "bert.",
// "roberta.", "distilbert."; the others: "model.").
constexpr const char* kPrefixes[] = {"",      "model.",   "transformer.", "gpt_neox.",
                                     "bert.", "roberta.", "distilbert."};

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

/// `count` elements of `dtype` as float, one loop per type (BF16's is a shift, which vectorises: the
/// forward pass converts a BF16 model's weights block by block on every run).
void to_float(const unsigned char* data, DType dtype, std::size_t count, float* out) {
  switch (dtype) {
    case DType::f32: std::memcpy(out, data, 4 * count); return;
    case DType::f64:
      for (std::size_t i = 0; i < count; ++i) {
        double d;
        std::memcpy(&d, data + 8 * i, 8);
        out[i] = float(d);
      }
      return;
    case DType::bf16:
      for (std::size_t i = 0; i < count; ++i) {
        std::uint16_t h;
        std::memcpy(&h, data + 2 * i, 2);
        const std::uint32_t bits = std::uint32_t(h) << 16;
        std::memcpy(out + i, &bits, 4);
      }
      return;
    default:  // f16
      for (std::size_t i = 0; i < count; ++i) {
        std::uint16_t h;
        std::memcpy(&h, data + 2 * i, 2);
        out[i] = half_to_float(h);
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

/// The largest |x|'s bits among `count` elements of `Bits` (|x|'s bits order like |x| itself, and
/// infinity and NaN are the largest): one max over the bits, which vectorises to a load, an and and
/// a max an element (GPT-2 small's 498 MB: 0.13 s with Eigen's allFinite, measured with attnlab-cli
/// model --ids 1).
template <typename Bits>
Bits largest_magnitude(const unsigned char* data, std::size_t count, Bits magnitude) {
  Bits largest = 0;
  for (std::size_t i = 0; i < count; ++i) {
    Bits bits;
    std::memcpy(&bits, data + i * sizeof(Bits), sizeof(Bits));
    largest = std::max<Bits>(largest, Bits(bits & magnitude));
  }
  return largest;
}

/// Refuses a tensor holding NaN or an infinity: the forward pass would spread it into every number
/// after it, and a layer could not be written as a scenario (JSON has no such numbers). `data` holds
/// the tensor as float, or as F16 or BF16.
void check_finite(const TensorInfo& tensor, const unsigned char* data, DType dtype) {
  const std::size_t count = std::size_t(tensor.element_count());
  const bool finite =
      dtype == DType::f32    ? largest_magnitude<std::uint32_t>(data, count, 0x7fffffffu) < 0x7f800000u
      : dtype == DType::bf16 ? largest_magnitude<std::uint16_t>(data, count, 0x7fff) < 0x7f80
                             : largest_magnitude<std::uint16_t>(data, count, 0x7fff) < 0x7c00;
  if (finite) return;
  std::size_t at = 0;
  float value = 0;
  for (; at < count; ++at) {
    to_float(data + at * dtype_bytes(dtype), dtype, 1, &value);
    if (!std::isfinite(value)) break;
  }
  std::vector<std::size_t> coordinates(tensor.shape.size());
  for (std::size_t d = coordinates.size(), rest = at; d-- > 0; rest /= std::size_t(tensor.shape[d]))
    coordinates[d] = rest % std::size_t(tensor.shape[d]);
  std::string index;
  for (std::size_t c : coordinates) index += (index.empty() ? "" : ", ") + std::to_string(c);
  refuse(excerpt(tensor.name), std::string("holds ") + (std::isnan(value) ? "NaN" : "an infinity") + " at [" + index +
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
  check_finite(*where.tensor, reinterpret_cast<const unsigned char*>(result), DType::f32);
  floats_[where.tensor] = result;
  used_[where.tensor] = where.tensor->dtype;
  return result;
}

const WeightSet::Location& WeightSet::shaped(const std::string& name, Eigen::Index rows, Eigen::Index cols) const {
  const Location* where = locate(name);
  if (!where)
    refuse(
        "weights",
        "no tensor " + quoted_excerpt(name) +
            " (nor with a model., transformer., gpt_neox., bert., roberta. or distilbert. prefix)");
  const std::vector<std::int64_t>& shape = where->tensor->shape;
  const bool matches = (shape.size() == 2 && shape[0] == rows && shape[1] == cols) ||
                       (cols == 1 && shape.size() == 1 && shape[0] == rows);
  if (!matches) {
    std::string got;
    for (std::int64_t s : shape) got += (got.empty() ? "" : ", ") + std::to_string(s);
    const std::string expected = cols == 1 ? std::to_string(rows) : std::to_string(rows) + ", " + std::to_string(cols);
    refuse(excerpt(where->tensor->name), "expected shape [" + expected + "] from config.json, got [" + got + "]");
  }
  return *where;
}

MatrixFMap WeightSet::matrix(const std::string& name, Eigen::Index rows, Eigen::Index cols) {
  return MatrixFMap(as_float(shaped(name, rows, cols)), rows, cols);
}

TensorData WeightSet::tensor(const std::string& name, Eigen::Index rows, Eigen::Index cols) {
  const Location& where = shaped(name, rows, cols);
  const DType dtype = where.tensor->dtype;
  if (dtype != DType::f16 && dtype != DType::bf16)  // F32 in place when aligned; others once to float
    return {reinterpret_cast<const unsigned char*>(as_float(where)), DType::f32, rows, cols};
  const unsigned char* data = where.file->data(*where.tensor);
  if (!used_.count(where.tensor)) {
    check_finite(*where.tensor, data, dtype);
    used_[where.tensor] = dtype;
  }
  return {data, dtype, rows, cols};
}

void TensorData::block_into(Eigen::Index row, Eigen::Index count, Eigen::Index col, Eigen::Index width, float* out) const {
  const std::size_t bytes = dtype_bytes(dtype);
  for (Eigen::Index r = 0; r < count; ++r)
    to_float(data + (std::size_t(row + r) * std::size_t(cols) + std::size_t(col)) * bytes, dtype, std::size_t(width),
             out + r * width);
}

VectorFMap WeightSet::vector(const std::string& name, Eigen::Index n) {
  return VectorFMap(matrix(name, n, 1).data(), n);
}

std::string WeightSet::dtype_summary() const {
  std::set<std::string> names;
  for (const auto& [tensor, dtype] : used_) names.insert(dtype_name(dtype));
  std::string summary;
  for (const std::string& name : names) summary += (summary.empty() ? "" : "+") + name;
  return summary;
}

std::vector<std::string> WeightSet::file_names() const {
  std::vector<std::string> names;
  for (const auto& file : files_) names.push_back(file->name());
  return names;
}

namespace {

// FNV-1a, 64 bits: a fingerprint, not a defence against someone forging weights.
void Fnv1a(std::uint64_t& h, const unsigned char* bytes, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) h = (h ^ bytes[i]) * 1099511628211ull;
}

}  // namespace

std::string WeightSet::fingerprint() const {
  constexpr std::size_t kSample = 4096;
  std::uint64_t h = 14695981039346656037ull;
  for (const auto& file : files_) {
    const MappedFile& mapped = file->file();
    const std::uint64_t size = mapped.size();
    Fnv1a(h, reinterpret_cast<const unsigned char*>(&size), sizeof size);
    // A safetensors file: 8 bytes of header length, the header, then the numbers (checked at open).
    std::uint64_t header = 0;
    std::memcpy(&header, mapped.data(), sizeof header);
    const std::size_t data = std::size_t(8 + header), bytes = std::size_t(size) - data;
    Fnv1a(h, mapped.data(), data);
    for (const std::size_t at : {std::size_t(0), bytes / 2, bytes - std::min(bytes, kSample)})
      Fnv1a(h, mapped.data() + data + at, std::min(kSample, bytes - at));
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

}  // namespace attnlab::models
