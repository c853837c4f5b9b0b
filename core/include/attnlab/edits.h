#pragma once
/// Edits of a Scenario, as the window offers them: tokens (add, remove, move, self/cross), widths
/// (d_model, d_z, d_k, d_v), the head count, layout and scale, the mask, positions (RoPE, ALiBi),
/// whole matrices (add, omit, paste) and one cell of one matrix. Each edits `s` in place and
/// throws ScenarioError naming the field when it refuses; the caller keeps its own copy for undo.
/// Matrices are read and written as stored, i.e. in the scenario's layout. An edit leaves a valid
/// scenario valid (resolve() accepts it) unless it says otherwise (set_head_count).
#include <string>
#include <vector>

#include "attnlab/random.h"
#include "attnlab/scenario.h"

namespace attnlab {

// ---- Tokens ---------------------------------------------------------------------------------------

/// The queries' tokens (X), or the context's (Z; cross-attention only).
enum class Sequence { X, Z };

/// Rebuilds the token axis of `seq`: new token i is old token order[i], or a new token (zero
/// embedding, label `new_label`, allowed by an explicit mask) where order[i] is -1. Tokens left out
/// are removed. What belongs to a token follows it: its embedding (a row of X or Z in the rows
/// layout, a column in the columns layout), its label, its row and/or column of the explicit mask
/// cells (n_x by n_z in rows, n_z by n_x in columns) and, for keys, its padding index. In
/// self-attention X's tokens are the keys too, so both mask axes and the padding follow.
/// Does nothing for Z in self-attention. Throws ScenarioError ("X: cannot remove the last token
/// ...") when `order` is empty. Entries of `order` must be -1 or valid old indices.
void reorder_tokens(Scenario& s, Sequence seq, const std::vector<int>& order,
                    const std::string& new_label = "new");
/// A new token before index `at` (clamped to [0, n]), labelled "new" (or "new2", ... when taken).
void insert_token(Scenario& s, Sequence seq, int at);
/// Removes token `index`; an index out of range does nothing. Refuses to remove the last token.
void remove_token(Scenario& s, Sequence seq, int index);
/// Swaps token `index` with token `index + delta`; does nothing when either is out of range.
void move_token(Scenario& s, Sequence seq, int index, int delta);
/// Names token `index` of `seq`. When the sequence had no labels, the others get the names the
/// views showed ("#0", "#1", ...). In self-attention X's label is the key's too: a separately
/// given context label follows. Throws "X: no token 5 (3 tokens)" for an index out of range.
void set_token_label(Scenario& s, Sequence seq, int index, const std::string& label);
/// Sets token `index`'s embedding in `seq` (X's row in the rows layout, its column in the columns
/// layout) to `value` (d_x, or d_z, numbers): dragging a point in the Plane panel. Throws
/// "X: no token 5 (3 tokens)" or "X: token 1 is 2 wide, got 3 numbers".
void set_token_embedding(Scenario& s, Sequence seq, int index, const Vector& value);
/// Cross: Z starts as a copy of X (labels too). Self: Z is dropped; the explicit mask keeps its
/// overlap with X's tokens as keys (new keys allowed), padding beyond n_x is dropped. Refused
/// ("Z: is 3 wide and X 4; ...") when Z's width differs from X's (W_k and W_v would not fit X).
void set_cross_attention(Scenario& s, bool cross);

// ---- Widths ---------------------------------------------------------------------------------------

/// How new entries are filled when a matrix grows.
struct Fill {
  bool random = false;
  RandomSpec spec;  ///< used when `random`: each matrix draws from its own stream of spec.seed
};

/// Width of X (d_x = d_model): X, the input side of W_q (and of W_k, W_v in self-attention), and
/// W_o / b_o's output side when d_out was d_model. An omitted W becomes an explicit identity first.
/// Every matrix keeps its overlapping block. Throws "d_model: expected at least 1, got 0".
void set_model_width(Scenario& s, int d_x, const Fill& fill);
/// Width of Z (cross-attention; nothing in self-attention): Z and the input side of W_k, W_v.
void set_context_width(Scenario& s, int d_z, const Fill& fill);
/// Per-head query/key width: every head's band of W_q, W_k (d_x or d_z by H d_k in the rows
/// layout; per-head weights are one band each), b_q, b_k. Each band keeps its own leading columns.
void set_key_width(Scenario& s, int d_k, const Fill& fill);
/// Per-head value width: every head's band of W_v, b_v and of W_o's input side (H d_v rows of W_o
/// in the rows layout), each keeping its leading entries.
void set_value_width(Scenario& s, int d_v, const Fill& fill);

/// New embeddings for every token of X (and Z): same shapes, the streams set_model_width and
/// set_context_width grow X and Z with.
void randomize_embeddings(Scenario& s, const RandomSpec& spec);

// ---- Heads ----------------------------------------------------------------------------------------

/// The number of heads the full W_q, W_k, W_v are split into. Throws "num_heads: expected a whole
/// number from 1 to 256, got 0", and refuses per-head scenarios (their count is heads.size()).
/// H must also divide the projection widths: resolve() checks that and says which width.
void set_head_count(Scenario& s, int heads);
/// The head counts set_head_count can give `s` that resolve() accepts, ascending: the common
/// divisors of H*d_k and H*d_v (the widths of W_q and W_v, or of X and Z where they are omitted),
/// up to limits::max_heads; with key/value heads G, the multiples of G dividing H*d_k. Empty for
/// per-head scenarios.
std::vector<int> valid_head_counts(const Scenario& s);
/// Key/value heads G (full matrices): W_k, W_v, b_k, b_v get G bands of d_k and d_v; new key/value
/// head g starts as the one its first query head (g H / G) read, so that head's scores stay.
/// Throws "num_kv_heads: expected a divisor of num_heads = 4 (1, 2 or 4), got 3"; refuses
/// per-head scenarios (their key/value heads are kv_heads' entries).
void set_kv_head_count(Scenario& s, int kv_heads);
/// The divisors of H (full matrices); empty for per-head scenarios.
std::vector<int> valid_kv_head_counts(const Scenario& s);
/// Switches query head `head` (0-based) off (its output zeroed: it adds nothing to the output) or
/// back on; heads_off stays ascending. Throws "heads_off: no head 5 (4 heads, 0 to 3)".
void set_head_off(Scenario& s, int head, bool off);

/// A head count as typed: a whole number (blanks before it allowed). Throws "num_heads: expected a
/// whole number, got \"x\"" for anything else, a negative number or one above 100000.
int parse_head_count(const std::string& text);
/// set_head_count of a typed count (parse_head_count).
void set_typed_head_count(Scenario& s, const std::string& text);

// ---- Layout and scale -----------------------------------------------------------------------------

/// Stores every matrix in layout `l` (with_layout): tokens as rows or as columns.
void set_layout(Scenario& s, Layout l);
/// How the scores are scaled: 1/sqrt(d_k), not at all, or an explicit value, which starts at 1.
void set_scale_kind(Scenario& s, Scale::Kind kind);
/// An explicit scale. Throws "scale: expected a positive number up to 1e12, got 0".
void set_scale(Scenario& s, double scale);
/// An explicit scale given as the temperature T = 1/scale. Throws "scale: expected a positive
/// temperature T, got 0" (or one whose 1/T the scale refuses).
void set_temperature(Scenario& s, double temperature);

// ---- Mask -----------------------------------------------------------------------------------------

/// Flips the explicit mask cell (row, col) as stored (n_x by n_z in the rows layout, n_z by n_x in
/// the columns layout), starting from all ones when there are no explicit cells. Throws
/// "mask.cells: no cell (5, 0) in a 3x4 mask".
void toggle_mask_cell(Scenario& s, int row, int col);
/// The sliding window: keys fewer than `window` positions away; 0 switches it off. Throws
/// "mask.window: expected 0 (none) or a width from 1 to 1000001, got -1".
void set_mask_window(Scenario& s, int window);
/// Attention sinks: keys 0 .. sinks - 1 stay visible whatever the window or the cells say (causal
/// and padding still hold); 0 switches them off. Throws
/// "mask.sinks: expected 0 (none) or a count of sink keys from 1 to 8192, got -1".
void set_mask_sinks(Scenario& s, int sinks);
void set_causal(Scenario& s, bool causal);
/// No mask at all: no causal, window, padding or explicit cells.
void clear_mask(Scenario& s);
/// Folds causal, the window, the sinks and padding into explicit cells (which keep their own zeros), so that
/// every cell can be toggled one by one; the cells allow exactly what the mask allowed.
void bake_mask(Scenario& s);
/// Key `key` (a token of Z, or of X in self-attention) padded or not; padding stays ascending.
/// Throws "mask.padding: no key 7 (4 keys, 0 to 3)".
void set_padding(Scenario& s, int key, bool padded);

// ---- Positions ------------------------------------------------------------------------------------

/// `seq`'s positions from a typed line of numbers ("3 4 5"; empty: 0 .. n - 1; resolve() checks the
/// count). Throws "positions: expected whole numbers from 0 to 1000000 separated by spaces, got
/// \"x\"" (context_positions for Z), and refuses Z in self-attention.
void set_positions(Scenario& s, Sequence seq, const std::string& text);
/// `seq`'s positions back to 0 .. n - 1.
void reset_positions(Scenario& s, Sequence seq);
/// The sinusoidal encoding (X + PE) on or off.
void set_sinusoidal_encoding(Scenario& s, bool on);
/// RoPE on (with its defaults, unless it is on already) or off.
void set_rope(Scenario& s, bool on);
/// RoPE's pairing, base and rotary dims. Each throws "rope: the scenario has no RoPE" without it;
/// "rope.base: expected a number above 1 and up to 1e12, got 1", "rope.dims: expected 0 (all of
/// d_k) or more, got -2" (resolve() checks that dims is even and at most d_k).
void set_rope_style(Scenario& s, Rope::Style style);
void set_rope_base(Scenario& s, double base);
void set_rope_dims(Scenario& s, int dims);
/// RoPE scaling's rule (none, linear, llama3, longrope), each with the numbers Hugging Face's
/// configs give by default (longrope: R/2 short factors of 1 and long factors of 2, R from the
/// scenario). Throws "rope: the scenario has no RoPE" without it.
void set_rope_scaling(Scenario& s, RopeScaling::Kind kind);
/// One number of the rule: "factor", "low_freq_factor", "high_freq_factor", "original_positions" or
/// "attention_factor". Throws "rope.scaling.factor: expected a positive number up to 1e12, got 0"
/// (resolve() checks the numbers against each other).
void set_rope_scaling_number(Scenario& s, const std::string& name, double value);
/// LongRoPE's short (or long) factors from a typed line, one per pair ("1 1.5"). Throws
/// "rope.scaling.long_factors[1]: expected a positive number, got \"x\"" (resolve() checks the count).
void set_rope_scaling_factors(Scenario& s, bool long_factors, const std::string& text);
/// QK-norm on (over each head, no weights: a gain of 1) or off.
void set_qk_norm(Scenario& s, bool on);
/// QK-norm over each head or over the whole width; given weights are dropped (their lengths
/// differ). Throws "qk_norm: the scenario has no QK-norm" without it.
void set_qk_norm_scope(Scenario& s, QkNorm::Scope scope);
/// Gemma's RMSNorm, w + 1, or plain w. Throws "qk_norm: the scenario has no QK-norm" without it.
void set_qk_norm_plus_one(Scenario& s, bool plus_one);
/// The softcap c (Gemma 2), 0 for none. Throws "softcap: expected a positive number up to 1e12
/// (or 0: none), got -1".
void set_softcap(Scenario& s, double cap);
/// ALiBi on (the paper's slopes, unless it is on already) or off.
void set_alibi(Scenario& s, bool on);
/// ALiBi's slopes from a typed line, one per query head ("0.5 0.25"; empty: the paper's slopes).
/// Throws "alibi: the scenario has no ALiBi" without it, "alibi[1]: expected a slope of 0 or
/// more, got \"x\"", "alibi: expected 2 slopes (one per query head), got 3".
void set_alibi_slopes(Scenario& s, const std::string& text);

// ---- Whole scenario -------------------------------------------------------------------------------

/// `s` becomes `saved` (work restored from an autosave, on top of the file it was made from).
void restore_scenario(Scenario& s, const Scenario& saved);

// ---- One cell -------------------------------------------------------------------------------------

/// Typed values beyond this magnitude are refused: they only overflow the scores and hide every
/// other number.
constexpr double max_cell_magnitude = 1e6;

/// One cell of one matrix: `W_q[0][1]=0.5`, `heads[1].b_k[0][2]=-1.5`, `X[2][0]=3`.
/// Matrices: X, Z, W_q, W_k, W_v, b_q, b_k, b_v (the full ones, or head h's own with `heads[h].`),
/// W_o, b_o. Row and column index the matrix as stored; a bias is a 1 by n row in the rows layout
/// and an n by 1 column in the columns layout (as it is added).
struct CellEdit {
  std::string matrix;      ///< "W_q", "b_k", "X", ...
  int head = -1;           ///< `heads[h].`: head h's own weights; -1: the full ones (or X, Z, W_o, b_o)
  bool kv = false;         ///< `kv_heads[h].`: key/value head h's W_k, W_v, b_k or b_v
  int row = 0, col = 0;
  std::string value_text;  ///< parsed by set_cell, so a refusal can quote what was typed

