#pragma once
/// Next token: the open model's most likely next tokens after the text, with probability bars.
/// When the document is a layer of that model (a map clicked in the Model panel), the prediction
/// after the document's edits of that layer (a head switched off, a weight typed) beside the
/// model's own: "␣mat 0.41 → 0.12".
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_next_token {

std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_next_token
