#include "instruments/glyph_check.h"

#include <imgui.h>

#include <set>
#include <string>
#include <utility>

namespace attnlab::app::glyph_check {
namespace {

constexpr float kShift = 1e-6f;  // of the atlas's width: a thousandth of a texel at 1024 texels

std::set<std::pair<float, float>>& Markers() {
  static std::set<std::pair<float, float>> markers;  // (U0, V0) of every marked fallback glyph
  return markers;
}

}  // namespace

void MarkFallbacks() {
  for (ImFont* font : ImGui::GetIO().Fonts->Fonts) {
    const ImFontGlyph* fallback = font->FallbackGlyph;
    if (!fallback || Markers().count({fallback->U0, fallback->V0})) continue;
    ImFontGlyph marked = *fallback;
    marked.U0 += kShift;
    marked.U1 += kShift;
    font->Glyphs.push_back(marked);  // the lookup table holds indices: no other glyph moves
    font->FallbackGlyph = &font->Glyphs.back();
    Markers().insert({marked.U0, marked.V0});
  }
}

nlohmann::json CountFallbacks() {
  nlohmann::json counts = nlohmann::json::object();
  const ImDrawData* data = ImGui::GetDrawData();
  if (!data) return counts;
  for (int l = 0; l < data->CmdListsCount; ++l) {
    const ImDrawList* list = data->CmdLists[l];
    int n = 0;
    for (const ImDrawVert& v : list->VtxBuffer) n += int(Markers().count({v.uv.x, v.uv.y}));  // a quad's first corner
    if (n > 0) counts[list->_OwnerName ? list->_OwnerName : "?"] = n;
  }
  return counts;
}

}  // namespace attnlab::app::glyph_check
