// libFuzzer target: the one cell syntax (cell_ref.h) and its three readers: sweeps (sweep.h), cell
// edits (edits.h) and the trace-side reference of a sensitivity (`--of`, sensitivity.h's
// trace_cell). The first line of the input is the text; the rest, when present, the value a set
// writes (a number as text, or 8 raw bytes: NaN, infinities and subnormals included).
//
// Oracles, on three small scenarios that between them have every kind of number (rows and columns,
// self and cross, full and per-head and grouped weights, biases, W_o, b_o, ALiBi, RoPE):
// - every parser throws nothing but a ScenarioError with a non-empty `WHERE: ...` message;
// - parse_cell_ref(r.text()) == r, and r.text() is the input with each index written in decimal
//   without leading zeros (the only spelling parse_cell_ref reads loosely: `X[01][-0]`);
// - scenario_value reads a finite number or throws; the value read can be written back; a set is
//   accepted exactly when the value is in the documented range of the field, a refused set leaves
//   the scenario unchanged (scenario_to_json), an accepted one reads back bit for bit and the
//   scenario still resolves;
// - sweeps: 2 to 1000 frames, finite ends, frame 0 == FROM and the last == TO exactly, every frame
//   within [min, max] and monotone; a sweep check_sweep accepts sets every frame it is asked for;
// - cell edits name a cell parse_cell_ref reads the same, cell_edit_of rebuilds them, set_cell
//   writes parse_cell_value's number or refuses leaving the scenario unchanged;
// - trace_cell accepts exactly the cells of the stored (layout's own) stage matrix, and the cell it
//   resolves in the rows convention holds the same number.
//
//   scripts/fuzz.sh [SECONDS]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attnlab/attention.h"
#include "attnlab/cell_ref.h"
#include "attnlab/edits.h"
#include "attnlab/limits.h"
#include "attnlab/model.h"
#include "attnlab/scenario_io.h"
#include "attnlab/sensitivity.h"
#include "attnlab/sweep.h"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// The messages quote the text as given, and what() is a C string: a NUL byte in the text cuts the
// message short. No caller can pass one (argv and ImGui's text fields are C strings).
bool input_has_nul = false;

void check_message(const attnlab::ScenarioError& e) {
  const std::string what = e.what();
  check(!what.empty() && (input_has_nul || what.find(": ") != std::string::npos));
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Rows layout, self-attention, full matrices split into 2 heads, every bias, W_o and b_o, default
// ALiBi slopes, causal mask.
const char* const kRowsFull = R"({"format": "attnlab/1", "layout": "rows",
  "X": [[1, 0, 0.5, 1], [0, 1, 0, 1], [1, 1, 0, -0.5]], "num_heads": 2,
  "W_q": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
  "W_k": [[0.5, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 2]],
  "W_v": [[1, 2, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 3, 1]],
  "b_q": [0.1, 0.2, 0.3, 0.4], "b_k": [0, 0, 1, 0], "b_v": [1, 0, 0, -1],
  "W_o": [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], "b_o": [0.5, -0.5, 0],
  "alibi": true, "mask": "causal"})";

// Columns layout, cross-attention, per-head weights with biases, W_o, b_o, explicit ALiBi slopes.
const char* const kColumnsCross = R"({"format": "attnlab/1", "layout": "columns",
  "X": [[1, 0, 1], [0, 1, 1], [0.5, 0, 0], [1, 1, -0.5]], "Z": [[1, 2], [0, -1]],
  "heads": [
    {"W_q": [[1, 0, 0, 0], [0, 1, 0, 0]], "W_k": [[1, 0], [0, 1]], "W_v": [[1, 1]],
     "b_q": [0.5, 0], "b_k": [0, 1], "b_v": [2]},
    {"W_q": [[0, 0, 1, 0], [0, 0, 0, 1]], "W_k": [[0, 1], [1, 0]], "W_v": [[2, -1]],
     "b_q": [0, 0], "b_k": [1, 1], "b_v": [0]}],
  "W_o": [[1, 0], [0, 1], [1, 1]], "b_o": [1, 2, 3], "alibi": [0.5, 0.25]})";

// Rows layout, per-head query heads sharing two key/value heads (grouped), RoPE, a fixed scale.
const char* const kRowsGrouped = R"({"format": "attnlab/1", "layout": "rows",
  "X": [[1, 0, 0.5, 1], [0, 1, 0, 1], [1, 1, 0, -0.5]],
  "heads": [{"W_q": [[1, 0], [0, 1], [0, 0], [0, 0]]}, {"W_q": [[0, 0], [0, 0], [1, 0], [0, 1]]},
            {"W_q": [[1, 1], [0, 1], [0, 0], [1, 0]]}, {"W_q": [[0, 1], [1, 0], [0, 0], [0, 2]]}],
  "kv_heads": [
    {"W_k": [[1, 0], [0, 1], [0, 0], [0, 0]], "W_v": [[1, 0], [0, 1], [1, 0], [0, 1]], "b_k": [1, 0], "b_v": [0, 1]},
    {"W_k": [[0, 0], [0, 0], [1, 0], [0, 1]], "W_v": [[2, 0], [0, 2], [0, 0], [1, 1]], "b_k": [0, 0], "b_v": [1, 1]}],
  "rope": {"base": 100}, "scale": 0.5})";

