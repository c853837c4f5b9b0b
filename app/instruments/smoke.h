#pragma once
/// A scripted tour for the smoke test: every few frames it selects heads, switches colormaps,
/// layout, lecture mode, heads count and scale, undoes and redoes, and opens every preset, so that
/// every panel draws every kind of scenario for many frames.
#include <cstdint>
#include <string>

#include "panels/app_state.h"
#include "panels/panels.h"

namespace attnlab::app {

struct SmokeReport {
  int actions = 0;
  int versions = 0;  ///< scenario changes seen
  std::uint64_t last_version = 0;
  bool ok = true;
  std::string failure;
};

/// Called once per frame after the panels were drawn.
void SmokeStep(AppState& state, PanelRegistry& panels, int frame, SmokeReport* report);

}  // namespace attnlab::app
