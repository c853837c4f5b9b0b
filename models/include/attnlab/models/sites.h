#pragma once
/// Named sites of the forward pass, TransformerLens's hook points (`blocks.5.attn.hook_z`) and
/// llama.cpp's `cb(cur, name, il)`: per layer, the residual stream entering it, the attention's
/// q, k and v, each query head's pattern and output z, the attention's output, the MLP's output and
/// the residual stream leaving the layer. Instruments (the head finder, the logit lens, activation
/// patching) read and replace activations through these names, passed to Transformer::run as a
/// SiteHooks object; a run without hooks pays nothing for them.
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "attnlab/models/weights.h"

namespace attnlab::models {

enum class Site {
  resid_pre,   ///< n by d_model: the residual stream entering the layer
  q,           ///< n by H d_h: the queries, biases included, before QK-norm and RoPE
  k,           ///< n by G d_h: the keys, likewise
  v,           ///< n by G d_h: the values
  pattern,     ///< per query head, n by n: the attention weights (rows = queries); read only
  z,           ///< per query head, n by d_h: the head's output, what W_o reads (zero for a head off)
  attn_out,    ///< n by d_model: the attention's output after W_o and b_o, before a post-norm
  mlp_out,     ///< n by d_model: the MLP's contribution to the residual stream (after its post-norm)
  resid_post,  ///< n by d_model: the residual stream leaving the layer
};

/// "resid_pre", ..., the names the CLI and the documents use.
const char* site_name(Site site);
/// True for the sites that exist once per query head (pattern, z).
bool per_head(Site site);

/// One site of one layer (and one query head for pattern and z; -1 otherwise), 0-based.
struct SitePoint {
  Site site = Site::resid_pre;
  int layer = 0;
  int head = -1;
  bool operator<(const SitePoint& o) const {
    return std::tie(site, layer, head) < std::tie(o.site, o.layer, o.head);
  }
  bool operator==(const SitePoint& o) const { return site == o.site && layer == o.layer && head == o.head; }
  /// "blocks.3.attn.hook_z[1]"-like label for messages: "layer 3 z of head 1".
  std::string label() const;
};

/// What a run calls at each site it passes. `wants` is asked first (once per site and layer), so a
/// run computes nothing extra for the sites nobody asked for; `at` may change `value` in place to
/// replace what the rest of the pass reads (a pattern's changes are ignored: the core computes the
/// head's output from its own weights). A replacement of another shape is refused in one line.
class SiteHooks {
 public:
  virtual ~SiteHooks() = default;
  virtual bool wants(Site site, int layer) const = 0;
  virtual void at(const SitePoint& where, MatrixF& value) = 0;
};

/// Records the sites it was asked to (TransformerLens's run_with_cache).
class SiteCache : public SiteHooks {
 public:
  /// Record `site` in `layer`, or in every layer when layer is -1.
  void record(Site site, int layer = -1) { wanted_.push_back({site, layer}); }
  bool wants(Site site, int layer) const override;
  void at(const SitePoint& where, MatrixF& value) override { values_[where] = value; }
  /// A recorded value; refuses one line naming the site when the run did not pass it.
  const MatrixF& get(const SitePoint& where) const;
  bool has(const SitePoint& where) const { return values_.count(where) > 0; }

 private:
  std::vector<std::pair<Site, int>> wanted_;
  std::map<SitePoint, MatrixF> values_;
};

/// Replaces sites with given values: the whole matrix, or one row of it (a position of the residual
/// stream). Patching is this: the values of one run put into another.
class SitePatch : public SiteHooks {
 public:
  void replace(const SitePoint& where, MatrixF value) { whole_[where] = std::move(value); }
  /// Row `row` of the site only (1 by width).
  void replace_row(const SitePoint& where, Eigen::Index row, MatrixF value) { rows_[where] = {row, std::move(value)}; }
  bool wants(Site site, int layer) const override;
  void at(const SitePoint& where, MatrixF& value) override;

 private:
  std::map<SitePoint, MatrixF> whole_;
  std::map<SitePoint, std::pair<Eigen::Index, MatrixF>> rows_;
};

}  // namespace attnlab::models