struct Fixed {
  attnlab::Scenario scenario;
  std::string json;  // scenario_to_json(scenario).dump(): what an unchanged scenario still dumps to
  attnlab::Model model;
  attnlab::Trace own, rows;  // traces in the scenario's layout and in the rows convention
};

const std::vector<Fixed>& fixed_scenarios() {
  static const std::vector<Fixed> all = [] {
    std::vector<Fixed> out;
    for (const char* text : {kRowsFull, kColumnsCross, kRowsGrouped}) {
      Fixed f;
      f.scenario =
          attnlab::scenario_from_string(text);  // a ScenarioError here is a bug in this file
      f.json = attnlab::scenario_to_json(f.scenario).dump();
      f.model = attnlab::resolve(f.scenario);
      f.own = attnlab::compute(f.model, f.scenario.layout);
      f.rows = attnlab::compute(f.model, attnlab::Layout::rows);
      out.push_back(std::move(f));
    }
    return out;
  }();
  return all;
}

// The input with every bracketed integer rewritten as std::to_string writes it: what text() of
// the reference parse_cell_ref read should give back.
std::string canonical_indices(const std::string& text) {
  std::string out;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t close = text[pos] == '[' ? text.find(']', pos) : std::string::npos;
    if (close == std::string::npos) {
      out += text[pos++];
      continue;
    }
    out += "[" + std::to_string(std::strtol(text.c_str() + pos + 1, nullptr, 10)) + "]";
    pos = close + 1;
  }
  return out;
}

// The range set_scenario_value documents for the number `ref` names.
bool in_documented_range(const attnlab::CellRef& ref, double v) {
  if (ref.name == "scale") return v > 0 && v <= attnlab::limits::max_scale;
  if (ref.name == "rope.base") return v > 1 && v <= attnlab::limits::max_rope_base;
  if (ref.name == "alibi") return v >= 0 && v <= attnlab::max_cell_magnitude;
  return std::isfinite(v) && std::fabs(v) <= attnlab::max_cell_magnitude;
}

void check_set(const Fixed& f, const attnlab::CellRef& ref, double value) {
  attnlab::Scenario s = f.scenario;
  try {
    attnlab::set_scenario_value(s, ref, value);
  } catch (const attnlab::ScenarioError& e) {
    check_message(e);
    check(!in_documented_range(ref, value));
    check(attnlab::scenario_to_json(s).dump() == f.json);
    return;
  }
  check(in_documented_range(ref, value));
  check(same_bits(attnlab::scenario_value(s, ref), value));
  try {
    attnlab::validate(s);
  } catch (const attnlab::ScenarioError&) {
    check(false);
  }
}

void check_scenario_number(const Fixed& f, const attnlab::CellRef& ref, double value) {
  double read = 0;
  try {
    read = attnlab::scenario_value(f.scenario, ref);
  } catch (const attnlab::ScenarioError& e) {
    check_message(e);
    // No such number: no value can be written to it.
    attnlab::Scenario s = f.scenario;
    try {
      attnlab::set_scenario_value(s, ref, 0.5);
      check(false);
    } catch (const attnlab::ScenarioError&) {
    }
    check(attnlab::scenario_to_json(s).dump() == f.json);
    return;
  }
  check(std::isfinite(read));
  check_set(f, ref, read);  // what is read can be written back
  check_set(f, ref, value);
}

// The stored stage matrix a trace-side reference names, or null for a name trace_cell refuses.
const attnlab::Matrix* stage(const attnlab::Trace& t, const attnlab::CellRef& ref) {
  if (ref.kv) return nullptr;
  if (ref.head < 0)
    return ref.name == "output" ? &t.output : ref.name == "concat" ? &t.concat : nullptr;
  if (ref.head >= static_cast<int>(t.heads.size())) return nullptr;
  const attnlab::HeadTrace& h = t.heads[std::size_t(ref.head)];
  return ref.name == "weights"  ? &h.weights
         : ref.name == "scores" ? &h.scores
         : ref.name == "output" ? &h.output
                                : nullptr;
}