  /// The matrix as the window names it: "W_q", "heads[1].b_k".
  std::string source() const;
};

/// Parses `MATRIX[row][col]=VALUE`. Throws ScenarioError naming the problem: no '=', no
/// "[row][col]" before it, an unknown matrix, `heads[h].` before a matrix no head owns. The value
/// is not parsed here (set_cell does), so "W_q[0][0]=abc" parses.
CellEdit parse_cell_edit(const std::string& text);
/// The edit of cell (row, col) of the matrix the window calls `source` ("W_q", "heads[1].b_k"),
/// to `value_text`. Throws as parse_cell_edit for an unknown source.
CellEdit cell_edit_of(const std::string& source, int row, int col, const std::string& value_text);

/// A typed number: one finite number of magnitude at most max_cell_magnitude, blanks around it
/// allowed. Throws "`where`: expected a number, got \"abc\"" (or a finite number, or the range).
double parse_cell_value(const std::string& where, const std::string& text);

/// Stores edit.value_text into the cell. Throws ScenarioError, naming "W_q[5][0]" or the matrix:
/// an omitted matrix (an identity W, a zero b: add it first), Z in self-attention, `heads[h].` in
/// a scenario without per-head weights (or its absence in one with them), h out of range, a cell
/// outside the matrix ("no such cell in a 4x4 matrix"), then a value parse_cell_value refuses.
void set_cell(Scenario& s, const CellEdit& edit);

/// Cell (row, col) of the matrix `source` ("W_q", "heads[1].b_k") as shown (a bias as set_cell
/// shows it) set to `value`: a scrubbed cell. Throws as set_cell, and for a value that is not
/// finite or beyond max_cell_magnitude, naming the cell.
void set_matrix_cell(Scenario& s, const std::string& source, int row, int col, double value);

// ---- Whole matrices -------------------------------------------------------------------------------

/// What an added weight matrix starts as.
enum class NewMatrix { identity, zeros };

/// Adds the omitted matrix `source`: a W (W_q, W_k, W_v, with `heads[h].` or `kv_heads[g].`) as the
/// d_x or d_z square identity it stood for, or zeros; a bias as zeros as wide as its projection
/// (H d_k, G d_k, G d_v for the full ones; d_k or d_v for a head's); W_o as the identity of the
/// concatenation (H d_v); b_o as zeros of W_o's output width. Throws "W_q: already there", "X: is
/// always there", "b_o: add W_o first", and as set_cell for an unknown source.
void add_matrix(Scenario& s, const std::string& source, NewMatrix start = NewMatrix::identity);
/// Omits the matrix `source`: a W becomes the identity again, a bias zeros; W_o goes with b_o
/// (the output is the concatenation). Throws "X: cannot be omitted" for X and Z, "W_q: already
/// omitted" for one that is.
void remove_matrix(Scenario& s, const std::string& source);
/// Replaces the matrix `source` as shown with numbers pasted as text (NumPy, CSV or one row per
/// line: matrix_text.h); a vector may come either way round. Throws "W_q: cannot paste: ...",
/// "W_q: pasted 3x2, expected 2x3", "W_q: pasted values must lie between -1e6 and 1e6", and as
/// set_cell for an omitted or unknown matrix.
void paste_matrix(Scenario& s, const std::string& source, const std::string& text);
/// When `text` pasted into X or Z differs from it only in its number of tokens (rows in the rows
/// layout, columns in the columns layout), that number, which paste_matrix_resizing_tokens
/// takes; otherwise 0 (the paste fits, or no token count would make it fit).
int paste_token_count(const Scenario& s, const std::string& source, const std::string& text);
/// A paste of X or Z with another number of tokens, as one edit: tokens removed from the end, or
/// new ones ("new", "new2", ...) added there (insert_token), then the pasted values. Throws as
/// paste_matrix, and "X: pasted 5x3, expected 4 wide tokens" when the width differs.
void paste_matrix_resizing_tokens(Scenario& s, const std::string& source, const std::string& text);

}  // namespace attnlab
