#include "attnlab/models/patching.h"

#include <string>

#include "attnlab/scenario.h"

namespace attnlab::models {
namespace {

double logit_difference(const Transformer& model, const MatrixF& final_residual, const PatchRequest& r) {
  const Eigen::VectorXd z = model.logits_of(final_residual, final_residual.rows() - 1, {r.answer, r.wrong});
  return z[0] - z[1];
}

}  // namespace

void check_patch_prompts(const std::vector<int>& clean, const std::vector<int>& corrupted) {
  if (clean.empty()) refuse("clean", "empty: give a prompt of at least one token");
  if (corrupted.empty()) refuse("corrupt", "empty: give a prompt of at least one token");
  if (corrupted.size() != clean.size())
    refuse("corrupt", std::to_string(corrupted.size()) + " tokens, the clean prompt has " +
                          std::to_string(clean.size()) + ": patching needs the same count");
}

void check_patch_request(const ModelConfig& c, const PatchRequest& r) {
  check_patch_prompts(r.clean, r.corrupted);
  for (const auto& [field, id] : {std::pair<const char*, int>{"answer", r.answer}, {"wrong", r.wrong}})
    if (id < 0 || id >= c.vocab)
      refuse(field, std::to_string(id) + " is outside the vocabulary (0 to " + std::to_string(c.vocab - 1) + ")");
  if (r.answer == r.wrong) refuse("wrong", "the same token as the answer: the logit difference is always 0");
}

Patching patch(const Transformer& model, const PatchRequest& request, const Progress& progress,
               const std::atomic<bool>* cancelled) {
  const ModelConfig& c = model.config();
  check_patch_request(c, request);
  const Eigen::Index n = Eigen::Index(request.clean.size());
  // What patching keeps, in float: per layer both runs' residual stream and heads' outputs, the
  // corrupted run's q, k and v; and a layer's batch of heads (every head's rows, its MLP's too).
  const double q_width = double(c.heads) * c.head_dim, kv_width = double(c.kv_heads) * c.head_dim;
  const double kept = double(c.layers) * double(n) * (2.0 * c.d_model + 3.0 * q_width + 2.0 * kv_width);
  const double batch = double(c.heads) * double(n) * (3.0 * c.d_model + 2.0 * q_width + 2.0 * kv_width + 2.0 * c.d_mlp);
  require_memory(4.0 * (kept + batch) + model.run_bytes(request.clean.size(), Keep::none()), "clean",
                 std::to_string(n) + " tokens patched in every layer and head");
  SiteCache clean_cache, corrupted_cache;
  clean_cache.record(Site::resid_pre);
  clean_cache.record(Site::z);
  for (Site site : {Site::resid_pre, Site::z, Site::q, Site::k, Site::v}) corrupted_cache.record(site);
  Patching out;
  out.clean = logit_difference(model, model.run_from(0, model.embed(request.clean), &clean_cache, cancelled), request);
  out.corrupted =
      logit_difference(model, model.run_from(0, model.embed(request.corrupted), &corrupted_cache, cancelled), request);
  const double span = out.clean - out.corrupted;
  if (span == 0)
    refuse("corrupt", "gives the same logit difference as the clean prompt (" + std::to_string(out.clean) +
                          "): nothing to normalise");
  const int total = c.layers * c.heads + (request.positions ? c.layers * int(n) : 0);
  int done = 0;
  const auto normalised = [&](const MatrixF& final_residual) {
    if (progress) progress(++done, total);
    return (logit_difference(model, final_residual, request) - out.corrupted) / span;
  };
  // Attention is causal: the two runs are equal before the first token that differs, and so is every
  // patched run; only the rows from there on are recomputed (rerun_rows).
  Eigen::Index first = 0;
  while (request.clean[std::size_t(first)] == request.corrupted[std::size_t(first)]) ++first;
  const Eigen::Index changed = n - first;
  // A head's patch starts at its layer's W_o: the corrupted run's z with that head's columns from the
  // clean run.
  out.heads.resize(c.layers, c.heads);
  const Eigen::Index dh = c.head_dim;
  // The layer's heads run as one batch: their rows stacked, one block per head.
  for (int l = 0; l < c.layers; ++l) {
    MatrixF corrupted_z(changed, c.heads * dh);
    for (int h = 0; h < c.heads; ++h)
      corrupted_z.middleCols(h * dh, dh) = corrupted_cache.get({Site::z, l, h}).bottomRows(changed);
    const MatrixF start = corrupted_cache.get({Site::resid_pre, l}).bottomRows(changed);
    MatrixF starts(changed * c.heads, c.d_model), z(changed * c.heads, c.heads * dh);
    for (int h = 0; h < c.heads; ++h) {
      starts.middleRows(h * changed, changed) = start;
      z.middleRows(h * changed, changed) = corrupted_z;
      z.block(h * changed, h * dh, changed, dh) = clean_cache.get({Site::z, l, h}).bottomRows(changed);
    }
    const MatrixF last = model.rerun_rows(l, std::move(starts), first, corrupted_cache, &z, cancelled, c.heads);
    for (int h = 0; h < c.heads; ++h) out.heads(l, h) = normalised(last.row(h));
  }
  if (!request.positions) return out;
  // A position's patch changes the rows from that position on (none before `first`: there the two
  // runs are equal and the patch changes nothing).
  out.positions = Eigen::MatrixXd::Zero(c.layers, n);
  for (int l = 0; l < c.layers; ++l) {
    const MatrixF& clean = clean_cache.get({Site::resid_pre, l});
    const MatrixF& corrupted = corrupted_cache.get({Site::resid_pre, l});
    for (Eigen::Index i = 0; i < n; ++i) {
      if (i < first) {  // the clean row is the corrupted one: the patch changes nothing (0)
        if (progress) progress(++done, total);
        continue;
      }
      MatrixF start = corrupted.bottomRows(n - i);
      start.row(0) = clean.row(i);
      out.positions(l, i) = normalised(model.rerun_rows(l, std::move(start), i, corrupted_cache, nullptr, cancelled));
    }
  }
  return out;
}

}  // namespace attnlab::models
