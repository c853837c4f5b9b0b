#pragma once
/// The forward pass of every family config.h reads, in float (Eigen) around one attention, the
/// core's: each layer's Q, K and V are projected in float here and the core computes the rest of its
/// attention (compute_into() with GivenProjections), so every variant (grouped K/V heads, RoPE and its
/// scaling, partial rotary, QK-norm, softcaps, sliding windows) exists once; a layer opened as a
/// scenario (attention_scenario(): the same layer with its weights, the projections the core's
/// own in double) computes what the model did.
///   h = embed[ids] * embedding_scale (+ learned positions); per layer
///     a = attn_norm(h) (or h);  o = attention(a);  h' = h + post_norm(o) (or h + o);
///     h = h' + mlp_post_norm(mlp(mlp_norm(parallel ? h : h')));
///   logits = final_softcap(final_norm(h) head^T).
/// Every kept layer's attention weights and the residual stream entering it are recorded, so one
/// layer can become a Scenario and the rest of the model can re-run from it after an edit.
#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/matrix.h"
#include "attnlab/model.h"
#include "attnlab/models/config.h"
#include "attnlab/models/sites.h"
#include "attnlab/models/weights.h"

namespace attnlab::models {

struct Prediction {
  int id = 0;
  double p = 0.0;  ///< softmax of the last token's logits
};

/// One layer of one forward pass.
struct LayerRun {
  MatrixF residual_in;           ///< n by d_model: the residual stream entering the layer
  MatrixF attn_in;               ///< n by d_model: LN_1 / input RMSNorm of it, what attention reads
  std::vector<MatrixF> weights;  ///< one per query head: n by n, rows = queries, columns = keys
  MatrixF attn_out;              ///< n by d_model: the attention's output (after W_o, b_o; before a post-norm)
};

/// One query head of one layer, both 0-based (as in files and --layer).
struct HeadRef {
  int layer = 0, head = 0;
  bool operator==(const HeadRef& o) const { return layer == o.layer && head == o.head; }
};

/// Which layers a run records: every one (the window's grid, --attention), one (--layer), or none
/// (a prediction alone). The others are computed and dropped as the run goes, so a long text needs
/// one layer's memory, not every layer's.
struct Keep {
  static constexpr int kAll = -1, kNone = -2;
  int layer = kAll;  ///< kAll, kNone or a 0-based layer
  static Keep all() { return {kAll}; }
  static Keep none() { return {kNone}; }
  static Keep only(int layer) { return {layer}; }
  bool keeps(int l) const { return layer == kAll || layer == l; }
};

struct ForwardRun {
  std::vector<int> ids;
  std::vector<int> types;          ///< token types (BERT's segments) as given; empty: all 0
  std::vector<HeadRef> heads_off;  ///< heads whose output was zeroed (their weights still recorded)
  std::vector<LayerRun> layers;  ///< one per layer; those the run did not keep are empty
  std::vector<Prediction>
      next;        ///< the most likely next tokens after the last one, by p (none for an encoder)
  MatrixF output;  ///< n by d_model: the residual stream after the last layer (predict_at reads it)
};

/// The bytes this process may use: the machine's memory, or less when a limit is set on the
/// process (ulimit -v, ulimit -d).
double memory_limit();
/// Refuses `field` in one line when `bytes` exceed memory_limit(): "`field`: `what` need about
/// 86.0 GiB; this machine allows 23.4 GiB".
void require_memory(double bytes, const std::string& field, const std::string& what);

class Transformer {
 public:
  /// Binds every tensor the architecture needs, checking each one's shape against the config.
  /// Throws ScenarioError naming the tensor ("h.3.attn.c_attn.weight: expected [768, 2304], got ...").
  static Transformer bind(const ModelConfig& config, WeightSet& weights);

