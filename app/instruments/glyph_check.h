#pragma once
/// Glyphs a font lacks are drawn as its fallback glyph, "?": on screen and in the draw lists that
/// looks like a real question mark ("?0.25" where U+2212 was missing). The harness gives every font
/// a fallback of its own, the "?" picture at texture coordinates shifted by a millionth (invisible),
/// so a capture's dump can count the characters that had no glyph, window by window.
#include <nlohmann/json.hpp>

namespace attnlab::app::glyph_check {

/// Before a frame is drawn: every font (fonts are rebuilt when the scale or lecture mode changes)
/// falls back to its marked glyph.
void MarkFallbacks();

/// After a frame is drawn: {"window": count} of marked glyphs in its draw lists; {} when none.
nlohmann::json CountFallbacks();

}  // namespace attnlab::app::glyph_check
