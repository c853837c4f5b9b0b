#include <algorithm>

#include "attnlab/message_text.h"
#include "attnlab/models/hf_model.h"
#include "attnlab/numbering.h"
#include "byte_level.h"

namespace attnlab::models {
namespace {

/// The text of `ids`, escaped where its bytes are not UTF-8 (ids that cut a character: "\xF0\x9F"),
/// since a scenario file is JSON, which holds only UTF-8.
std::string sentence(const HfModel& model, const std::vector<int>& ids) {
  std::string text;
  for (int id : ids) text += model.tokenizer() && model.tokenizer()->contains(id) ? model.tokenizer()->decode(id) : " #" + std::to_string(id);
  return printable_text(text);
}

/// `path` as is when it is UTF-8 (the window finds the folder by it), else escaped.
std::string utf8_path(const std::string& path) {
  for (std::size_t i = 0, n; i < path.size(); i += n)
    if ((n = detail::utf8_sequence(path, i)) == 0) return printable_text(path);
  return path;
}

}  // namespace

Scenario layer_scenario(const HfModel& model, const ForwardRun& run, int layer,
                        const std::string& text, const std::string& pair) {
  const ModelConfig& c = model.config();
  if (layer < 0 || layer >= int(run.layers.size()))
    refuse("layer", std::to_string(layer) + " is out of range: the model has layers 0 to " +
                        std::to_string(int(run.layers.size()) - 1));
  if (run.layers[std::size_t(layer)].attn_in.size() == 0)
    refuse("layer", std::to_string(layer) + " was not kept by the run");
  const LayerRun& recorded = run.layers[std::size_t(layer)];
  Scenario s = model.transformer().attention_scenario(layer, recorded.attn_in, run.heads_off);
  // Counted from 0 as everywhere (attnlab/numbering.h): "layer 5 (of 0-11)".
  s.title = printable_text(model.name()) + ", " + layer_label(layer) + " (of 0\xE2\x80\x93" +
            index_text(c.layers - 1) + ")";
  const std::string special = c.layer_caption(layer);
  s.notes = "Layer index " + std::to_string(layer) + " (0-based) of " + printable_text(model.name()) + " (" + c.describe() +
            ")" + (special.empty() ? "" : " (this layer: " + special + ")") + " on \"" + sentence(model, run.ids) +
            "\". X is what the layer's attention reads (" + model.transformer().attention_input() +
            "); the output is the attention's output (after W_o), what the model adds to its residual stream" +
            (model.transformer().has_post_norm() ? " after a norm." : ".");
  s.tokens = model.labels(run.ids);
  s.view["model"] = {{"folder", utf8_path(model.dir().string())},
                     {"model_type", c.model_type},
                     {"layer", layer},
                     {"ids", run.ids},
                     {"weights", model.weights_id()},
                     {"dtype", model.dtype()}};
  if (!text.empty()) s.view["model"]["text"] = text;  // encoded by the tokenizer: valid UTF-8
  if (!pair.empty()) s.view["model"]["pair"] = pair;
  return s;
}

}  // namespace attnlab::models
