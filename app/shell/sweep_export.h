#pragma once
/// A sweep recorded from the window, through the same library as `attnlab-cli export --sweep`
/// (attnlab_export's sweep_frames.h), beside the figure export (heatmap_export.h): every head's
/// weights as an animated GIF in the pictures folder, written on the session's task runner.
#include "attnlab/sweep.h"

namespace attnlab::app {

struct AppState;

/// Starts writing `sweep` (checked against the scenario by the caller) as one GIF per head, in the
/// window's colormap, to PicturesDir()/attnlab-sweep-PARAM-headN_weights.gif; the document's
/// status line tells where, or why it failed.
void RecordSweepGif(AppState& state, const attnlab::Sweep& sweep);
/// A recording is being written.
bool RecordingSweepGif(AppState& state);

}  // namespace attnlab::app
