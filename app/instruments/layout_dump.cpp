#include "instruments/layout_dump.h"

#include <exception>

#include <nlohmann/json.hpp>

#include "attnlab/scenario_io.h"
#include "widgets/heatmap.h"

namespace attnlab::app {

bool LayoutDump::Write(const std::string& path, int fb_width, int fb_height, float fb_scale,
                       const AppState& state, std::string* error) const {
  nlohmann::json doc;
  doc["framebuffer"] = {fb_width, fb_height};
  doc["framebuffer_scale"] = fb_scale;
  doc["selected_head"] = state.ui.selected_head;
  doc["colormap"] = ColormapName(state.ui.colormap);
  doc["masked_rgb"] = {kMaskedFill.r, kMaskedFill.g, kMaskedFill.b};
  doc["document"] = state.document.name;
  nlohmann::json list = nlohmann::json::array();
  for (const HeatmapPlacement& p : placements_) {
    nlohmann::json labels = nlohmann::json::array();
    for (const HeatmapPlacement::Label& l : p.band_labels)
      labels.push_back({{"text", l.text}, {"rect", {l.x0, l.y0, l.x1, l.y1}}});
    list.push_back({{"window", p.window},
                    {"id", p.id},
                    {"matrix", StageName(p.stage)},
                    {"head", p.head},
                    {"rows", p.rows},
                    {"cols", p.cols},
                    {"x0", p.x0},
                    {"y0", p.y0},
                    {"cell", p.cell},
                    {"gap", p.gap},
                    {"clip", {p.clip[0], p.clip[1], p.clip[2], p.clip[3]}},
                    {"values_drawn", p.values_drawn},
                    {"texture", p.texture},
                    {"pooling", p.pooling},
                    {"texels", {p.texels_w, p.texels_h}},
                    {"colormap", p.colormap},
                    {"lo", p.lo},
                    {"hi", p.hi},
                    {"band_labels", std::move(labels)}});
  }
  doc["heatmaps"] = std::move(list);
  nlohmann::json controls = nlohmann::json::array();
  for (const ControlMark& m : controls_)
    controls.push_back({{"window", m.window},
                        {"id", m.id},
                        {"rect", {m.x0, m.y0, m.x1, m.y1}},
                        {"rows", m.rows},
                        {"cols", m.cols}});
  doc["controls"] = std::move(controls);
  try {
    attnlab::write_file_atomically(path, doc.dump(1));
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
  return true;
}

}  // namespace attnlab::app
