#pragma once
/// `--edit-cell M[r][c]=V`: types V into cell (r, c) of matrix M ("X", "W_q", "heads[1].b_k", ...)
/// through the Inputs panel's own editor, in the frame it is armed for, so that the edit shows in
/// the very frame that draws it: the panel keeps its tab in front until then, as a user would.
#include <string>

#include "attnlab/edits.h"

namespace attnlab::app {

struct AppState;
class Document;
class PanelRegistry;
struct MatrixEditorSpec;

class ScriptedCellEdit {
 public:
  /// Returns false, with `error` set, when `spec` is not M[r][c]=V (attnlab::parse_cell_edit).
  bool Parse(const std::string& spec, std::string* error);
  /// Listens to the Inputs panel's editors (AppState::before_matrix_editor).
  void Attach(AppState& state, PanelRegistry& panels);
  /// Before each frame: keeps the editor on screen while the edit is pending; `now`: type it in
  /// this frame, when the panel draws that editor.
  void BeforeFrame(AppState& state, bool now);
  bool Applied() const { return applied_; }

 private:
  void Offer(Document& document, const MatrixEditorSpec& spec);

  attnlab::CellEdit edit_;
  PanelRegistry* panels_ = nullptr;
  bool now_ = false, applied_ = false;
};

}  // namespace attnlab::app
