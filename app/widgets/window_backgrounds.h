#pragma once
/// Panel backgrounds are most of what llvmpipe rasterises: the tiled panels cover the screen, so
/// each frame painted it twice (the clear, then every panel's background), about 6 ms of CPU a
/// frame at 1280 x 800. The framebuffer is cleared to the panels' own colour instead, and a panel
/// that overlaps no other window draws no background; one dragged over another gets it back.
#include <imgui.h>

namespace attnlab::app {

/// Background alpha for the panel window `name` (pass to SetNextWindowBgAlpha before Begin): 0
/// when, as of the last frame, it overlapped no other window, else opaque.
float PanelBackgroundAlpha(const char* name);

/// The colour the framebuffer is cleared to: the theme's window background.
ImVec4 ClearColor();

}  // namespace attnlab::app
