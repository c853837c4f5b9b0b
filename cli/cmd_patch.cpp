// attnlab-cli patch DIR: activation patching between a clean and a corrupted prompt
// (models/patching.h): the logit difference answer - wrong restored by each head's output and by
// the residual stream at each layer and position.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "attnlab/models/patching.h"
#include "commands.h"
#include "model_input.h"

namespace attnlab::cli {
namespace {

using nlohmann::json;

struct PatchOptions {
  std::string dir, clean, corrupt, answer, wrong;
  bool json = false, no_positions = false;
};

json matrix_json(const Eigen::MatrixXd& m) {
  json rows = json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    const Eigen::VectorXd row = m.row(r).transpose();
    rows.push_back(std::vector<double>(row.data(), row.data() + row.size()));
  }
  return rows;
}

void print_summary(const models::HfModel& model, const models::Patching& p) {
  std::cout << model.name() << ": " << model.config().describe() << "\nlogit difference: clean " << p.clean
            << ", corrupted " << p.corrupted << "\nheads (layer x head, (patched - corrupted) / (clean - corrupted)):\n";
  for (Eigen::Index l = 0; l < p.heads.rows(); ++l) {
    std::cout << "layer " << l << ":";
    for (Eigen::Index h = 0; h < p.heads.cols(); ++h) std::cout << " " << p.heads(l, h);
    std::cout << "\n";
  }
}

int run_patch(const PatchOptions& o, const CLI::App& command) {
  for (const char* option : {"--clean", "--corrupt", "--answer", "--wrong"})
    if (!command.count(option))
      throw UsageError(std::string("patch needs --clean TEXT --corrupt TEXT --answer T --wrong T (") + option + " is missing)");
  try {
    const auto model = models::HfModel::open(o.dir);
    // Patching compares the next-token logits of the last position, which an encoder does not
    // predict.
    if (!model->config().causal)
      refuse("model",
             model->config().model_type +
                 " is an encoder: patching compares next-token logits, which it does not predict");
    models::PatchRequest request;
    if (o.clean.empty()) refuse("--clean", "empty: give a prompt");
    if (o.corrupt.empty()) refuse("--corrupt", "empty: give a prompt");
    request.clean = model->encode(o.clean);
    request.corrupted = model->encode(o.corrupt);
    request.answer = one_token(*model, "--answer", o.answer);
    request.wrong = one_token(*model, "--wrong", o.wrong);
    request.positions = !o.no_positions;
    if (request.corrupted.size() != request.clean.size())
      refuse("--corrupt", std::to_string(request.corrupted.size()) + " tokens, --clean has " +
                              std::to_string(request.clean.size()) + ": patching needs the same count");
    const models::Patching p = models::patch(model->transformer(), request);
    if (!o.json) {
      print_summary(*model, p);
      return 0;
    }
    json out = {{"model", model->config().model_type},
                {"clean", {{"ids", request.clean}, {"tokens", tokens_json(*model, request.clean)}}},
                {"corrupt", {{"ids", request.corrupted}, {"tokens", tokens_json(*model, request.corrupted)}}},
                {"answer", {{"id", request.answer}, {"token", decoded(*model, request.answer)}}},
                {"wrong", {{"id", request.wrong}, {"token", decoded(*model, request.wrong)}}},
                {"logit_difference", {{"clean", p.clean}, {"corrupted", p.corrupted}}},
                {"heads", matrix_json(p.heads)}};
    if (request.positions) out["positions"] = matrix_json(p.positions);
    std::cout << out.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
  } catch (const ScenarioError& e) {
    return report_invalid(o.dir, e);
  }
  return 0;
}

}  // namespace

Run add_patch(CLI::App& program) {
  auto o = std::make_shared<PatchOptions>();
  CLI::App* c = program.add_subcommand(
      "patch", "activation patching on a model folder: the logit difference (answer - wrong) of a clean and a\n"
               "corrupted prompt, and how much of it each head's output and the residual stream at each layer\n"
               "and position restore, (patched - corrupted) / (clean - corrupted)");
  c->add_option("DIR", o->dir, "the model's folder")->required()->type_name("");
  c->add_option("--clean", o->clean, "the prompt the model answers: \"When Mary and John went to the store, John gave a drink to\"")
      ->type_name("TEXT")
      ->group(kRequired);
  c->add_option("--corrupt", o->corrupt, "the same number of tokens, changed (the names swapped)")
      ->type_name("TEXT")
      ->group(kRequired);
  c->add_option("--answer", o->answer, "the clean prompt's answer, one token: \" Mary\"")->type_name("T")->group(kRequired);
  c->add_option("--wrong", o->wrong, "the corrupted prompt's answer, one token: \" John\"")->type_name("T")->group(kRequired);
  c->add_flag("--no-positions", o->no_positions, "patch the heads only, not the residual stream per layer x position");
  c->add_flag("--json", o->json, "print the logit differences and both grids as JSON");
  return [o, c] { return run_patch(*o, *c); };
}

}  // namespace attnlab::cli
