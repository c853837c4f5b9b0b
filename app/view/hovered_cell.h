#pragma once
/// A cell of one stage's matrix, e.g. the one under the mouse (GUI-free). Stages are core's
/// (attnlab/stage.h).
#include "attnlab/stage.h"

namespace attnlab::app {

struct HoveredCell {
  StageId stage = StageId::none;
  int head = -1, row = -1, col = -1;  ///< row/col in the matrix as displayed (current layout)
};

}  // namespace attnlab::app
