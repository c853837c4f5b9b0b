#pragma once
/// The presenter's steps that show the document's model rather than the document (lesson.h,
/// issue 39): a step of another layer (`"layer": L`: that layer of the model on the document's ids,
/// as Model > Open layer makes it, computed off the UI thread), the head finder's grid of one score
/// and activation patching's grid. Each runs on the session's one TaskRunner (instrument_runs.h,
/// patching_run.h) for the document's model, ids and the step's fields, as `attnlab-cli model
/// --layer`, `heads --text T --random-repeat 10 --seed 0` and `patch` compute them.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/lesson.h"
#include "attnlab/scenario.h"
#include "attnlab/trace.h"
#include "panels/app_state.h"
#include "session/instrument_runs.h"
#include "session/patching_run.h"

namespace attnlab::app {

/// One layer of the document's model as a scenario and its trace.
struct LessonLayer {
  std::shared_ptr<const attnlab::Scenario> scenario;
  std::shared_ptr<const attnlab::Trace> trace;
};

struct LessonLayersAsk {
  std::shared_ptr<const models::HfModel> model;
  std::vector<int> ids;
  std::string text;
  std::vector<int> layers;  ///< sorted, once each
  bool operator==(const LessonLayersAsk& o) const {
    return model == o.model && ids == o.ids && text == o.text && layers == o.layers;
  }
};
using LessonLayers = std::map<int, LessonLayer>;

/// The words and the figure of a finder or patching step.
struct InstrumentWords {
  std::string title, formula, explanation, prompt;
};

class PresenterInstruments {
 public:
  PresenterInstruments();
  /// Asks for what `lesson` needs of the document's model (nothing when the document is not a layer
  /// of the open model: Missing() says so).
  void Update(AppState& state, const attnlab::lesson::Lesson& lesson);
  /// Why the lesson's model steps cannot be drawn ("Open the model ..."), or "".
  const std::string& Missing() const { return missing_; }
  /// Layer `layer` of the document's model, or null while it is computed (or missing).
  const LessonLayer* Layer(int layer) const;
  /// A new number whenever a layer, the scores or the patching change (the presenter's caches).
  std::uint64_t Serial() const;
  /// A finder or patching step's words (the figure's numbers: null while computing).
  InstrumentWords Words(AppState& state, const attnlab::lesson::Step& step) const;
  /// Draws a finder or patching step's grid in the room left, its numbers "?" when `hidden`.
  void Draw(AppState& state, const attnlab::lesson::Step& step, bool hidden);

 private:
  const Eigen::MatrixXd* Values(const attnlab::lesson::Step& step) const;

  // Kinds of their own: the runner would cancel the Head finder's and Patching panel's, or they these.
  LatestRun<LessonLayersAsk, LessonLayers> layers_;
  LatestRun<HeadFinderAsk, HeadFinderResult> finder_;
  PatchingRun patching_{"lesson-patching"};
  bool patching_init_ = false;
  std::uint64_t patched_fields_serial_ = ~std::uint64_t{0};
  PatchingFields asked_patch_;
  std::string missing_;
  attnlab::Matrix shown_;  ///< the drawn step's grid (the heatmap's row-major values)
  std::vector<std::string> layer_labels_, head_labels_;
};

}  // namespace attnlab::app
