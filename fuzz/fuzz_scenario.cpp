// libFuzzer target: the scenario loader and validator on arbitrary bytes, and compute() and one
// sensitivity (the backward pass) on the small scenarios they accept. Anything but a one-line
// ScenarioError is a bug: another exception type escapes (libFuzzer reports it), and broken
// invariants trap.
//
//   scripts/fuzz.sh [SECONDS]
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "attnlab/attention.h"
#include "attnlab/model.h"
#include "attnlab/scenario_io.h"
#include "attnlab/sensitivity.h"

namespace {

// compute() only on small traces, so the fuzzer spends its time on parsing and validation.
constexpr double kMaxComputeCells = 1 << 14;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_message(const attnlab::ScenarioError& e) {
  const std::string what = e.what();
  check(!what.empty() && what.find('\n') == std::string::npos && what.find(": ") != std::string::npos);
}

void check_trace(const attnlab::Model& m, const attnlab::Trace& t) {
  // Accepted inputs are bounded so that nothing overflows: every stage finite, -inf only where masked.
  for (std::size_t i = 0; i < t.heads.size(); ++i) {
    const attnlab::HeadTrace& h = t.heads[i];
    for (const attnlab::Matrix* x : {&h.Q, &h.K, &h.V, &h.scores, &h.weights, &h.output})
      check(x->allFinite());
    const attnlab::Matrix masked = t.masked(i);
    check((masked.array().isFinite() || masked.array() == -INFINITY).all());
    check((h.weights.array() >= 0).all() && (h.weights.array() <= 1).all());
  }
  check(t.concat.allFinite() && t.output.allFinite());
  // Weights along the keys sum to 1, or are all 0 for a query that may attend nothing.
  if (t.layout == attnlab::Layout::rows && !t.heads.empty()) {
    const attnlab::Matrix& w = t.heads.front().weights;
    for (Eigen::Index i = 0; i < w.rows(); ++i) {
      const double sum = w.row(i).sum();
      check(m.allowed.row(i).any() ? std::abs(sum - 1) < 1e-9 : sum == 0);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  attnlab::Scenario scenario;
  attnlab::Model model;
  try {
    scenario = attnlab::scenario_from_string(text);
    model = attnlab::resolve(scenario);
  } catch (const attnlab::ScenarioError& e) {
    check_message(e);
    return 0;
  }
  // A scenario that was accepted is saved and reloaded as the same, valid scenario.
  try {
    const attnlab::Scenario again = attnlab::scenario_from_string(attnlab::scenario_to_json(scenario).dump());
    check(again.X == scenario.X && again.layout == scenario.layout && again.head_count() == scenario.head_count());
    attnlab::validate(again);
  } catch (const attnlab::ScenarioError&) {
    check(false);
  }
  const double cells = double(model.X->rows()) * double(model.keys().rows()) * double(model.num_heads) +
                       double(model.X->size()) + double(model.keys().size());
  if (cells > kMaxComputeCells) return 0;
  check_trace(model, attnlab::compute(model, attnlab::Layout::rows));
  const attnlab::Trace columns = attnlab::compute(model, attnlab::Layout::columns);
  // The gradient of the first output cell: every gradient shaped like its matrix, the value the
  // trace's (finiteness is not checked: near the 1e300 bounds a gradient may overflow).
  // Sensitivity refuses QK-norm in one line (not differentiated yet): nothing more to check there.
  if (scenario.qk_norm) return 0;
  const attnlab::Sensitivity g = attnlab::sensitivity(scenario, attnlab::parse_cell_ref("output[0][0]"));
  check(g.X.rows() == scenario.X.rows() && g.X.cols() == scenario.X.cols() && g.value == columns.output(0, 0));
  check(g.Z.has_value() == scenario.Z.has_value() && g.W_o.has_value() == scenario.W_o.has_value());
  check(g.heads.size() == scenario.heads.size() && g.kv_heads.size() == scenario.kv_heads.size());
  if (scenario.full.W_q) check(g.full.W_q && g.full.W_q->rows() == scenario.full.W_q->rows());
  return 0;
}
