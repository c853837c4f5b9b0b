// attnlab-cli model DIR: a Hugging Face model folder (GPT-2, Llama, Qwen2) on a text or on token ids:
// the prediction, every layer's and head's attention as JSON, or one layer as a scenario file.
#include <CLI/CLI.hpp>
#include <climits>
#include <filesystem>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "args.h"
#include "attnlab/message_text.h"
#include "attnlab/models/hf_model.h"
#include "attnlab/scenario_io.h"
#include "commands.h"
#include "model_input.h"

namespace attnlab::cli {
namespace {

using nlohmann::json;

struct ModelOptions {
  std::string dir, text, pair, ids, layer, out, top = "5", heads_off;
  bool attention = false;
};

/// --out names a file to write in a folder that exists: checked before the model is read and run.
void check_out(const std::string& out) {
  std::error_code error;
  const std::filesystem::path path(out);
  if (std::filesystem::is_directory(path, error))
    throw UsageError("--out " + quote_arg(out) + " is a folder: give the name of a file to write in it");
  const std::filesystem::path folder = path.parent_path().empty() ? "." : path.parent_path();
  if (!std::filesystem::is_directory(folder, error))
    throw UsageError("--out " + quote_arg(out) + ": the folder " + quote_arg(folder.string()) + " does not exist");
}

/// What the options ask for, checked before the model is opened.
void check_request(const ModelOptions& o, const CLI::App& command) {
  const bool text = command.count("--text") > 0, ids = command.count("--ids") > 0;
  if (text == ids) throw UsageError(text ? "give --text or --ids, not both" : "model needs --text TEXT or --ids LIST");
  if (command.count("--pair") > 0 && !text)
    throw UsageError("--pair needs --text (the first sentence of the pair)");
  if (o.layer.empty() != o.out.empty())
    throw UsageError(o.out.empty() ? "--layer needs --out FILE.json" : "--out needs --layer L (the layer to write)");
  if (o.attention && !o.out.empty()) throw UsageError("give --attention or --layer, not both");
  if (!o.out.empty()) check_out(o.out);
}

json predictions_json(const models::HfModel& model, const std::vector<models::Prediction>& next) {
  json list = json::array();
  for (const models::Prediction& p : next) list.push_back({{"id", p.id}, {"token", decoded(model, p.id)}, {"p", p.p}});
  return list;
}

/// An encoder's masked-word predictions: the top tokens at each of `positions`.
json masked_json(const models::HfModel& model, const models::ForwardRun& run,
                 const std::vector<int>& positions, int top) {
  json list = json::array();
  for (int position : positions)
    list.push_back({{"position", position},
                    {"top", predictions_json(model, model.transformer().predict_at(
                                                        run.output, position, top))}});
  return list;
}

json attention_json(const models::HfModel& model, const models::ForwardRun& run,
                    const std::vector<int>& masked, int top) {
  json tokens = json::array(), layers = json::array();
  for (int id : run.ids) tokens.push_back(decoded(model, id));
  for (std::size_t l = 0; l < run.layers.size(); ++l) {
    const models::LayerRun& layer = run.layers[l];
    json heads = json::array();
    for (const models::MatrixF& w : layer.weights) {
      json rows = json::array();
      for (Eigen::Index i = 0; i < w.rows(); ++i) rows.push_back(std::vector<float>(w.row(i).data(), w.row(i).data() + w.cols()));
      heads.push_back({{"weights", std::move(rows)}});
    }
    // What the layer's mask and positions are beside the causal default (a local layer's window,
    // a layer without RoPE), so a reader of the weights knows which zeros are masked.
    const models::LayerAttention& variant = model.config().attention[l];
    json entry = {{"heads", std::move(heads)}};
    if (variant.window > 0) entry["window"] = variant.window;
    if (!model.config().layer_caption(int(l)).empty()) entry["caption"] = model.config().layer_caption(int(l));
    layers.push_back(std::move(entry));
  }
  json out = {{"model", model.config().model_type}, {"tokens", tokens}, {"ids", run.ids}};
  if (!run.types.empty()) out["types"] = run.types;
  out["layers"] = std::move(layers);
  if (model.config().causal)
    out["next"] = predictions_json(model, run.next);
  else
    out["masked"] = masked_json(model, run, masked, top);
  return out;
}

/// --attention's JSON, built whole before it is printed, takes about 40 bytes a weight beside the run.
void check_printable(const models::HfModel& model, std::size_t tokens) {
  const models::ModelConfig& c = model.config();
  const double n = double(tokens), weights = double(c.layers) * c.heads * n * n;
  const std::string count = std::to_string(tokens);
  models::require_memory(model.transformer().run_bytes(tokens, models::Keep::all()) + 40.0 * weights, "ids",
                         count + " tokens printed with every layer's and head's " + count + " x " + count +
                             " weights (--attention)");
}

void print_summary(const models::HfModel& model, const models::ForwardRun& run,
                   const std::vector<int>& masked, int top) {
  std::cout << model.name() << ": " << model.config().describe() << ", " << model.dtype() << "\n";
  if (!model.tokenizer_error().empty()) std::cout << "tokenizer: " << model.tokenizer_error() << "\n";
  std::cout << "tokens:";
  for (int id : run.ids) std::cout << " " << model.label(id);
  if (model.config().causal) {
    std::cout << "\nnext:";
    for (const models::Prediction& p : run.next)
      std::cout << "  " << model.label(p.id) << " " << p.p;
  }
  for (int position : masked) {
    std::cout << "\nmasked " << position << ":";
    for (const models::Prediction& p : model.transformer().predict_at(run.output, position, top))
      std::cout << "  " << model.label(p.id) << " " << p.p;
  }
  std::cout << "\n";
}

int run_model(const ModelOptions& o, const CLI::App& command) {
  check_request(o, command);
  const int top = whole_number("--top", o.top, 1, 100);
  const std::vector<int> given_ids = command.count("--ids") ? parse_ids("--ids", o.ids) : std::vector<int>{};
  const int layer = o.layer.empty() ? -1 : whole_number("--layer", o.layer, 0, INT_MAX);
  const std::vector<models::HeadRef> heads_off = parse_heads_off(o.heads_off);
  try {
    const auto model = models::HfModel::open(o.dir);
    const bool pair = command.count("--pair") > 0;
    if (pair && model->config().causal)
      refuse("--pair", model->config().model_type +
                           " is a decoder and reads one text; a pair is for the encoders (bert, "
                           "distilbert, roberta)");
    models::Tokenizer::Encoding input;
    if (pair)
      input = model->encode_pair(o.text, o.pair);
    else
      input.ids = command.count("--text") ? model->encode(o.text) : given_ids;
    const std::vector<int>& ids = input.ids;
    // An encoder predicts the words at its [MASK]s; a run that prints predictions needs one.
    std::vector<int> masked;
    if (!model->config().causal && layer < 0) {
      const std::optional<int> mask = model->mask_id();
      for (std::size_t i = 0; mask && i < ids.size(); ++i)
        if (ids[i] == *mask) masked.push_back(int(i));
      const std::string field = command.count("--text") ? "text" : "ids",
                        type = model->config().model_type;
      if (!mask)
        refuse(
            field,
            type + " predicts the word at a mask token, and its tokenizer has no [MASK] or <mask>");
      const std::string token = model->tokenizer()->token(*mask);
      if (masked.empty())
        refuse(field, "no " + token + " in it: " + type +
                          " predicts the word at a mask token (type " + token +
                          " where a word is hidden)");
    }
    // --attention prints every layer's weights, --layer writes one, a plain run needs none.
    const models::Keep keep = o.attention ? models::Keep::all() : layer >= 0 ? models::Keep::only(layer) : models::Keep::none();
    if (o.attention) check_printable(*model, ids.size());
    // DistilBERT has no token types: its pair is the ids alone.
    const std::vector<int> types =
        model->config().type_vocab > 0 ? input.type_ids : std::vector<int>{};
    const models::ForwardRun run =
        model->transformer().run(ids, top, heads_off, keep, nullptr, nullptr, types);
    if (layer >= 0) {
      const Scenario scenario =
          models::layer_scenario(*model, run, layer, command.count("--text") ? o.text : "", o.pair);
      try {
        save_scenario(scenario, o.out);
      } catch (const std::exception& e) {  // a full disk, no permission: the message names the file
        std::cerr << one_line_message(std::string("attnlab-cli: ") + e.what()) << "\n";
        return 1;
      }
    } else if (o.attention) {
      std::cout << attention_json(*model, run, masked, top)
                       .dump(-1, ' ', false, json::error_handler_t::replace)
                << "\n";
    } else {
      print_summary(*model, run, masked, top);
    }
  } catch (const ScenarioError& e) {
    return report_invalid(o.dir, e);
  }
  return 0;
}

}  // namespace

Run add_model(CLI::App& program) {
  auto o = std::make_shared<ModelOptions>();
  CLI::App* c = program.add_subcommand("model",
                                       "a Hugging Face model folder (gpt2, llama, qwen2, bert, "
                                       "roberta...: config.json, safetensors,\n"
                                       "tokenizer) on a text: the next token (an encoder: the word "
                                       "at each [MASK]), every layer's and\n"
                                       "head's attention, or one layer as a scenario");
  c->add_option("DIR", o->dir, "the model's folder (config.json, model.safetensors or its shards, tokenizer.json\n"
                               "or vocab.json + merges.txt)")
      ->required()
      ->type_name("");
  c->add_option("--text", o->text, "the text, split by the model's tokenizer (with its BOS, if it adds one)")
      ->type_name("TEXT")
      ->group(kRequired);
  c->add_option("--pair", o->pair,
                "an encoder's second sentence: [CLS] TEXT [SEP] PAIR [SEP], token types 0 then 1")
      ->type_name("TEXT");
  c->add_option("--ids", o->ids, "token ids instead of a text, used exactly as given: 464,3797,...")->type_name("LIST");
  c->add_flag("--attention", o->attention,
              "print every layer's and query head's weights (rows = queries, columns = keys),\nthe "
              "tokens and the "
              "next tokens (an encoder: the top tokens at each [MASK]) as JSON");
  c->add_option("--layer", o->layer, "write this layer (0-based) as a scenario file (needs --out)")->type_name("L");
  c->add_option("--out", o->out, "the scenario file --layer writes")->type_name("FILE.json");
  c->add_option("--heads-off", o->heads_off,
                "switch these heads off (output zeroed) before predicting: LAYER.HEAD items, both\n0-based as in "
                "scenario files: 5.0,11.3")
      ->type_name("LIST");
  c->add_option("--top", o->top, "how many next tokens to list (default 5)")->type_name("N");
  return [o, c] { return run_model(*o, *c); };
}

}  // namespace attnlab::cli