  /// The whole forward pass, with the heads in `heads_off` switched off (output zeroed), recording the
  /// layers `keep` names. Throws ScenarioError: no ids, an id outside the vocabulary, more ids than
  /// the model's positions, a head that does not exist, more memory than this machine allows
  /// (run_bytes() against memory_limit(), checked before anything large is allocated), and
  /// "run: cancelled" when `cancelled` is set, checked before each layer (the window's stale runs).
  /// `hooks`, when given, reads and replaces the named sites it wants as the run passes them (sites.h).
  ForwardRun run(const std::vector<int>& ids, int top_k = 5,
                 const std::vector<HeadRef>& heads_off = {}, Keep keep = Keep::all(),
                 const std::atomic<bool>* cancelled = nullptr, SiteHooks* hooks = nullptr,
                 const std::vector<int>& types = {}) const;
  /// The residual stream entering layer 0 (n by d_model): the token embeddings, scaled, plus the
  /// learned positions and, for BERT, the embeddings of `types` (the token types, empty: all 0),
  /// then the encoders' embedding LayerNorm. Throws ScenarioError for ids run() refuses, and for
  /// types of another length or outside the model's type_vocab_size.
  MatrixF embed(const std::vector<int>& ids, const std::vector<int>& types = {}) const;
  /// The most likely tokens at row `row` of `output` (a run's output, n by d_model): an encoder's
  /// masked-word prediction at a [MASK], through its masked-LM head.
  std::vector<Prediction> predict_at(const MatrixF& output, Eigen::Index row, int top_k = 5) const;
  /// The layers from `first` on, applied to `residual` (the residual stream entering layer `first`,
  /// n by d_model), with `hooks`: the residual stream after the last layer. Patching restarts here
  /// from a cached residual instead of re-running the layers before the patched one.
  MatrixF run_from(int first, MatrixF residual, SiteHooks* hooks = nullptr,
                   const std::atomic<bool>* cancelled = nullptr) const;
  /// A run that differs from a recorded one only in the rows from `first_row` on, as a patch does
  /// (attention is causal: a change at position p leaves the rows before p as they were). `rows` is
  /// the residual stream entering layer `layer`, its rows from first_row on; with `z` (those rows of
  /// the layer's heads' outputs side by side, rows by H d_h) the run resumes at that layer's W_o. The
  /// rows before first_row are the recorded run's, whose q, k and v of every layer from `layer` on
  /// `recorded` holds. Only the changed rows are projected and go through W_o and the MLP, and only
  /// the last one through the last layer's: returns the last row leaving the last layer (1 by d_model).
  /// `batch` runs at once: `rows` (and `z`) are `batch` blocks of equal length stacked, one per run,
  /// sharing each product; the result is then one row per run.
  MatrixF rerun_rows(int layer, MatrixF rows, Eigen::Index first_row, const SiteCache& recorded,
                     const MatrixF* z = nullptr, const std::atomic<bool>* cancelled = nullptr, int batch = 1) const;
  /// The logits of every row of a residual stream (rows by vocab): the final norm, the unembedding
  /// and the final softcap, what the last layer's output becomes (the logit lens on earlier layers).
  MatrixF logits(const MatrixF& residual) const;
  /// Only the logits of `ids` at row `row` of a residual stream, without the rest of the vocabulary.
  Eigen::VectorXd logits_of(const MatrixF& residual, Eigen::Index row, const std::vector<int>& ids) const;
  /// About how many bytes run() takes on `tokens` tokens: what it keeps (each kept layer's weights,
  /// n by n per query head, and its three n by d_model matrices) and what one layer needs while it
  /// is computed.
  double run_bytes(std::size_t tokens, Keep keep) const;
  /// The prediction when layer `layer`'s attention outputs `attn_out` (n by d_model, e.g. an edited
  /// scenario's output) instead of what `run` recorded: re-runs layer's post-norm and MLP and the
  /// layers after it (with run.heads_off still off in those). Throws ScenarioError when the shape
  /// does not match, and for an encoder (output_after_layer() and predict_at() give its masked
  /// words).
  std::vector<Prediction> next_after_layer(const ForwardRun& run, int layer, const Matrix& attn_out,
                                           int top_k = 5) const;
  /// The run's output (n by d_model, as ForwardRun::output) when layer `layer`'s attention outputs
  /// `attn_out`: what an encoder's masked-word predictions read after an edit (predict_at).
  MatrixF output_after_layer(const ForwardRun& run, int layer, const Matrix& attn_out) const;

