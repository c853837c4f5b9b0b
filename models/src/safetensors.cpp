#include "attnlab/models/safetensors.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "attnlab/message_text.h"
#include "attnlab/scenario.h"
#include "folder_files.h"
#include "json_read.h"

namespace attnlab::models {
namespace {

using nlohmann::json;

// A header is JSON of a few hundred bytes a tensor; real files stay far below this (GPT-2: 15 KB,
// a 405B model's shard: under 100 KB). It bounds what is parsed before anything is checked.
constexpr std::uint64_t kMaxHeaderBytes = 100u << 20;
// Dimensions of one tensor and elements in one: far beyond any model attnlab computes, small enough
// that products of shapes never overflow.
constexpr std::size_t kMaxRank = 8;
constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;

constexpr struct {
  DType dtype;
  const char* name;
  std::size_t bytes;
} kDTypes[] = {{DType::f64, "F64", 8},    {DType::f32, "F32", 4},        {DType::f16, "F16", 2},
               {DType::bf16, "BF16", 2},  {DType::i64, "I64", 8},        {DType::i32, "I32", 4},
               {DType::i16, "I16", 2},    {DType::i8, "I8", 1},          {DType::u64, "U64", 8},
               {DType::u32, "U32", 4},    {DType::u16, "U16", 2},        {DType::u8, "U8", 1},
               {DType::boolean, "BOOL", 1}, {DType::f8_e4m3, "F8_E4M3", 1}, {DType::f8_e5m2, "F8_E5M2", 1}};

DType parse_dtype(const json& value, const std::string& field) {
  if (value.is_string())
    for (const auto& known : kDTypes)
      if (value.get<std::string>() == known.name) return known.dtype;
  refuse(field, "expected a safetensors dtype (F32, F16, BF16, I64, ...), got " + prefix_excerpt(value.dump(), 40));
}

std::int64_t parse_count(const json& value, const std::string& field, std::int64_t max) {
  if (!value.is_number_unsigned() || value.get<std::uint64_t>() > std::uint64_t(max))
    refuse(field, "expected a whole number from 0 to " + std::to_string(max) + ", got " +
                      prefix_excerpt(value.dump(), 40));
  return value.get<std::int64_t>();
}

TensorInfo parse_entry(const std::string& name, const json& entry, const std::string& field,
                       std::size_t data_begin, std::size_t data_size) {
  if (!entry.is_object()) refuse(field, "expected an object with dtype, shape and data_offsets");
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!entry.contains(key)) refuse(field, std::string("missing \"") + key + "\"");
  TensorInfo tensor;
  tensor.name = name;
  tensor.dtype = parse_dtype(entry["dtype"], field + ".dtype");
  const json& shape = entry["shape"];
  if (!shape.is_array() || shape.size() > kMaxRank)
    refuse(field + ".shape", "expected an array of at most " + std::to_string(kMaxRank) + " sizes");
  std::int64_t elements = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const std::int64_t n = parse_count(shape[i], field + ".shape[" + std::to_string(i) + "]", kMaxElements);
    tensor.shape.push_back(n);
    if (n != 0 && elements > kMaxElements / n) refuse(field + ".shape", "more than 2^40 elements");
    elements *= n;
  }
  const json& offsets = entry["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2) refuse(field + ".data_offsets", "expected [begin, end]");
  const std::int64_t begin = parse_count(offsets[0], field + ".data_offsets[0]", kMaxElements * 8);
  const std::int64_t end = parse_count(offsets[1], field + ".data_offsets[1]", kMaxElements * 8);
  if (std::uint64_t(end) > data_size)
    refuse(field + ".data_offsets", "end at byte " + std::to_string(end) + " of the data, which holds " +
                                        std::to_string(data_size) + ": the file is truncated or the offsets are wrong");
  if (end < begin) refuse(field + ".data_offsets", "end " + std::to_string(end) + " before begin " + std::to_string(begin));
  tensor.bytes = std::size_t(elements) * dtype_bytes(tensor.dtype);
  if (std::size_t(end - begin) != tensor.bytes)
    refuse(field + ".data_offsets", "spans " + std::to_string(end - begin) + " bytes, but " + dtype_name(tensor.dtype) +
                                        " x shape needs " + std::to_string(tensor.bytes));
  tensor.begin = data_begin + std::size_t(begin);
  return tensor;
}

/// Sorts the tensors by where their data begins and refuses two whose bytes overlap. An empty tensor
/// (a shape with a 0) holds no byte, so it overlaps nothing: the safetensors library gives it the
/// offset of the tensor after it.
void check_no_overlap(std::vector<TensorInfo>& tensors, const std::string& file) {
  std::sort(tensors.begin(), tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.bytes < b.bytes;
  });
  const TensorInfo* previous = nullptr;
  for (const TensorInfo& tensor : tensors) {
    if (tensor.bytes == 0) continue;
    if (previous && tensor.begin < previous->begin + previous->bytes)
      refuse(file + ": " + excerpt(tensor.name), "data overlaps " + quoted_excerpt(previous->name));
    previous = &tensor;
  }
}

