#pragma once
// The words of the lesson steps that show attention as engines run it (tiles: FlashAttention's
// loop, decode: the KV cache), for lesson_text.cpp.
#include <string>
#include <vector>

#include "attnlab/lesson.h"

namespace attnlab::lesson {

/// "FlashAttention in 2\u00D72 tiles: tile 10 of 16" or "The KV cache: decoding token 7 of 12".
std::string engine_title(const Step& step, const Scenario& s, int head);
/// "Predict first: ..." with each row's m before the tile and the tile's scores. Numbers as the
/// cells write them, with `decimals` (format_number), here and below.
std::string tiles_prompt(const Step& step, const Scenario& s, const Trace& t, int head, int decimals);
/// The tile's rescale row by row, or the decoded token's cache, with the live numbers. `queries`,
/// `tokens`: the tokens' names.
std::string explain_tiles(const Step& step, const Trace& t, int head, const std::vector<std::string>& queries,
                          int decimals);
std::string explain_decode(const Step& step, const Scenario& s, const Trace& t, int head,
                           const std::vector<std::string>& tokens, int decimals);

}  // namespace attnlab::lesson
