#pragma once
/// One version of the document as computations see it: the Scenario, immutable once committed,
/// and its resolved Model. Shared, never copied, by the undo history, the trace worker, the
/// autosave and the panels that explain the trace (a 2048 x 512 x 8 scenario is 16 MB; its model
/// shares the scenario's matrices in the rows layout and adds the 4 MB mask).
#include <cstdint>
#include <memory>

#include "attnlab/model.h"
#include "attnlab/scenario.h"

namespace attnlab::app {

struct ScenarioVersion {
  std::uint64_t version = 0;
  std::shared_ptr<const attnlab::Scenario> scenario;
  std::shared_ptr<const attnlab::Model> model;  ///< null: not resolved yet
};

}  // namespace attnlab::app
