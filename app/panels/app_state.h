#pragma once
/// What every panel draws from: the document (session/document.h), the window's view state, and
/// the window's shared drawing context. Owned by the shell; one per window.
#include <algorithm>
#include <functional>
#include <vector>

#include "attnlab/sweep.h"
#include "session/document.h"
#include "session/first_run_hint.h"
#include "session/presets.h"
#include "session/sweep.h"
#include "view/sensitivity_map.h"
#include "view/hovered_cell.h"
#include "view/trace_compare.h"
#include "view/ui_state.h"
#include "widgets/control_marks.h"

namespace attnlab::app {

struct HeatmapContext;
class ModelLab;
class PanelRequests;
class Session;
struct MatrixEditorSpec;

/// Recording a sweep as animated GIFs: done by the shell, beside the figure export
/// (shell/sweep_export.h); unset (no shell), the Sweep panel's Record button is disabled.
struct SweepRecorder {
  std::function<void(const attnlab::Sweep&)> record;  ///< starts writing the sweep's GIFs
  std::function<bool()> busy;                         ///< a recording is being written
};

struct AppState {
  AppState() {
    // A new version may have fewer heads: the selection follows within the same frame.
    document.SetOnNewVersion([this] {
      ui.selected_head = std::clamp(ui.selected_head, 0, std::max(0, document.HeadCount() - 1));
      if (document.OpenCount() != open_count_) ForgetDocumentViews();
    });
  }
  AppState(const AppState&) = delete;
  AppState& operator=(const AppState&) = delete;

  /// Selects head `head` (0-based) if the scenario has it (keys 0 to 9, [ ], the head buttons).
  void SelectHead(int head) {
    if (head >= 0 && head < document.HeadCount()) ui.selected_head = head;
  }

  /// Snapshots the current trace as the Compare panel's reference (nothing while it is stale).
  void KeepReference() {
    const attnlab::Trace& trace = document.GetTrace();
    if (document.TraceStale() || trace.heads.empty()) return;
    reference = std::make_shared<const TraceReference>(TraceReference{document.Snapshot(), trace, document.Version()});
  }

  /// Another file was opened: the views that named its cells start afresh (the sweep drops
  /// itself: SweepPlayer::Tick), and its lesson from its first step.
  void ForgetDocumentViews() {
    open_count_ = document.OpenCount();
    ui.presenter_step = 0;
    ui.presenter_revealed = false;
    ui.pinned = {};
    ui.sensitivity_target = UiState{}.sensitivity_target;
    ui.sensitivity_on_inputs = false;
    SelectHead(RecordedHead());  // a model's layer: the head whose map was clicked, saved or restored
  }

  /// view.model.head (its form checked by the core), or -1.
  int RecordedHead() const {
    const nlohmann::json& view = document.GetScenario().view;
    const auto model = view.find("model");
    if (model == view.end() || !model->is_object()) return -1;
    const auto head = model->find("head");
    return head != model->end() && head->is_number_integer() ? head->get<int>() : -1;
  }

  Document document;
  UiState ui;
  /// What the Compare panel compares the current trace with ("Keep as reference"); null: nothing.
  std::shared_ptr<const TraceReference> reference;
  /// The gradient of ui.sensitivity_target, computed once per version for the Sensitivity panel
  /// and the Inputs editors coloured by it.
  SensitivityCache sensitivity;
  /// The sweep playing (Sweep panel), ticked by the shell every frame whichever tab is in front.
  SweepPlayer sweep;
  SweepRecorder sweep_recorder;
  /// Next token's Locate…: the folder browser of File > Open model…, its choice taken as where the
  /// document's model folder is now (ModelLab::Locate). Set by the shell; unset, no button.
  std::function<void()> locate_model;
  /// The Lines panel's right-click menu (export its figure): set by the shell, which writes
  /// figures; unset, no menu.
  std::function<void()> lines_context_menu;
  std::vector<PresetInfo> presets;
  /// "New here? Press F1 ...": loaded by the shell from the user's config dir (never in scripted
  /// runs), dismissed by its x or by opening the guide.
  FirstRunHint first_run_hint;
  HeatmapContext* heatmaps = nullptr;  ///< owned by the app (needs the GL context)
  Session* session = nullptr;          ///< owned by the app: open, save, guard, autosave, recovery
  ModelLab* models = nullptr;          ///< owned by the app: the open model, its text and runs
  /// The panel registry, as panels see it: typed requests to the panel that owns some state
  /// (panel_requests.h). Owned by the app.
  PanelRequests* requests = nullptr;
  /// When set, called with each matrix editor's spec just before the Inputs panel draws it: an
  /// edit committed through that spec shows in the editor and in every panel drawn after it.
  std::function<void(const MatrixEditorSpec&)> before_matrix_editor;
  /// When set, told where named controls (buttons, fields, the editors' grids) were drawn.
  ControlMarks on_control;

 private:
  int open_count_ = 0;  ///< document.OpenCount() the views were set up for
};

}  // namespace attnlab::app
