#pragma once
/// Before and after: the trace kept as a reference ("Keep as reference") against the current one,
/// stage by stage, as the Compare panel shows them: both matrices, their difference and where it
/// is largest (attnlab/trace_diff.h, as `attnlab-cli compare` reports it). GUI-free.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/scenario.h"
#include "attnlab/trace.h"
#include "attnlab/trace_diff.h"
#include "view/hovered_cell.h"

namespace attnlab::app {

/// A snapshot of the document's trace and the scenario it came from.
struct TraceReference {
  std::shared_ptr<const attnlab::Scenario> scenario;
  attnlab::Trace trace;
  std::uint64_t version = 0;  ///< the document version it was taken at
};

/// One stage of the comparison, every matrix as stored (the trace's layout).
struct StageComparison {
  StageId stage = StageId::none;  ///< None for Z_pos (no hover)
  attnlab::StageDiff diff;    ///< name, head (-1: not per head), max |current - reference|, its cell
  attnlab::Matrix current, reference;
  /// current - reference; -infinity where the cell is masked in both (drawn hatched); NaN where
  /// one of the two is masked and the other not (the mask changed there).
  attnlab::Matrix difference;
  bool changed() const { return diff.max_abs_diff != 0.0; }
};

/// The stages of head `head` (0-based) and those not per head, in computation order (X_pos, the
/// head's stages, concat, output). Throws ScenarioError naming the first difference of shape
/// ("heads[0].Q: 3x4 in A, 3x2 in B": A is the current trace, B the reference).
std::vector<StageComparison> CompareHead(const attnlab::Trace& current, const attnlab::Trace& reference, int head);

/// The reference's value of the cell the mouse is over (`stage` of head `head`, row and column as
/// stored); false when the reference has no such stage or cell.
bool ReferenceValue(const attnlab::Trace& reference, StageId stage, int head, int row, int col, double* value);

}  // namespace attnlab::app
