#pragma once
/// The matrices of the pipeline, by name: what a heatmap shows, what the mouse is over (GUI-free).

namespace attnlab::app {

/// Stages of the pipeline, in computation order; names a matrix for hover and layout dumps.
enum class Stage { None, XPos, Q, K, V, QRot, KRot, Scores, Scaled, Bias, Masked, Weights, HeadOutput, Concat, Wo, Output };
const char* StageName(Stage stage);  ///< "Q", "scores", "weights", ... (stable: used in dumps)

/// A cell of one stage's matrix, e.g. the one under the mouse.
struct HoveredCell {
  Stage stage = Stage::None;
  int head = -1, row = -1, col = -1;  ///< row/col in the matrix as displayed (current layout)
};

}  // namespace attnlab::app
