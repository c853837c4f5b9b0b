#pragma once
/// `--model-text TEXT [--model-layer L.H [--model-heads-off H,...]]`: what a teacher does with a
/// model, scripted for screenshots (README's pictures, docs/images): type TEXT, click the map of
/// layer L head H (from 0, as the window writes them) and switch heads off in the Heads panel,
/// each step once the one before has arrived. A screenshot waits until the script is done.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "panels/app_state.h"

namespace attnlab::app {

class ModelScript {
 public:
  /// Parses the options; false with `error` set when LAYER.HEAD or a head list is malformed.
  bool Parse(const std::string& text, const std::string& layer, const std::string& heads_off, std::string* error);
  /// An encoder's second text, typed with the text (`--model-pair`).
  void SetPair(const std::string& pair) { pair_ = pair; }
  bool Active() const { return active_; }
  /// Takes the next step whose turn it is; call before each frame.
  void BeforeFrame(AppState& state);
  /// Every step taken and its result arrived.
  bool Done(const AppState& state) const;

 private:
  bool active_ = false, text_set_ = false, layer_asked_ = false, heads_set_ = false;
  std::string text_, pair_;
  int layer_ = -1, head_ = 0;  ///< 0-based
  std::vector<int> heads_off_;
};

/// The open model as the harness's layout log and dumps write it: {"name", "folder", "loading",
/// "run_stale", "text_error", "ids", "layers", "heads", "document_layer", "next": {"state", "stale",
/// "version", "document_version", "model": [[id, p] x 5], "edited": [...]}}; null without a model lab.
nlohmann::json ModelJson(const AppState& state);

}  // namespace attnlab::app
