#pragma once
/// `--edit-cell M[r][c]=V`: types V into cell (r, c) of matrix M ("X", "W_q", "heads[1].b_k", ...)
/// through the Inputs panel's own editor, in the frame it is armed for, so that the edit shows in
/// the very frame that draws it: the panel keeps its tab in front until then, as a user would.
#include <string>

namespace attnlab::app {

class AppState;
class Document;
struct MatrixEditorSpec;

/// "W_q[0][1]=0.5" -> source "W_q", row 0, col 1, value text "0.5".
bool ParseCellEditSpec(const std::string& spec, std::string* source, int* row, int* col,
                       std::string* value);

class CellEdit {
 public:
  /// Returns false when `spec` is not M[r][c]=V.
  bool Parse(const std::string& spec);
  /// Listens to the Inputs panel's editors (AppState::before_matrix_editor).
  void Attach(AppState& state);
  /// Before each frame: keeps the editor on screen while the edit is pending; `now`: type it in
  /// this frame, when the panel draws that editor.
  void BeforeFrame(AppState& state, bool now);
  bool Applied() const { return applied_; }

 private:
  void Offer(Document& document, const MatrixEditorSpec& spec);

  std::string source_, value_;
  int row_ = -1, col_ = -1;
  bool now_ = false, applied_ = false;
};

}  // namespace attnlab::app