/// The header's JSON; a tensor named twice is refused (the format forbids it, and which entry a
/// reader keeps would decide the model's numbers).
json parse_header(const std::string& text, const std::string& file) {
  std::set<std::string> names;
  const json::parser_callback_t once = [&](int depth, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::key && depth == 1 && !names.insert(parsed.get<std::string>()).second)
      refuse(file + ": " + excerpt(parsed.get<std::string>()), "named twice in the header (the format allows each name once)");
    return true;
  };
  return detail::parse_json(text, file + ": header", once);
}

}  // namespace

const char* dtype_name(DType dtype) {
  for (const auto& known : kDTypes)
    if (known.dtype == dtype) return known.name;
  return "?";
}

std::size_t dtype_bytes(DType dtype) {
  for (const auto& known : kDTypes)
    if (known.dtype == dtype) return known.bytes;
  return 1;
}

bool is_float(DType dtype) {
  return dtype == DType::f64 || dtype == DType::f32 || dtype == DType::f16 || dtype == DType::bf16;
}

std::int64_t TensorInfo::element_count() const {
  std::int64_t n = 1;
  for (std::int64_t s : shape) n *= s;
  return n;
}

std::vector<TensorInfo> parse_safetensors_header(const unsigned char* bytes, std::size_t size,
                                                 const std::string& file) {
  if (size < 8) refuse(file, "truncated: " + std::to_string(size) + " bytes, not even the 8-byte header length");
  std::uint64_t header_bytes = 0;
  for (int i = 7; i >= 0; --i) header_bytes = (header_bytes << 8) | bytes[i];
  if (header_bytes > kMaxHeaderBytes || header_bytes > size - 8)
    refuse(file, "header length " + std::to_string(header_bytes) + " is longer than the file (" +
                     std::to_string(size) + " bytes): truncated or not safetensors");
  const char* text = reinterpret_cast<const char*>(bytes + 8);
  const json header = parse_header(std::string(text, std::size_t(header_bytes)), file);
  if (!header.is_object()) refuse(file + ": header", "expected a JSON object of tensors");
  const std::size_t data_begin = 8 + std::size_t(header_bytes);
  std::vector<TensorInfo> tensors;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    tensors.push_back(parse_entry(name, entry, file + ": " + excerpt(name), data_begin, size - data_begin));
  }
  check_no_overlap(tensors, file);
  return tensors;
}

std::shared_ptr<const MappedFile> MappedFile::open(const std::filesystem::path& path) {
  const std::string name = excerpt(path.filename().string());
  const detail::RegularFile file(path, name);
  std::shared_ptr<MappedFile> mapped(new MappedFile());
  mapped->size_ = file.size();
  if (mapped->size_ > 0) {
    void* data = mmap(nullptr, mapped->size_, PROT_READ, MAP_PRIVATE, file.fd(), 0);
    if (data == MAP_FAILED) refuse(name, std::string("cannot map: ") + std::strerror(errno));
    mapped->data_ = static_cast<const unsigned char*>(data);
  }
  return mapped;
}

MappedFile::~MappedFile() {
  if (data_) munmap(const_cast<unsigned char*>(data_), size_);
}

void MappedFile::release(std::size_t begin, std::size_t bytes) const {
  const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  // Only whole pages inside the range: a neighbour's numbers may share the first and last page.
  const std::size_t first = (begin + page - 1) / page * page;
  const std::size_t last = (begin + bytes) / page * page;
  if (last > first) madvise(const_cast<unsigned char*>(data_) + first, last - first, MADV_DONTNEED);
}

std::shared_ptr<const SafetensorsFile> SafetensorsFile::open(const std::filesystem::path& path) {
  auto file = std::make_shared<SafetensorsFile>();
  file->name_ = excerpt(path.filename().string());
  file->file_ = MappedFile::open(path);
  file->tensors_ = parse_safetensors_header(file->file_->data(), file->file_->size(), file->name_);
  return file;
}

const TensorInfo* SafetensorsFile::find(const std::string& name) const {
  for (const TensorInfo& tensor : tensors_)
    if (tensor.name == name) return &tensor;
  return nullptr;
}

}  // namespace attnlab::models
