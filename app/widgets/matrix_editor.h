#pragma once
/// The editable matrix widget of the Inputs panel: a grid of cells coloured like the Pipeline's
/// heatmaps. Drag a cell sideways to scrub its value (one undo step per drag), double-click to type
/// it, Ctrl+V over the grid (or Paste) to replace the whole matrix from NumPy / torch / CSV text,
/// Copy to take it out as NumPy text or CSV. Head bands (the columns or rows each head takes) are
/// outlined in that head's colour. Every change goes through Document::ApplyEdit(source, ...) with
/// an edit of attnlab/edits.h naming the matrix by `source` (set_matrix_cell, paste_matrix,
/// remove_matrix).
#include <functional>
#include <string>
#include <vector>

#include <imgui.h>

#include "attnlab/colormap.h"
#include "attnlab/matrix.h"
#include "session/document.h"
#include "widgets/control_marks.h"

namespace attnlab::app {

/// Colour of head `head` (view/head_palette.h: colour-blind safe), shared by head bands and their labels.
ImU32 HeadColor(int head, float alpha = 1.0f);

/// What the editors keep between frames: the cell being scrubbed and the one being typed into
/// (one of each at a time, whichever matrix it is in). Owned by whoever draws the editors.
struct MatrixEditorState {
  struct Scrub {
    std::string source;
    int row = -1, col = -1;
    double start = 0;
    bool committed = false;  ///< the first change opened an undo step; later ones extend it
  };
  struct Typing {  ///< the double-click text field
    std::string source;
    int row = -1, col = -1;
    char buf[64] = {};
    bool focus = false;
  };
  struct ResizePaste {  ///< a paste of X or Z with another token count, waiting for "Resize"
    std::string source, text;
    int tokens = 0;
  };
  Scrub scrub;
  Typing typing;
  std::string menu_cell;  ///< the cell right-clicked last, "W_q[0][1]"
  ResizePaste resize;
};

struct MatrixEditorSpec {
  std::string source;             ///< names the matrix in edits and messages: "W_q", "heads[1].b_k"
  const attnlab::Matrix* values = nullptr;  ///< as stored (the scenario's layout); vectors 1xn / nx1
  /// A Remove button omits the matrix (an optional W or b: attnlab::remove_matrix).
  bool removable = false;
  const char* remove_tip = nullptr;
  const std::vector<std::string>* row_labels = nullptr;  ///< token names, or indices when null
  const std::vector<std::string>* col_labels = nullptr;
  int band = 0;                    ///< > 0: head h owns [h*band, (h+1)*band) of the banded axis
  bool band_on_cols = true;        ///< bands are columns (rows layout) or rows (columns layout)
  int selected_band = -1;          ///< the selected head, drawn with a heavier outline
  MatrixEditorState* state = nullptr;  ///< what the editor keeps between frames (required)
  /// When set (the shape of `values`), the cells are coloured by these numbers on a diverging map
  /// centred on 0 instead of by their values, which they still show: the gradient of `tint_of`
  /// (the Sensitivity panel's target) with respect to each cell.
  const attnlab::Matrix* tint = nullptr;
  std::string tint_of;  ///< "output[0][0]"
  /// When set, a right-click on a cell offers "Sweep W_q[0][1]", which calls this with the cell
  /// in the one cell syntax (attnlab/cell_ref.h).
  std::function<void(const std::string& cell)> sweep_cell;
};

/// Draws the editor at the cursor (grid, then Copy / Paste and any refusal message). `marks` is
/// told where the grid is, as "grid:" + spec.source.
void MatrixEditor(Document& document, Colormap colormap, const MatrixEditorSpec& spec,
                  const ControlMarks& marks = {});

/// Applies a typed value to cell (row, col) exactly as the double-click editor does, through
/// attnlab::set_cell (spec.source names the matrix): the text must be one finite number of
/// sensible size, otherwise the edit is refused with a message for spec.source. Returns whether
/// the edit was applied.
bool CommitTypedCell(Document& document, const MatrixEditorSpec& spec, int row, int col,
                     const std::string& text);
/// Replaces the whole matrix from clipboard text (NumPy / repr / torch / CSV); a shape mismatch is
/// refused: "W_k: pasted 3x4, expected 4x4".
bool CommitPastedText(Document& document, const MatrixEditorSpec& spec, const std::string& text);
/// The same paste with as many tokens as the text has (X or Z; attnlab::paste_matrix_resizing_tokens),
/// one undoable edit: what "Resize and paste" does once the user confirmed.
bool CommitResizingPaste(Document& document, const MatrixEditorSpec& spec, const std::string& text);

}  // namespace attnlab::app
