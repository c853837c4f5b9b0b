#include "instruments/cell_edit.h"

#include <cstdio>

#include "panels/app_state.h"
#include "panels/panel_matrices.h"
#include "widgets/matrix_editor.h"

namespace attnlab::app {

bool ParseCellEditSpec(const std::string& spec, std::string* source, int* row, int* col,
                       std::string* value) {
  // The cell is the last two [..] before '=': the source may hold brackets ("heads[1].W_q").
  const std::size_t eq = spec.find('=');
  if (eq == std::string::npos || eq < 6 || spec[eq - 1] != ']') return false;
  const std::size_t open2 = spec.rfind('[', eq - 1);
  if (open2 == std::string::npos || open2 < 2 || spec[open2 - 1] != ']') return false;
  const std::size_t open1 = spec.rfind('[', open2 - 1);
  if (open1 == std::string::npos || open1 == 0) return false;
  int r = -1, c = -1;
  char tail = 0;
  if (std::sscanf(spec.c_str() + open1, "[%d][%d%c", &r, &c, &tail) != 3 || tail != ']') return false;
  *source = spec.substr(0, open1);
  *row = r;
  *col = c;
  *value = spec.substr(eq + 1);
  return true;
}

bool CellEdit::Parse(const std::string& spec) {
  return ParseCellEditSpec(spec, &source_, &row_, &col_, &value_);
}

void CellEdit::Attach(AppState& state) {
  state.before_matrix_editor = [this, &state](const MatrixEditorSpec& spec) { Offer(state.document, spec); };
}

void CellEdit::BeforeFrame(AppState& state, bool now) {
  if (applied_) return;
  MatricesPanel::ShowEditor(state, source_);
  now_ = now;
}

void CellEdit::Offer(Document& document, const MatrixEditorSpec& spec) {
  if (!now_ || applied_ || spec.source != source_) return;
  now_ = false;
  applied_ = CommitTypedCell(document, spec, row_, col_, value_);  // as a double-click and typing
  if (!applied_)
    std::fprintf(stderr, "attnlab: --edit-cell refused: %s\n", document.LastEditError().message.c_str());
}

}  // namespace attnlab::app
