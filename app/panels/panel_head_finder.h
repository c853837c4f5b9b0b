#pragma once
/// Head finder: which head of the open model does what (issue 39, models/head_finder.h). One grid
/// per score (previous-token, induction, duplicate-token, first-token, local span), layers down and
/// heads across as in the Model panel's grid, each with its highest heads listed under it; hovering
/// a head gives its score and the formula in words, clicking it opens its layer as the document with
/// that head selected. The scores read the Model panel's text (the induction score R random tokens
/// repeated twice), or every score the repeat, as `attnlab-cli heads` does; they are computed off the
/// UI thread (session/instrument_runs.h) and computed again when the text changes.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_head_finder {

std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_head_finder
