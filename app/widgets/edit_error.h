#pragma once
/// The refusal message of an edit, shown beside the control that made it.
#include "session/document.h"

namespace attnlab::app {

/// Draws Document::EditErrorFor(source) in the error colour, wrapped, scrolled into view; nothing
/// when there is none.
void ShowEditError(const Document& document, const char* source);

}  // namespace attnlab::app
