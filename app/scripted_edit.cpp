#include "scripted_edit.h"

#include <cstdlib>

#include "app_state.h"
#include "attnlab/model.h"

namespace attnlab::app {

bool ApplyScriptedEdit(AppState& state, const std::string& spec, std::string* error) {
  const std::size_t eq = spec.find('=');
  const std::string name = spec.substr(0, eq);
  const std::string value = eq == std::string::npos ? std::string() : spec.substr(eq + 1);
  bool applied = false;
  if (name == "layout") {
    const attnlab::Layout other = state.GetScenario().layout == attnlab::Layout::rows
                                      ? attnlab::Layout::columns : attnlab::Layout::rows;
    applied = state.ApplyEdit("layout", [other](attnlab::Scenario& s) { s = attnlab::with_layout(s, other); });
  } else if (name == "heads" && !value.empty()) {
    const int heads = std::atoi(value.c_str());
    applied = state.ApplyEdit("heads", [heads](attnlab::Scenario& s) { s.num_heads = heads; });
  } else if (name == "scale" && !value.empty()) {
    const double scale = std::atof(value.c_str());
    applied = state.ApplyEdit("scale", [scale](attnlab::Scenario& s) {
      s.scale.kind = attnlab::Scale::Kind::value;
      s.scale.value = scale;
    });
  } else {
    *error = "--test-edit: unknown edit '" + spec + "' (layout, heads=N, scale=S)";
    return false;
  }
  if (!applied) *error = "--test-edit " + spec + " refused: " + state.LastEditError().message;
  return applied;
}

}  // namespace attnlab::app
