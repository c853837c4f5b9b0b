#include "shell/sweep_export.h"

#include <cctype>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/export/sweep_frames.h"
#include "attnlab/scenario_io.h"
#include "panels/app_state.h"
#include "session/session.h"
#include "session/user_dirs.h"

namespace attnlab::app {
namespace {

constexpr const char* kTask = "sweep gif";

// "W_q[0][1]" -> "W_q-0-1": a file name's part.
std::string FileSafe(const std::string& text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ? c : '-';
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

}  // namespace

bool RecordingSweepGif(AppState& state) { return state.session && state.session->Tasks().Busy(kTask); }

void RecordSweepGif(AppState& state, const attnlab::Sweep& sweep) {
  if (!state.session) return;
  namespace ex = attnlab::exporter;
  const std::shared_ptr<const attnlab::Scenario> scenario = state.document.Snapshot();
  const ex::Colormaps maps{state.ui.colormap, attnlab::DivergingFor(state.ui.colormap)};
  const std::string prefix = PicturesDir() + "/attnlab-sweep-" + FileSafe(sweep.param.text()) + "-";
  state.session->Tasks().Start<std::string>(
      kTask,
      [scenario, sweep, maps, prefix] {
        std::vector<ex::SweepView> views;
        for (int h = 0; h < scenario->head_count(); ++h) views.push_back({attnlab::StageId::weights, h});
        const auto plans = ex::plan_sweep(*scenario, sweep, views, maps, ex::FigureStyle{});
        const std::vector<std::string> gifs = ex::sweep_gifs(*scenario, sweep, views, plans, maps, 1);
        std::filesystem::create_directories(std::filesystem::path(prefix).parent_path());
        for (std::size_t v = 0; v < gifs.size(); ++v)
          attnlab::write_file_atomically(prefix + ex::file_stem(views[v].stage, views[v].head) + ".gif", gifs[v]);
        return "recorded " + std::to_string(gifs.size()) + " GIF(s) of " + std::to_string(sweep.frames) + " frames: " + prefix + "*.gif";
      },
      [&state](TaskResult<std::string> result) {
        try {
          state.document.status = result.Take();
        } catch (const std::exception& e) {
          state.document.status = std::string("recording the sweep failed: ") + e.what();
        }
      });
}

}  // namespace attnlab::app
