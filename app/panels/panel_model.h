#pragma once
/// Model: a Hugging Face model opened beside the document (session/model_lab.h). A text field (the
/// model re-runs as it is typed), the tokens as its tokenizer splits them, and every layer's and
/// head's attention weights in one grid (rows = layers, columns = heads, as BertViz's model view);
/// hovering a map shows it large with its tokens, clicking one opens that layer as the document with
/// that head selected.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_model {

std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_model