  const ModelConfig& config() const { return config_; }

  struct Layer;  ///< one layer's bound tensors (transformer.cpp)
  Transformer();
  ~Transformer();
  Transformer(Transformer&&) noexcept;
  Transformer& operator=(Transformer&&) noexcept;

  /// Layer `layer`'s attention on `attn_in` (n by d_model, what it reads) as a core Scenario, rows
  /// layout: X, the layer's W_q, W_k, W_v, W_o and biases in double, the heads and K/V heads, the
  /// scale, the causal mask and the layer's window, its RoPE, QK-norm and softcap, and the heads of
  /// `heads_off` in this layer switched off. The forward pass computes exactly this.
  Scenario attention_scenario(int layer, const MatrixF& attn_in, const std::vector<HeadRef>& heads_off = {}) const;
  /// What a layer's attention reads, for notes: "after the input RMSNorm", "the residual stream itself".
  std::string attention_input() const;
  /// True when the family normalises the attention's output before adding it (Gemma, OLMo 2).
  bool has_post_norm() const;

 private:
  /// A run's trace, reused from layer to layer: the layers' shapes are equal, so after the first one
  /// the core allocates nothing (each new matrix was a page fault per 4 KiB).
  struct Workspace;
  void run_layer(int index, MatrixF& h, const std::vector<HeadRef>& off, LayerRun* record, Workspace& work,
                 SiteHooks* hooks) const;
  /// Layer `index` on rows from first_row on of a run `recorded` holds (rerun_rows).
  void run_layer_rows(int index, MatrixF& h, Eigen::Index first_row, const SiteCache& recorded, Workspace& work,
                      int batch, bool last_row) const;
  /// The rest of layer `index` from its heads' outputs z: W_o, the residual, the MLP (h in place);
  /// with last_of_blocks > 0, only the last row of each block of that many rows.
  void finish_attention(int index, MatrixF& h, MatrixF z, SiteHooks* hooks, Eigen::Index last_of_blocks,
                        LayerRun* record) const;
  std::shared_ptr<GivenProjections> project(const Layer& layer, const MatrixF& a) const;
  /// Calls hooks->at for projection Q, K or V (double, converted to float and back: they were float).
  void hook_projection(int index, Site site, Matrix& value, SiteHooks& hooks) const;
  /// The family's QK-norm with the layer's own weights, in double.
  QkNorm qk_norm(const Layer& layer) const;
  Model attention_model(int index, std::shared_ptr<const GivenProjections> given, const std::vector<HeadRef>& off) const;
  /// h = residual_in + the attention's contribution (o, post-normed where the family does), then the MLP's.
  void finish_layer(const Layer& layer, const MatrixF& residual_in, const MatrixF& o, MatrixF& h,
                    SiteHooks* hooks = nullptr, int index = 0) const;
  MatrixF mlp(const Layer& layer, const MatrixF& x) const;
  std::vector<Prediction> predict(const MatrixF& h, int top_k) const;
  /// What the unembedding reads from the residual stream: the final norm, and the masked-LM head's
  /// transform (dense, activation, LayerNorm) where the family has one.
  MatrixF head_input(const MatrixF& residual) const;
  /// `normed` (rows by d_model, after the final norm) times the unembedding's transpose: rows by vocab.
  MatrixF unembed(const MatrixF& normed) const;

  ModelConfig config_;
  std::vector<Layer> layers_;
  struct Embedding;
  std::unique_ptr<Embedding> embedding_;
};

}  // namespace attnlab::models
