#pragma once
/// Matrix types shared by the whole core. Row-major so that `.data()` uploads as a texture as is.
#include <Eigen/Core>

namespace attnlab {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXd;
/// One flag per (query, key) pair, same shape as the scores: true where attention is allowed.
using BoolArray = Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// How tokens are laid out: as rows (Vaswani, PyTorch) or as columns (Prince, Phuong & Hutter).
enum class Layout { rows, columns };

const char* layout_name(Layout layout);

}  // namespace attnlab
