#pragma once
/// Draws the guide's paragraphs and bullets (view/guide.h) as wrapped text: **bold** in the bold
/// font, `code` in the monospace one, word by word so the styles can share a line.
#include "view/guide.h"

namespace attnlab::app {

/// One paragraph or bullet, wrapped at the right edge of the current window's content region.
void GuideBlockText(const GuideBlock& block);

}  // namespace attnlab::app