void check_trace_cell(const Fixed& f, const attnlab::CellRef& ref) {
  const attnlab::Matrix* own = stage(f.own, ref);
  const bool exists = own && ref.index.size() == 2 && ref.index[0] >= 0 && ref.index[1] >= 0 &&
                      ref.index[0] < own->rows() && ref.index[1] < own->cols();
  attnlab::TraceCell c;
  try {
    c = attnlab::trace_cell(f.model, f.scenario.layout, ref);
  } catch (const attnlab::ScenarioError& e) {
    check_message(e);
    check(!exists);
    return;
  }
  check(exists);
  const attnlab::Matrix& rows = *stage(f.rows, ref);
  check(c.row >= 0 && c.col >= 0 && c.row < rows.rows() && c.col < rows.cols());
  const double a = (*own)(ref.index[0], ref.index[1]), b = rows(c.row, c.col);
  check(a == b || std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b)));
}

void check_sweep(const attnlab::Sweep& sw) {
  check(sw.frames >= attnlab::kMinSweepFrames && sw.frames <= attnlab::kMaxSweepFrames);
  check(std::isfinite(sw.from) && std::isfinite(sw.to));
  check(same_bits(sw.value(0), sw.from) && same_bits(sw.value(sw.frames - 1), sw.to));
  const double lo = std::fmin(sw.from, sw.to), hi = std::fmax(sw.from, sw.to);
  for (int k = 0; k < sw.frames; ++k) {
    const double v = sw.value(k);
    check(v >= lo && v <= hi);
    if (k > 0) check(sw.from <= sw.to ? v >= sw.value(k - 1) : v <= sw.value(k - 1));
  }
  for (const Fixed& f : fixed_scenarios()) {
    try {
      attnlab::check_sweep(f.scenario, sw);
    } catch (const attnlab::ScenarioError& e) {
      check_message(e);
      continue;
    }
    for (int k : {0, 1, sw.frames / 2, sw.frames - 2, sw.frames - 1}) {
      try {
        const attnlab::Scenario frame = attnlab::sweep_scenario(f.scenario, sw, k);
        check(same_bits(attnlab::scenario_value(frame, sw.param), sw.value(k)));
      } catch (const attnlab::ScenarioError&) {
        check(false);  // check_sweep promised every frame between the ends
      }
      check(!attnlab::sweep_value_text(sw, k).empty());
    }
  }
}

void check_cell_edit(const attnlab::CellEdit& edit) {
  const attnlab::CellRef ref{edit.matrix, edit.head, edit.kv, {edit.row, edit.col}};
  check(attnlab::parse_cell_ref(ref.text()) == ref);
  check(ref.source() == edit.source());
  const attnlab::CellEdit again =
      attnlab::cell_edit_of(edit.source(), edit.row, edit.col, edit.value_text);
  check(again.matrix == edit.matrix && again.head == edit.head && again.kv == edit.kv &&
        again.row == edit.row && again.col == edit.col && again.value_text == edit.value_text);
  for (const Fixed& f : fixed_scenarios()) {
    attnlab::Scenario s = f.scenario;
    try {
      attnlab::set_cell(s, edit);
    } catch (const attnlab::ScenarioError& e) {
      check_message(e);
      check(attnlab::scenario_to_json(s).dump() == f.json);
      continue;
    }
    check(same_bits(attnlab::scenario_value(s, ref),
                    attnlab::parse_cell_value(ref.text(), edit.value_text)));
  }
}

double value_of(const std::string& rest) {
  if (rest.empty()) return 0.25;
  char* end = nullptr;
  const double v = std::strtod(rest.c_str(), &end);
  if (end != rest.c_str() && *end == '\0') return v;
  double raw = 0;
  std::memcpy(&raw, rest.data(), std::min(rest.size(), sizeof raw));
  return raw;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  input_has_nul = input.find('\0') != std::string::npos;
  const std::size_t newline = input.find('\n');
  const std::string text = input.substr(0, newline);
  const double value = value_of(newline == std::string::npos ? "" : input.substr(newline + 1));

  try {
    const attnlab::CellRef ref = attnlab::parse_cell_ref(text);
    check(attnlab::parse_cell_ref(ref.text()) == ref);
    check(ref.text() == canonical_indices(text));
    check(ref.index.size() <= 2 && !ref.name.empty() && (ref.head >= 0 || !ref.kv));
    for (const Fixed& f : fixed_scenarios()) {
      check_scenario_number(f, ref, value);
      check_trace_cell(f, ref);
    }
  } catch (const attnlab::ScenarioError& e) {
    check_message(e);
  }

  try {
    check_sweep(attnlab::parse_sweep(text));
  } catch (const attnlab::ScenarioError& e) {
    check_message(e);
  }

  try {
    check_cell_edit(attnlab::parse_cell_edit(text));
  } catch (const attnlab::ScenarioError& e) {
    check_message(e);
  }
  return 0;
}
