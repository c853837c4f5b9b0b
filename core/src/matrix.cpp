#include "attnlab/matrix.h"

namespace attnlab {

const char* layout_name(Layout layout) { return layout == Layout::rows ? "rows" : "columns"; }

}  // namespace attnlab
