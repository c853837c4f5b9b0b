#include "instruments/layout_dump.h"

#include <imgui.h>

#include <exception>

#include <nlohmann/json.hpp>

#include "attnlab/scenario_io.h"
#include "instruments/glyph_check.h"
#include "instruments/model_script.h"
#include "widgets/heatmap.h"
#include "widgets/theme.h"

namespace attnlab::app {

nlohmann::json BandLabelsJson(const HeatmapPlacement& p) {
  nlohmann::json labels = nlohmann::json::array();
  for (const HeatmapPlacement::Label& l : p.band_labels)
    labels.push_back({{"text", l.text}, {"rect", {l.x0, l.y0, l.x1, l.y1}}});
  return labels;
}

nlohmann::json PlacementJson(const HeatmapPlacement& p) {
  return {{"window", p.window},
          {"id", p.id},
          {"matrix", stage_name(p.stage)},
          {"head", p.head},
          {"rows", p.rows},
          {"cols", p.cols},
          {"x0", p.x0},
          {"y0", p.y0},
          {"cell", p.cell},
          {"gap", p.gap},
          {"clip", {p.clip[0], p.clip[1], p.clip[2], p.clip[3]}},
          {"values_drawn", p.values_drawn},
          {"decimals", p.decimals},
          {"value_px", p.value_px},
          {"texture", p.texture},
          {"hidden", p.hidden},
          {"stale", p.stale},
          {"formula_right", p.formula_right},
          {"pooling", p.pooling},
          {"texels", {p.texels_w, p.texels_h}},
          {"colormap", p.colormap},
          {"lo", p.lo},
          {"hi", p.hi},
          {"row_axis", p.row_axis},
          {"col_axis", p.col_axis},
          {"row_labels", p.row_labels},  // [index, text as drawn]
          {"col_labels", p.col_labels},
          {"band_labels", BandLabelsJson(p)},
          {"outlined", p.outlined}};  // [row, col] of each outlined cell
}

bool LayoutDump::Write(const std::string& path, int fb_width, int fb_height, float fb_scale,
                       const AppState& state, std::string* error) const {
  nlohmann::json doc;
  doc["framebuffer"] = {fb_width, fb_height};
  doc["framebuffer_scale"] = fb_scale;
  doc["selected_head"] = state.ui.selected_head;
  doc["colormap"] = ColormapName(state.ui.colormap);
  doc["decimals"] = state.ui.decimals;  // View > Precision
  doc["mono_font_size"] = GetFonts().mono ? GetFonts().mono->FontSize : ImGui::GetFontSize();
  doc["masked_rgb"] = {kMaskedFill.r, kMaskedFill.g, kMaskedFill.b};
  doc["document"] = state.document.name;
  // The hint's colour (the accent, nowhere else in the menu bar) and the bar's height: where a
  // checker looks for it.
  const ImU32 accent = AccentColor();
  doc["first_run_hint"] = {{"due", state.first_run_hint.Due()},
                           {"rgb", {accent & 0xFF, (accent >> 8) & 0xFF, (accent >> 16) & 0xFF}},
                           {"menu_bar_height", ImGui::GetFrameHeight()}};
  nlohmann::json list = nlohmann::json::array();
  for (const HeatmapPlacement& p : placements_) list.push_back(PlacementJson(p));
  doc["heatmaps"] = std::move(list);
  doc["window_arrangement"] = arrangement_;
  doc["model"] = ModelJson(state);
  doc["fallback_glyphs"] = glyph_check::CountFallbacks();  // characters the fonts had no glyph for
  nlohmann::json controls = nlohmann::json::array();
  for (const ControlMark& m : controls_)
    controls.push_back({{"window", m.window},
                        {"id", m.id},
                        {"rect", {m.x0, m.y0, m.x1, m.y1}},
                        {"rows", m.rows},
                        {"cols", m.cols}});
  doc["controls"] = std::move(controls);
  try {
    attnlab::write_file_atomically(path, doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace));
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
  return true;
}

}  // namespace attnlab::app
