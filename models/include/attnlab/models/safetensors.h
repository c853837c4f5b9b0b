#pragma once
/// The safetensors format (Hugging Face): an 8-byte little-endian header length N, N bytes of JSON
/// (`{"name": {"dtype": "F32", "shape": [r, c], "data_offsets": [begin, end]}, "__metadata__": {...}}`,
/// offsets relative to the data that follows the header), then the raw little-endian data.
/// Files are memory-mapped, never read into a second copy; every header entry is checked against
/// the file before any tensor is touched.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace attnlab::models {

/// The element types of the format. Weights may be F32, F16, BF16 or F64; a tensor of another type
/// (GPT-2's mask buffers, position ids) is checked like any other and refused only when it is used
/// as a weight.
enum class DType { f64, f32, f16, bf16, i64, i32, i16, i8, u64, u32, u16, u8, boolean, f8_e4m3, f8_e5m2 };
bool is_float(DType dtype);  ///< a type attnlab converts to float
const char* dtype_name(DType dtype);
std::size_t dtype_bytes(DType dtype);

struct TensorInfo {
  std::string name;
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape;
  std::size_t begin = 0;  ///< byte offset of the first element, from the start of the file
  std::size_t bytes = 0;  ///< dtype_bytes x the product of shape
  std::int64_t element_count() const;
};

/// Parses and checks a header: `bytes` is the whole file (or as much of it as a caller has).
/// Checks: the length fits the file, the JSON is an object of entries with a known dtype, a shape of
/// non-negative integers and data_offsets [begin, end] with begin <= end inside the data, end - begin
/// equal to dtype x shape, no two tensors overlapping. `file` names the file in refusals
/// ("model.safetensors: h.0.attn.c_attn.weight: data_offsets ...").
/// Throws ScenarioError (one line).
std::vector<TensorInfo> parse_safetensors_header(const unsigned char* bytes, std::size_t size,
                                                 const std::string& file);

/// A read-only memory mapping of a whole file; unmapped when the last holder lets go.
class MappedFile {
 public:
  /// Throws ScenarioError naming the file when it cannot be opened or mapped.
  static std::shared_ptr<const MappedFile> open(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const unsigned char* data() const { return data_; }
  std::size_t size() const { return size_; }
  /// Tells the kernel the pages of [begin, begin + bytes) are not needed any more (after their
  /// numbers were converted to float), so they leave the resident set.
  void release(std::size_t begin, std::size_t bytes) const;

 private:
  MappedFile() = default;
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

/// One mapped and checked safetensors file.
class SafetensorsFile {
 public:
  static std::shared_ptr<const SafetensorsFile> open(const std::filesystem::path& path);
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo* find(const std::string& name) const;
  const unsigned char* data(const TensorInfo& tensor) const { return file_->data() + tensor.begin; }
  const MappedFile& file() const { return *file_; }
  const std::string& name() const { return name_; }  ///< the file's name, for messages

 private:
  std::shared_ptr<const MappedFile> file_;
  std::vector<TensorInfo> tensors_;
  std::string name_;
};

}  // namespace attnlab::models
