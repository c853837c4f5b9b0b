// attnlab-cli lens DIR: the logit lens (models/logit_lens.h): after each layer, the top token and its
// probability at every position, and the probability of a chosen token.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "attnlab/message_text.h"
#include "attnlab/models/logit_lens.h"
#include "commands.h"
#include "model_input.h"

namespace attnlab::cli {
namespace {

using nlohmann::json;

struct LensOptions {
  std::string dir, text, ids, token, heads_off;
  bool json = false;
};

void print_table(const models::HfModel& model, const models::LogitLens& lens) {
  std::cout << model.name() << ": " << model.config().describe() << "\nposition:";
  for (int id : lens.ids) std::cout << "\t" << model.label(id);
  for (std::size_t l = 0; l < lens.top.size(); ++l) {
    std::cout << "\nlayer " << l << ":";
    for (const models::Prediction& p : lens.top[l]) std::cout << "\t" << model.label(p.id) << " " << p.p;
  }
  std::cout << "\n";
}

int run_lens(const LensOptions& o, const CLI::App& command) {
  const bool text = command.count("--text") > 0, ids = command.count("--ids") > 0;
  if (text == ids) throw UsageError(text ? "give --text or --ids, not both" : "lens needs --text TEXT or --ids LIST");
  const std::vector<int> given_ids = ids ? parse_ids("--ids", o.ids) : std::vector<int>{};
  const std::vector<models::HeadRef> heads_off = parse_heads_off(o.heads_off);
  try {
    const auto model = models::HfModel::open(o.dir);
    const std::vector<int> tokens = text ? model->encode(o.text) : given_ids;
    std::optional<int> chosen;
    if (command.count("--token")) chosen = one_token(*model, "--token", o.token);
    const models::LogitLens lens = models::logit_lens(model->transformer(), tokens, chosen, nullptr, heads_off);
    if (!o.json) {
      print_table(*model, lens);
      return 0;
    }
    json layers = json::array();
    for (std::size_t l = 0; l < lens.top.size(); ++l) {
      json top = json::array();
      for (const models::Prediction& p : lens.top[l]) top.push_back({{"id", p.id}, {"token", decoded(*model, p.id)}, {"p", p.p}});
      json layer = {{"top", std::move(top)}};
      if (chosen) {
        const Eigen::VectorXd row = lens.chosen.row(Eigen::Index(l)).transpose();
        layer["chosen_p"] = std::vector<double>(row.data(), row.data() + row.size());
      }
      layers.push_back(std::move(layer));
    }
    json out = {{"model", model->config().model_type}, {"ids", lens.ids}, {"tokens", tokens_json(*model, lens.ids)},
                {"layers", std::move(layers)}};
    if (chosen) out["chosen"] = {{"id", *chosen}, {"token", decoded(*model, *chosen)}};
    std::cout << out.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
  } catch (const ScenarioError& e) {
    return report_invalid(o.dir, e);
  }
  return 0;
}

}  // namespace

Run add_lens(CLI::App& program) {
  auto o = std::make_shared<LensOptions>();
  CLI::App* c = program.add_subcommand(
      "lens", "the logit lens on a model folder: after each layer, the residual stream through the final\n"
              "norm and the unembedding; the top token and its probability at every position");
  c->add_option("DIR", o->dir, "the model's folder")->required()->type_name("");
  c->add_option("--text", o->text, "the text (with the tokenizer's BOS, if it adds one)")->type_name("TEXT")->group(kRequired);
  c->add_option("--ids", o->ids, "token ids instead of a text: 464,3797,...")->type_name("LIST");
  c->add_option("--token", o->token, "also the probability of this token (a text of one token: \" Paris\")\n"
                                     "after each layer at every position")
      ->type_name("T");
  c->add_option("--heads-off", o->heads_off,
                "switch these heads off first (output zeroed), as model --heads-off: 1.1,0.0")
      ->type_name("LIST");
  c->add_flag("--json", o->json, "print the lens as JSON (per layer: each position's top token, and --token's p)");
  return [o, c] { return run_lens(*o, *c); };
}

}  // namespace attnlab::cli
