#include "widgets/guide_text.h"

#include <imgui.h>

#include <cfloat>
#include <vector>

#include "widgets/theme.h"

namespace attnlab::app {
namespace {

ImFont* FontFor(GuideSpan::Style style) {
  const Fonts& fonts = GetFonts();
  ImFont* font = style == GuideSpan::Style::Code   ? fonts.mono
                 : style == GuideSpan::Style::Bold ? fonts.bold
                                                   : fonts.ui;
  return font ? font : ImGui::GetFont();
}

// Lays words out left to right, starting a new line where the next word would cross `right_`.
// A word may run across spans ("`W_k`," is code then a comma): it breaks only at spaces.
class WordFlow {
 public:
  explicit WordFlow(float right) : right_(right) {}

  void Span(const GuideSpan& span) {
    ImFont* font = FontFor(span.style);
    const char* p = span.text.data();
    const char* const end = p + span.text.size();
    while (p < end) {
      const char* word_end = p;
      while (word_end < end && *word_end != ' ') ++word_end;
      const char* next = word_end;
      while (next < end && *next == ' ') ++next;  // the spaces after a word belong to it
      pieces_.push_back({font, p, word_end, next});
      if (next != word_end) FlushWord();
      p = next;
    }
  }
  /// Draws the last word.
  void Finish() { FlushWord(); }
  /// Ends the block's last line.
  void EndLine() {
    if (!line_start_) ImGui::NewLine();
  }

 private:
  struct Piece {
    ImFont* font;
    const char *begin, *end, *with_spaces;  ///< [end, with_spaces): spaces, dropped at a break
  };

  static float Width(const Piece& p) {
    return p.font->CalcTextSizeA(p.font->FontSize, FLT_MAX, 0.0f, p.begin, p.end).x;
  }

  void FlushWord() {
    float width = 0.0f;
    for (const Piece& p : pieces_) width += Width(p);
    if (!line_start_ && ImGui::GetCursorScreenPos().x + width > right_) {
      ImGui::NewLine();
      line_start_ = true;
    }
    for (const Piece& p : pieces_) {
      if (line_start_ && p.begin == p.end) continue;  // no line starts with a space
      ImGui::PushFont(p.font);
      ImGui::TextUnformatted(p.begin, p.with_spaces);
      ImGui::PopFont();
      ImGui::SameLine(0.0f, 0.0f);
      line_start_ = false;
    }
    pieces_.clear();
  }

  float right_;
  bool line_start_ = true;
  std::vector<Piece> pieces_;  ///< the word being read
};

}  // namespace

void GuideBlockText(const GuideBlock& block) {
  // Bullet() leaves the cursor where the text goes; the indent keeps wrapped lines under it.
  const float indent = block.bullet ? ImGui::GetTreeNodeToLabelSpacing() : 0.0f;
  if (block.bullet) {
    ImGui::Bullet();
    ImGui::Indent(indent);
  }
  WordFlow flow(ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x);
  // Lines of one block as close as those of wrapped text; the usual gap after the block.
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 0.0f));
  for (const GuideSpan& span : block.spans) flow.Span(span);
  flow.Finish();
  ImGui::PopStyleVar();
  flow.EndLine();
  if (block.bullet) ImGui::Unindent(indent);
}

}  // namespace attnlab::app
