#pragma once
/// The window's UI scale (GUI-free): the user's zoom, or in lecture mode (and while presenting,
/// which is lecturing) the lecture scale, which
/// by default fits the window's height so that a 1280x800 projector and a 4K screen both show a
/// readable, complete window.
namespace attnlab::app {

struct UiState;

/// Zoom steps of Ctrl+= / Ctrl+- / Ctrl+wheel.
inline constexpr float kZoomSteps[] = {0.75f, 0.9f, 1.0f, 1.1f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f};

/// The lecture scale that fits a window `height` pixels tall: about 36 lines of text, in quarter
/// steps from 1.25 to 2.5 (1.5 at 800, 2 at 1080, 2.5 at 1440).
float FitLectureScale(float height);

/// The scale the window draws at now (`height`: the window's height in screen coordinates).
float UiScale(const UiState& ui, float height);

/// The zoom step after `current` in `direction` (+1 larger, -1 smaller), within kZoomSteps.
float StepZoom(float current, int direction);

/// Ctrl+= / Ctrl+- / Ctrl+wheel (`direction` +1 or -1) and Ctrl+0 (`direction` 0): the zoom out of
/// lecture mode, the lecture scale in it or while presenting (0 there means: fit the window again).
void Zoom(UiState& ui, float height, int direction);

}  // namespace attnlab::app
