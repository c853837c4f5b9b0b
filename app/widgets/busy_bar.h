#pragma once
/// A progress bar for work whose length is not known (opening a model folder): a block sliding
/// along a frame, with a label over it. The caller keeps frames coming while it is drawn.
#include <imgui.h>

namespace attnlab::app {

/// Draws the bar at the cursor, `size.x` <= 0: the rest of the line; `size.y` <= 0: a frame's height.
void BusyBar(const char* label, ImVec2 size = ImVec2(0, 0));

}  // namespace attnlab::app
