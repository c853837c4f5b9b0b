#include "smoke.h"

#include <cmath>

#include "attnlab/model.h"
#include "commands.h"

namespace attnlab::app {
namespace {

constexpr int kFramesPerAction = 6;

// Rows of the weights must still sum to 1 (or 0 for a query that may attend nothing).
bool WeightsAreDistributions(AppState& state, std::string* why) {
  const attnlab::Trace& t = state.GetTrace();
  const bool rows = t.layout == attnlab::Layout::rows;
  for (const attnlab::HeadTrace& h : t.heads) {
    const attnlab::Matrix w = rows ? h.weights : attnlab::Matrix(h.weights.transpose());
    for (int r = 0; r < w.rows(); ++r) {
      double sum = 0;  // a plain loop: Eigen's vectorised sum trips GCC 12's -Wmaybe-uninitialized
      for (int c = 0; c < w.cols(); ++c) sum += w(r, c);
      if (std::fabs(sum - 1.0) > 1e-9 && std::fabs(sum) > 1e-12) {
        *why = "weights row " + std::to_string(r) + " sums to " + std::to_string(sum);
        return false;
      }
    }
  }
  return true;
}

void Act(AppState& state, int step) {
  const int heads = state.HeadCount();
  switch (step % 10) {
    case 0: state.ui.selected_head = (state.ui.selected_head + 1) % heads; break;
    case 1: state.ui.colormap = static_cast<Colormap>((static_cast<int>(state.ui.colormap) + 1) % 3); break;
    case 2: {
      const attnlab::Layout other = state.GetScenario().layout == attnlab::Layout::rows
                                        ? attnlab::Layout::columns : attnlab::Layout::rows;
      state.ApplyEdit("layout", [other](attnlab::Scenario& s) { s = attnlab::with_layout(s, other); });
      break;
    }
    case 3: ToggleLectureMode(state); break;
    case 4:
      if (!state.GetScenario().per_head())  // 3 is refused for most widths: exercises the refusal
        state.ApplyEdit("heads", [step](attnlab::Scenario& s) { s.num_heads = 1 + (step / 10) % 4; });
      break;
    case 5: state.Undo(); break;
    case 6: state.Redo(); break;
    case 7:
      state.ApplyEdit("scale", [](attnlab::Scenario& s) {
        s.scale.kind = attnlab::Scale::Kind::value;
        s.scale.value = 0.5;
      });
      break;
    case 8: state.Undo(); break;
    case 9:
      if (!state.presets.empty())
        OpenPreset(state, state.presets[static_cast<std::size_t>(step / 10) % state.presets.size()]);
      break;
  }
}

}  // namespace

void SmokeStep(AppState& state, int frame, SmokeReport* report) {
  if (state.Version() != report->last_version) {
    ++report->versions;
    report->last_version = state.Version();
  }
  if (frame % kFramesPerAction != kFramesPerAction - 1) return;
  Act(state, report->actions++);
  std::string why;
  if (report->ok && !WeightsAreDistributions(state, &why)) {
    report->ok = false;
    report->failure = why;
  }
}

}  // namespace attnlab::app
