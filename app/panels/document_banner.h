#pragma once
/// One line at the top of the panels that draw the document (Scenario, Mask, Heads) while a model
/// is open: which document they show. A layer of the open model is named ("gpt2 · layer 3"); any
/// other document (a preset, a file, a layer of an earlier text) is said not to be the model's,
/// with a button that opens the model's layer last pointed at in the Model grid, so a class never
/// reads the preset's heads beside the model's grid as the model's.
#include "panels/app_state.h"

namespace attnlab::app {

/// Draws the line (nothing without an open model). `panel` names it for the layout dump
/// ("document banner Heads", "open model layer Heads").
void DocumentBanner(AppState& state, const char* panel);

/// The height DocumentBanner() takes in this frame (0 when it draws nothing), for a panel that
/// asks the arrangement for the room it needs.
float DocumentBannerHeight(const AppState& state);

/// Locate… (state.locate_model: the folder chooser, its choice the document's model folder when
/// its weights are the layer's), beside the line saying the layer's model folder is not there or
/// holds other weights (Next token, Model). `id` names it for the layout dump.
void LocateModelButton(AppState& state, const char* id);

}  // namespace attnlab::app
