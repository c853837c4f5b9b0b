#pragma once
/// Tiles panel: FlashAttention-2's forward loop (core/include/attnlab/flash.h) on the selected head,
/// one tile at a time: the masked scores with the tile grid, the current tile outlined and the
/// skipped ones hatched; the running m, l, alpha and O of the tile's query block; the finished
/// O / l beside the head output the Pipeline shows; the memory line. Steps with the Left and Right
/// keys (panel focused or hovered), a slider and a play button; every hovered m, l, alpha or O
/// writes its rescale out in a tooltip.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_tiles {

/// The panel, with its block sizes, its step and its cached run.
std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_tiles
