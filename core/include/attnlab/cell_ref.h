#pragma once
/// One syntax for naming a number, shared by every option that names one: sweeps
/// (`--sweep X[0][1]=0:1:20`), sensitivity (`--of output[0][0]`) and scripted cell edits
/// (`W_q[0][1]=0.5`). A reference is an optional head prefix, a name and zero to two 0-based
/// indices: `scale`, `rope.base`, `alibi[1]`, `X[0][1]`, `b_v[1]`, `heads[1].W_k[0][0]`,
/// `kv_heads[0].W_v[2][1]`, `output[0][2]`, `heads[0].weights[1][2]`. Indices address matrices as
/// stored, i.e. in the file's own layout, as the format's messages do.
#include <optional>
#include <string>
#include <vector>

#include "attnlab/scenario.h"
#include "attnlab/stage.h"

namespace attnlab {

struct CellRef {
  std::string name;         ///< "X", "W_q", "b_v", "scale", "rope.base", "alibi", "weights", ...
  int head = -1;            ///< `heads[h].` or `kv_heads[h].`: h; -1 without a prefix
  bool kv = false;          ///< the prefix is `kv_heads[h].`
  std::vector<long> index;  ///< 0, 1 or 2 indices, as written (a negative one is refused later)

  /// Written back in the syntax parse_cell_ref reads (parse_cell_ref(r.text()) == r).
  std::string text() const;
  /// "heads[1].W_k" (the prefix and the name, without indices).
  std::string source() const;
  /// The same matrix's cell (row, col): `heads[1].W_k` -> `heads[1].W_k[0][2]`.
  CellRef at(long row, long col) const;
  bool operator==(const CellRef& o) const {
    return name == o.name && head == o.head && kv == o.kv && index == o.index;
  }
};

/// Parses the syntax above. Throws ScenarioError ("cell \"W_q[0\": expected NAME[i][j], ...")
/// for text that is not of that shape; whether the name exists is for the reader of the reference
/// (a scenario's parameter or a trace's stage) to say.
CellRef parse_cell_ref(const std::string& text);

/// Cell (row, col) of a trace stage as stored (the file's layout), named as the trace's JSON and
/// sensitivity() name it: `output[0][2]`, `heads[1].weights[0][2]`, `heads[1].output[0][0]` for
/// head_output (`head` 0-based, ignored for a stage not per head). Nothing for a stage that is no
/// trace matrix (none, inputs, heads, W_o).
std::optional<CellRef> stage_cell_ref(StageId stage, int head, long row, long col);

/// The reference in the window's words, heads counted from 1 as the window counts them, indices as
/// stored: "W_q[0][2] of head 2", "W_k[0][0] of K/V head 1", "output[0][2]".
std::string cell_ref_words(const CellRef& ref);
/// Its head in those words: "head 2", "K/V head 1"; "" without a head prefix.
std::string head_words(const CellRef& ref);

// ---- The scenario's numbers ------------------------------------------------------------------------

/// The numbers of a scenario a sweep can move:
/// - `scale`: what the scores are multiplied by (1/sqrt(d_k) unless the file sets it);
/// - `rope.base`: RoPE's base (the scenario must have RoPE);
/// - `alibi[h]`: head h's ALiBi slope (the scenario must have ALiBi);
/// - a cell of X, Z, W_q, W_k, W_v, W_o, b_q, b_k, b_v, b_o, with `heads[h].` / `kv_heads[h].` as
///   for cell edits: a matrix takes [row][col]; a bias takes [i] (or [row][col] as it is shown:
///   a 1 by n row in the rows layout, an n by 1 column in the columns layout).
/// Throws ScenarioError naming the reference when the scenario has no such number: an unknown
/// name, an omitted matrix, an index outside the matrix ("X[9][0]: no such cell in a 3x4 matrix").
double scenario_value(const Scenario& s, const CellRef& ref);
/// Sets the number scenario_value reads. `scale` becomes an explicit value; `alibi[h]` makes the
/// default slopes explicit first. Throws as scenario_value, and for a non-finite value; the value
/// must be one resolve() accepts for the field (a positive RoPE base, a finite scale).
void set_scenario_value(Scenario& s, const CellRef& ref, double value);

}  // namespace attnlab
