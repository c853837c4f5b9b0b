#pragma once
/// The stages of attention, named once. One table row per stage holds every word and rule the
/// trace, cell references, lessons, exports, sensitivity targets and the window's panels use for
/// it; adding a stage is adding a row, plus what no table row can hold: where the trace keeps its
/// matrix (stage_source()) and its equation (stage_formula()), both beside the table.
#include <optional>
#include <string>
#include <vector>

#include "attnlab/matrix.h"
#include "attnlab/scenario.h"
#include "attnlab/trace.h"

namespace attnlab {

/// Every stage in computation order. `none`: no stage (nothing hovered, the inputs' own
/// editors); `inputs`: X (and Z); `heads`: every head's weights side by side (a lesson step);
/// `W_o`: the output projection itself; `tiles` and `decode`: lesson steps only, FlashAttention's
/// loop after one tile (flash.h) and the KV cache after one decoded token (decode.h); `lines`: a
/// lesson step too, the weights drawn as lines from each query to each key (every head's, or one's).
enum class StageId {
  none, inputs, X_pos, Q, K, V, Q_norm, K_norm, Q_rot, K_rot, scores, scaled, capped, bias, masked, weights, head_output,
  heads, concat, W_o, output, tiles, decode, lines
};

/// What one axis of a stage runs over, in the rows layout (the columns layout transposes).
enum class StageAxis { none, queries, keys, d_x, d_k, d_v, heads_d_v, d_out };

/// What the scenario must have for a stage to exist in its trace.
enum class StageNeeds { nothing, encoding, rope, alibi, qk_norm, softcap };

struct StageRow {
  StageId id;
  const char* name;       ///< in lesson files, the CLI and export file names: "head_output"
  const char* cell_name;  ///< in the trace's JSON and cell references, after `heads[h].` for a
                          ///< per-head stage: "output" for head_output; null: not a trace matrix
  const char* label;      ///< the window's title of its heatmap: "head output", "ALiBi bias"
  const char* caption;    ///< an exported figure's caption; null: not exported
  const char* step_title; ///< a lesson step's title; null: no lesson step
  StageAxis rows, cols;   ///< shape rule in the rows layout
  bool per_head;          ///< once per query head
  bool target;            ///< a sensitivity may start from one of its cells
  StageNeeds needs;
  /// Where the name comes in the lesson format's list of names (the error messages' order, the
  /// authoring combo): names added later come last. -1: no lesson step.
  int lesson_order;
};

/// Every row, `none` first, then in computation order.
const std::vector<StageRow>& stage_table();
const StageRow& stage_row(StageId id);
/// "X_pos", "Q", "head_output", ... ("none" for none).
const char* stage_name(StageId id);
/// The stage of a file's or the CLI's name; none for an unknown name (and for "none").
std::optional<StageId> stage_from_name(const std::string& name);
/// The trace matrix a cell reference's name denotes: `name` with a `heads[h].` prefix
/// (`per_head`) or without; nothing when it names no stage.
std::optional<StageId> stage_from_cell_name(const std::string& name, bool per_head);
bool per_head(StageId id);
/// False for a positional stage the trace lacks (Q_rot without RoPE, X_pos without an encoding).
bool has_stage(const Trace& t, StageId id);

/// The lesson format's names in its order: "inputs, Q, K, ..." as its messages list them.
std::vector<StageId> lesson_stages();
/// The exported stages in computation order (X_pos ... output).
std::vector<StageId> exported_stages();

/// The sizes a shape rule is written in.
struct StageDims {
  long n_x = 0, n_z = 0, d_x = 0, d_k = 0, d_v = 0, heads = 0, d_out = 0;
};
/// The sizes of scenario `s` as its computed trace `t` has them (d_x: the width of s.X).
StageDims stage_dims(const Scenario& s, const Trace& t);
/// The sizes of a resolved model (d_out: W_o's width, or H d_v without W_o).
StageDims stage_dims(const Model& m);
/// The rows-layout size of `axis`.
long axis_size(StageAxis axis, const StageDims& d);
/// "queries", "keys", "d_x", "d_k", "d_v", "H\u00B7d_v", "d_out"; null for none.
const char* axis_name(StageAxis axis);

/// The stored matrix a stage's cells are read from: its own, or for the derived stages (scaled,
/// capped, bias, masked) the scores, of the same shape. Null for a stage the trace lacks or holds no
/// matrix of (none, inputs, heads, W_o), or a head out of range.
const Matrix* stage_source(const Trace& t, StageId id, int head);
/// Cell (row, col) of a stage as stored (the trace's layout), the derived stages evaluated one
/// cell at a time; nothing outside the matrix or where stage_source() is null.
std::optional<double> stage_value(const Trace& t, StageId id, int head, Eigen::Index row, Eigen::Index col);
/// The matrix of `id` in the trace, in its layout: head `head` (0-based) of a per-head stage.
/// Scaled, bias and masked are evaluated from their lazy expressions. Empty for a stage that
/// is no trace matrix (none, inputs, heads, W_o) or that the trace lacks.
Matrix stage_matrix(const Trace& t, StageId id, int head);

/// The stage's equation in the layout's notation for a head whose keys are `d_k` wide, e.g. rows
/// "Q = X W_q + b_q", columns "Q = W_q X + b_q 1^T"; "" for none.
std::string stage_formula(StageId id, const Scenario& s, int head, int d_k);
/// d_k of `head` (0-based): its W_q's width (rows layout) or height, or without W_q the width
/// of X split among the heads.
int head_d_k(const Scenario& s, int head);
/// The scale in words, e.g. "1/\u221Ad_k = 1/\u221A2 = 0.7071".
std::string scale_description(const Scenario& s, int d_k);

}  // namespace attnlab
