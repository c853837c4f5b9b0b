#pragma once
/// The preset library (assets/presets/*.json) and the built-in example the window opens with.
#include <string>
#include <vector>

#include "attnlab/scenario.h"

namespace attnlab::app {

struct PresetInfo {
  std::string path;   ///< absolute path of the .json file
  std::string stem;   ///< file name without extension, e.g. "vaswani-q2-is-attends"
  std::string title;  ///< the scenario's title (the stem when the file has none or is broken)
};

/// Directory holding the presets, found from the executable's own location (/proc/self/exe), so an
/// install is relocatable and no build path is compiled in: <exe dir>/presets, <exe dir>/assets/
/// presets, then <exe dir>/../share/attnlab/presets (installed, or the build tree's link to the
/// source tree's presets). Empty when none exists.
std::string FindPresetDir();
/// Every preset in `dir`, sorted by file name. Broken files are listed with their stem as title.
std::vector<PresetInfo> ListPresets(const std::string& dir);

struct LoadedScenario {
  attnlab::Scenario scenario;
  std::string path;  ///< file it came from; empty for the compiled-in fallback
  std::string name;  ///< what the title bar shows
  bool is_preset = false;  ///< presets are never overwritten: Save writes a copy instead
};
/// The example shown at start: the preferred preset when present, else a compiled-in scenario.
LoadedScenario BuiltInExample(const std::vector<PresetInfo>& presets);

/// Reads and validates a scenario file; throws attnlab::ScenarioError with a one-line message.
/// A relative view.model.folder is resolved from the file's folder (ResolveModelFolder).
attnlab::Scenario LoadAndValidate(const std::string& path);
/// A layer document's relative model folder (view.model.folder, as the shipped lesson of the
/// induction circuit names "../models/induction-circuit") made absolute from the folder of `path`,
/// the file it was read from, links followed, when that folder is there; else it stays (read from
/// the working folder, as a layer `attnlab-cli model . --out` wrote).
void ResolveModelFolder(attnlab::Scenario& s, const std::string& path);

}  // namespace attnlab::app
