// attnlab-cli heads DIR: the head finder (models/head_finder.h) on a model folder: previous-token,
// first-token, duplicate-token, induction and local-span scores of every layer x head.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "args.h"
#include "attnlab/models/head_finder.h"
#include "commands.h"
#include "model_input.h"

namespace attnlab::cli {
namespace {

using nlohmann::json;

struct HeadsOptions {
  std::string dir, text, ids, repeat, seed = "0";
  bool json = false;
};

json score_json(const Eigen::MatrixXd& score) {
  json layers = json::array();
  for (Eigen::Index l = 0; l < score.rows(); ++l) {
    json row = json::array();
    for (Eigen::Index h = 0; h < score.cols(); ++h) row.push_back(number_or_null(score(l, h)));
    layers.push_back(std::move(row));
  }
  return layers;
}

/// Each score's five highest heads: "previous_token  3.2 0.91  0.4 0.55 ...".
void print_table(const models::HfModel& model, const models::HeadScores& scores) {
  std::cout << model.name() << ": " << model.config().describe() << "\n";
  for (int s = 0; s < models::kHeadScores; ++s) {
    const Eigen::MatrixXd& score = scores.scores[std::size_t(s)];
    std::vector<std::pair<double, models::HeadRef>> ranked;
    for (int l = 0; l < score.rows(); ++l)
      for (int h = 0; h < score.cols(); ++h)
        if (std::isfinite(score(l, h))) ranked.push_back({score(l, h), {l, h}});
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::cout << models::score_name(models::HeadScore(s)) << ":";
    if (ranked.empty()) std::cout << " undefined on these tokens";
    for (std::size_t i = 0; i < std::min<std::size_t>(5, ranked.size()); ++i)
      std::cout << "  " << ranked[i].second.layer << "." << ranked[i].second.head << " " << ranked[i].first;
    std::cout << "\n";
  }
}

int run_heads(const HeadsOptions& o, const CLI::App& command) {
  const bool text = command.count("--text") > 0, ids = command.count("--ids") > 0,
             repeat = command.count("--random-repeat") > 0;
  if (text && ids) throw UsageError("give --text or --ids, not both");
  if (!text && !ids && !repeat) throw UsageError("heads needs --text TEXT, --ids LIST or --random-repeat R");
  if (command.count("--seed") && !repeat) throw UsageError("--seed needs --random-repeat R");
  const std::vector<int> given_ids = ids ? parse_ids("--ids", o.ids) : std::vector<int>{};
  const int length = repeat ? whole_number("--random-repeat", o.repeat, 1, INT_MAX) : 0;
  const int seed = whole_number("--seed", o.seed, 0, INT_MAX);
  try {
    const auto model = models::HfModel::open(o.dir);
    const models::Transformer& transformer = model->transformer();
    json out = {{"model", model->config().model_type}, {"layers", model->config().layers},
                {"heads", model->config().heads}};
    models::HeadScores scores;
    if (repeat) {
      const models::RepeatedIds repeated = models::random_repeat(*model, length, std::uint64_t(seed));
      scores = models::find_heads(transformer, repeated.ids, repeated.repeat);
      out["repeat"] = {{"length", length}, {"seed", seed}, {"ids", repeated.ids},
                       {"tokens", tokens_json(*model, repeated.ids)}};
    }
    if (text || ids) {  // the other four scores on the given tokens; induction stays the repeat's
      const std::vector<int> tokens = text ? model->encode(o.text) : given_ids;
      models::HeadScores on_text = models::find_heads(transformer, tokens);
      if (repeat) on_text.scores[std::size_t(models::HeadScore::induction)] = scores[models::HeadScore::induction];
      scores = std::move(on_text);
    }
    if (!o.json) {
      print_table(*model, scores);
      return 0;
    }
    out["ids"] = scores.ids;
    out["tokens"] = tokens_json(*model, scores.ids);
    json by_name;
    for (int s = 0; s < models::kHeadScores; ++s)
      by_name[models::score_name(models::HeadScore(s))] = score_json(scores.scores[std::size_t(s)]);
    out["scores"] = std::move(by_name);
    std::cout << out.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
  } catch (const ScenarioError& e) {
    return report_invalid(o.dir, e);
  }
  return 0;
}

}  // namespace

Run add_heads(CLI::App& program) {
  auto o = std::make_shared<HeadsOptions>();
  CLI::App* c = program.add_subcommand(
      "heads", "the head finder on a model folder: previous-token, first-token (sink), duplicate-token,\n"
               "induction and local-span scores of every layer x head (docs/MODELS.md)");
  c->add_option("DIR", o->dir, "the model's folder")->required()->type_name("");
  c->add_option("--text", o->text, "the text the scores read (with the tokenizer's BOS, if it adds one)")->type_name("TEXT");
  c->add_option("--ids", o->ids, "token ids instead of a text: 464,3797,...")->type_name("LIST");
  c->add_option("--random-repeat", o->repeat,
                "R random tokens repeated twice (BOS first when the tokenizer adds one): the induction\n"
                "score's sequence; alone, every score is read on it")
      ->type_name("R");
  c->add_option("--seed", o->seed, "the random tokens' seed (default 0)")->type_name("S");
  c->add_flag("--json", o->json,
              "print every score of every head as JSON (layers x heads, null where a score is undefined)");
  return [o, c] { return run_heads(*o, *c); };
}

}  // namespace attnlab::cli
