#include "attnlab/models/logit_lens.h"

#include <string>

#include "attnlab/scenario.h"

namespace attnlab::models {
namespace {

/// Reads each layer's outgoing residual stream and turns it into the lens's row of that layer.
class LensReader : public SiteHooks {
 public:
  LensReader(const Transformer& model, LogitLens& out, std::optional<int> chosen)
      : model_(model), out_(out), chosen_(chosen) {}
  bool wants(Site site, int) const override { return site == Site::resid_post; }
  void at(const SitePoint& where, MatrixF& residual) override {
    const MatrixF logits = model_.logits(residual);
    std::vector<Prediction>& row = out_.top[std::size_t(where.layer)];
    for (Eigen::Index i = 0; i < logits.rows(); ++i) {
      // softmax in double over the vocabulary, the row's maximum subtracted first
      const Eigen::VectorXd z = logits.row(i).transpose().cast<double>();
      const double top = z.maxCoeff();
      const double total = (z.array() - top).exp().sum();
      Eigen::Index best = 0;
      z.maxCoeff(&best);  // the first maximum: the smaller id on a tie
      row.push_back({int(best), 1.0 / total});
      if (chosen_) out_.chosen(where.layer, i) = std::exp(z[*chosen_] - top) / total;
    }
  }

 private:
  const Transformer& model_;
  LogitLens& out_;
  std::optional<int> chosen_;
};

}  // namespace

std::string logit_lens_refusal(const ModelConfig& config) {
  if (config.causal) return "";
  return config.model_type +
         " is an encoder: the logit lens reads the next token each layer would predict, and an "
         "encoder predicts a masked word instead (the Masked word view)";
}

LogitLens logit_lens(const Transformer& model, const std::vector<int>& ids, std::optional<int> chosen,
                     const std::atomic<bool>* cancelled, const std::vector<HeadRef>& heads_off) {
  const ModelConfig& c = model.config();
  if (!c.causal) refuse("model", logit_lens_refusal(c));
  if (chosen && (*chosen < 0 || *chosen >= c.vocab))
    refuse("--token", std::to_string(*chosen) + " is outside the vocabulary (0 to " + std::to_string(c.vocab - 1) + ")");
  LogitLens out;
  out.ids = ids;
  out.top.resize(std::size_t(c.layers));
  if (chosen) out.chosen = Eigen::MatrixXd::Zero(c.layers, Eigen::Index(ids.size()));
  LensReader reader(model, out, chosen);
  model.run(ids, 1, heads_off, Keep::none(), cancelled, &reader);
  return out;
}

}  // namespace attnlab::models
