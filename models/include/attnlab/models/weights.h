#pragma once
/// A model folder's weights: `model.safetensors`, or the shards `model.safetensors.index.json` lists
/// (its "weight_map" names each tensor's file). Tensors are looked up by their name without the
/// prefix real files carry (`transformer.`, `model.`, `gpt_neox.`). The large ones (tensor()) stay as
/// the file stores them, in the mapping: F32 used in place, F16 and BF16 two bytes each, converted
/// block by block as they are used, so a BF16 model costs its file's size, not twice it. Small ones
/// (matrix(), vector(): norms, biases) are converted to float once.
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "attnlab/models/safetensors.h"

namespace attnlab::models {

using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using VectorF = Eigen::VectorXf;
using MatrixFMap = Eigen::Map<const MatrixF>;
using VectorFMap = Eigen::Map<const VectorF>;

/// A rows x cols tensor (row-major) as the file stores it: F32, F16 or BF16.
struct TensorData {
  const unsigned char* data = nullptr;
  DType dtype = DType::f32;
  Eigen::Index rows = 0, cols = 0;

  /// The tensor itself when it is F32 (used in place), else null.
  const float* floats() const { return dtype == DType::f32 ? reinterpret_cast<const float*>(data) : nullptr; }
  /// Rows [row, row + count) and columns [col, col + width) as float, row-major, into `out`.
  void block_into(Eigen::Index row, Eigen::Index count, Eigen::Index col, Eigen::Index width, float* out) const;
};

class WeightSet {
 public:
  /// Opens the folder's weights and checks every file's header. Throws ScenarioError (one line):
  /// no weights file, a shard the index names that is missing, a tensor the index places in a file
  /// that does not hold it.
  static WeightSet open(const std::filesystem::path& dir);

  /// True when the tensor exists (under any of the known prefixes).
  bool contains(const std::string& name) const;
  /// The tensor as a rows x cols float matrix (row-major, as stored). Throws naming the tensor when
  /// it is missing or its shape is not [rows, cols].
  MatrixFMap matrix(const std::string& name, Eigen::Index rows, Eigen::Index cols);
  /// The tensor as a float vector of n. Throws as matrix().
  VectorFMap vector(const std::string& name, Eigen::Index n);
  /// A large tensor as the file stores it (F32 aligned, F16, BF16; other types are converted to
  /// float once). Throws as matrix(), and names a tensor holding NaN or an infinity.
  TensorData tensor(const std::string& name, Eigen::Index rows, Eigen::Index cols);
  /// The dtypes of the tensors read so far ("F32", "BF16", "F16+F32"), for titles.
  std::string dtype_summary() const;
  /// The files, for messages and the window ("model.safetensors" or the shards).
  std::vector<std::string> file_names() const;
  /// What tells these weights from others of the same shapes, cheaply: 16 hex digits of a hash of
  /// each file's size, header (names, dtypes, shapes, offsets) and 4 KiB of its numbers at the
  /// start, middle and end (a fine-tune or another checkpoint changes them; reading them touches
  /// three pages a file, not the file).
  std::string fingerprint() const;

 private:
  struct Location {
    std::shared_ptr<const SafetensorsFile> file;
    const TensorInfo* tensor = nullptr;
  };
  const Location* locate(const std::string& name) const;
  /// The tensor of `name`, its shape checked against [rows, cols] (or [rows] when cols is 1).
  const Location& shaped(const std::string& name, Eigen::Index rows, Eigen::Index cols) const;
  const float* as_float(const Location& where);

  std::vector<std::shared_ptr<const SafetensorsFile>> files_;
  std::map<std::string, Location> by_name_;  ///< every tensor by its full name in the file
  std::vector<std::unique_ptr<std::vector<float>>> converted_;  ///< F16/BF16/unaligned, as float
  std::map<const TensorInfo*, const float*> floats_;            ///< each tensor converted once
  std::map<const TensorInfo*, DType> used_;  ///< every tensor handed out, for dtype_summary()
};

}  // namespace attnlab::models
