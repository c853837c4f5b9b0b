#pragma once
/// How layers and heads are counted and written, in one place: from 0 everywhere (the window, the
/// CLI, files, exports, lessons), as scenario files index `heads[h]`, as TransformerLens and
/// interpretability papers do; a model's head is written layer.head ("head 4.2": layer 4's head 2).
#include <string>

namespace attnlab {

/// The number a layer or head of 0-based `index` is shown as: "4".
std::string index_text(int index);

/// "head 2"; the short form "h2" where a band is too narrow for the word.
std::string head_label(int head);
std::string short_head_label(int head);

/// "K/V head 1": a key/value head of grouped-query attention.
std::string kv_head_label(int kv_head);

/// "layer 4".
std::string layer_label(int layer);

/// A model's head by its layer: "head 4.2", as `--heads-off 4.2` and the papers write it.
std::string model_head_label(int layer, int head);

}  // namespace attnlab
