#pragma once
/// A lesson: the computation as a sequence of steps, one stage at a time, for the window's
/// presenter mode and `attnlab-cli export --lesson`. A scenario file may carry its own under
/// `view.lesson` (docs/FORMAT.md); otherwise every stage the scenario has, in computation order.
/// Also the text of a step: its title, its formula in the layout's notation and an explanation
/// with the live numbers.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/decode.h"
#include "attnlab/flash.h"
#include "attnlab/number_format.h"
#include "attnlab/scenario.h"
#include "attnlab/stage.h"
#include "attnlab/trace.h"

namespace attnlab::lesson {

/// A step shows one stage (stage.h): any row with a lesson order, `heads` every head's weights,
/// `W_o` the output projection itself. Files name it by the table's name.

struct Cell {
  int row = 0, col = 0;  ///< 0-based, in the matrix as the file's layout shows it
};

/// A step that shows the model a layer document belongs to (view.model) rather than one of the
/// document's stages: the head finder's grid of one score, or activation patching's grid.
enum class Instrument { none, finder, patching };

/// A patching step's prompts and answer tokens, as `attnlab-cli patch` takes them.
struct PatchPrompts {
  std::string clean, corrupt, answer, wrong;
};

struct Step {
  StageId kind = StageId::inputs;  ///< StageId::none for an instrument's step
  int head = -1;            ///< 0-based query head; -1: whichever head the presenter has selected
                            ///< (one the scenario no longer has: its last head)
  std::string caption;      ///< the author's words, shown above the generated explanation
  bool predict = false;     ///< hide the step's result until it is revealed
  std::vector<Cell> highlight;  ///< cells to outline (any outside the matrix are skipped)
  /// A `tiles` step (`"block": [Br, Bc], "tile": k`): FlashAttention's loop with Br queries by Bc
  /// keys a block, after tile k, 0-based in the loop's order (query block outer, key block inner,
  /// skipped tiles counted) as `attnlab-cli flash` lists its tiles. 2 x 2 for a step the presenter's
  /// authoring adds.
  int block_rows = 2, block_cols = 2, tile = 0;
  /// A `decode` step (`"prefill": P, "token": t`): the KV cache after the prefill of tokens 0 .. P - 1
  /// (token -1, no "token" in the file) or after decoding token t, P <= t (0-based).
  int prefill = 0, token = -1;
  /// `"layer": L` (0-based): the stage of layer L of the document's model (view.model) on the same
  /// ids, not of the document itself; -1: the document's.
  int layer = -1;
  Instrument instrument = Instrument::none;  ///< `"stage": "finder"` or `"patching"`
  /// A finder step's `"score"`: a models::head_score_name ("previous-token", "induction", ...).
  std::string score;
  PatchPrompts patch;  ///< a patching step's `"clean"`, `"corrupt"`, `"answer"`, `"wrong"`
};



struct Lesson {
  std::string title;
  std::vector<Step> steps;
};

/// The names a finder step's score takes (models/head_finder.h's, which core does not link).
const std::vector<std::string>& finder_scores();
/// The step shows the document's model, not the document: another layer or an instrument.
bool needs_model(const Step& step);

/// Every stage the scenario has, in computation order, the weights asking for a prediction:
/// inputs, X_pos (with an encoding), Q, K, V, Q_rot and K_rot (RoPE), scores, scaled (unless the
/// scale is 1), bias (ALiBi), masked (with a mask or ALiBi), weights, head
/// output, then with several heads or a W_o: heads (several), concat (several), W_o, output.
Lesson default_lesson(const Scenario& s);

/// Reads a `view.lesson` object. Throws ScenarioError naming the field, e.g.
/// `view.lesson.steps[2].stage: expected one of inputs, Q, ..., got "foo"`.
Lesson parse_lesson(const nlohmann::json& lesson);
/// The lesson to present: `view.lesson` when the scenario has one, else default_lesson().
/// Throws ScenarioError for a malformed one (the loader refuses such files before).
Lesson lesson_of(const Scenario& s);
/// The inverse of parse_lesson.
nlohmann::json to_json(const Lesson& lesson);

/// Edits of the scenario's lesson (the presenter's authoring): `lesson` becomes `view.lesson`,
/// checked as a file's would be (throws ScenarioError naming the field, as parse_lesson).
void set_lesson(Scenario& s, const Lesson& lesson);
/// Drops `view.lesson`: the scenario presents its default lesson again.
void clear_lesson(Scenario& s);

/// A tiles step shows heads of up to this many scores (the run keeps every tile's state).
constexpr long long kMaxTilesStepScores = 128 * 128;
/// The loop a tiles step shows: flash_attention() of head `head` (0-based) with the step's blocks.
/// Throws std::invalid_argument as flash_attention() does, or for a head above kMaxTilesStepScores.
FlashRun tiles_run(const Step& step, const Trace& t, int head);
/// The tile of `run` a tiles step shows: its own, or the last when an edit has left fewer tiles.
std::size_t shown_tile(const Step& step, const FlashRun& run);
/// A tile as a heatmap of the masked scores in the run's layout shows it: its first row and column
/// and its size, in cells (queries along the rows in the rows layout, along the columns else).
struct TileBox {
  int row = 0, col = 0, rows = 0, cols = 0;
  bool skipped = false;
};
/// Every tile of `run`, in loop order.
std::vector<TileBox> tile_boxes(const FlashRun& run);
/// The decode a decode step shows (its prefill lowered to n - 1 when an edit has left fewer
/// tokens). Throws ScenarioError as decode() does for a scenario that is not causal self-attention.
Decode decode_run(const Step& step, const Scenario& s);
/// The index into `d.steps` a decode step shows (its token, or the last when an edit has left fewer
/// tokens); -1: the prefill.
int shown_token(const Step& step, const Decode& d);

/// What a predict step asks before its reveal, e.g. "Predict first: what will these cells be?"; a
/// tiles step's gives each row's m so far and the tile's scores in words (a projected 8 x 8 map's
/// cells are too small to print them). `head` 0-based.
std::string predict_prompt(const Step& step, const Scenario& s, const Trace& t, int head,
                           int decimals = kDefaultDecimals);

/// e.g. "Scores: every query against every key (head 2)".
std::string step_title(const Step& step, const Scenario& s, int head);
/// The step's equation in the layout's notation, e.g. rows "S = Q K^T", columns "S = K^T Q".
std::string step_formula(const Step& step, const Scenario& s, int head);
/// One or two sentences with the live numbers and the tokens' names, speaking of rows or columns
/// as the layout has them. `head` 0-based. Its numbers, and the prompt's, as the cells write them
/// (format_number: `decimals`, a real minus sign).
std::string step_explanation(const Step& step, const Scenario& s, const Trace& t, int head,
                             int decimals = kDefaultDecimals);

/// One head's whole computation in one line, e.g. rows "A = softmax_row(Q K^T / \u221Ad_k),
/// Y = A V".
std::string attention_summary(const Scenario& s);

}  // namespace attnlab::lesson
