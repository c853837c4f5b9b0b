#include "widgets/attention_lines.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attnlab/export/lines.h"
#include "attnlab/numbering.h"
#include "view/label_fit.h"
#include "view/stage_labels.h"
#include "widgets/matrix_editor.h"
#include "widgets/theme.h"

namespace attnlab::app {

void AttentionLinesState::Toggle(int head) {
  if (head < 0) return;
  if (head >= int(hidden.size())) hidden.resize(std::size_t(head) + 1, 0);
  hidden[std::size_t(head)] = !hidden[std::size_t(head)];
}

namespace {

// Weight of head h, query i, key j, whatever the layout (columns: the transpose).
double WeightOf(const attnlab::Trace& t, int h, int i, int j) {
  const attnlab::Matrix& w = t.heads[std::size_t(h)].weights;
  return t.layout == attnlab::Layout::rows ? w(i, j) : w(j, i);
}

// One swatch a head: a click hides or shows its lines (hidden: an outline only).
void HeadSwatches(AttentionLinesState& state, const std::vector<int>& heads, const ControlMarks& marks) {
  const float fs = ImGui::GetFontSize();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (std::size_t k = 0; k < heads.size(); ++k) {
    const int h = heads[k];
    const std::string label = attnlab::head_label(h);
    const float w = fs * 1.1f + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label.c_str()).x;
    if (k > 0) SameLineIfFits(w);
    ImGui::PushID(h);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    if (ImGui::InvisibleButton("##swatch", ImVec2(w, ImGui::GetFrameHeight()))) state.Toggle(h);
    MarkLastItem(marks, ("lines head " + std::to_string(h)).c_str());
    const float y = p.y + (ImGui::GetFrameHeight() - fs) * 0.5f;
    const ImVec2 a(p.x, y), b(p.x + fs, y + fs);
    if (state.Shown(h))
      dl->AddRectFilled(a, b, HeadColor(h));
    else
      dl->AddRect(a, b, HeadColor(h), 0.0f, 0, std::max(1.0f, fs * 0.1f));
    dl->AddText(ImVec2(b.x + ImGui::GetStyle().ItemInnerSpacing.x + fs * 0.1f, y),
                ImGui::GetColorU32(state.Shown(h) ? ImGuiCol_Text : ImGuiCol_TextDisabled), label.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s: click to %s its lines", label.c_str(), state.Shown(h) ? "hide" : "show");
    ImGui::PopID();
  }
}

std::vector<std::string> Elided(const std::vector<std::string>& labels, float room) {
  const TextWidthFn width = [](const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; };
  return ElideEach(labels, room, width);
}

float Widest(const std::vector<std::string>& labels) {
  float w = 0;
  for (const std::string& l : labels) w = std::max(w, ImGui::CalcTextSize(l.c_str()).x);
  return w;
}

// Where the columns and rows go in the scrolled child, in screen coordinates.
struct Columns {
  ImVec2 origin;                 // the first row's top left
  float row = 0;                 // a token's height
  float left_end = 0, right_start = 0;  // the query labels' right edge, the key labels' left
  float x0 = 0, x1 = 0;          // where the lines start and end
  float y(int i) const { return origin.y + (float(i) + 0.5f) * row; }
};

// The hovered token: side 0 a query, 1 a key; -1 none.
struct Hovered {
  int side = -1, index = -1;
};

Hovered HoveredToken(const Columns& c, int n_x, int n_z) {
  if (!ImGui::IsWindowHovered()) return {};
  const ImVec2 m = ImGui::GetMousePos();
  const int i = int(std::floor((m.y - c.origin.y) / c.row));
  if (m.x < c.x0 && i >= 0 && i < n_x) return {0, i};
  if (m.x > c.x1 && i >= 0 && i < n_z) return {1, i};
  return {};
}

// The weights of the hovered token's lines, beside the other column, in their heads' colours.
void WriteWeights(const Columns& c, const Hovered& hovered, const attnlab::Trace& t, const std::vector<int>& shown,
                  int others) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float pad = ImGui::GetFontSize() * 0.25f;
  const float number_w = ImGui::CalcTextSize("0.00").x + pad * 2;
  // As many heads' numbers as fit in 70% of the lines' width (the lines fan out from the hovered
  // token on the other side, so their starts stay in view); past that, the first heads'.
  const int fit = std::max(1, int((c.x1 - c.x0) * 0.7f / number_w));
  const ImU32 back = ImGui::GetColorU32(ImGuiCol_WindowBg, 0.85f);
  for (int o = 0; o < others; ++o) {
    const float y = c.y(o) - ImGui::GetFontSize() * 0.5f;
    // One slot a head, in the swatches' order (the first nearest the labels), so that a head's
    // numbers stand in one column.
    for (std::size_t k = 0; k < shown.size() && int(k) < fit; ++k) {
      const int h = shown[k];
      const double w = hovered.side == 0 ? WeightOf(t, h, hovered.index, o) : WeightOf(t, h, o, hovered.index);
      if (w < attnlab::exporter::kMinLineWeight) continue;
      char text[16];
      std::snprintf(text, sizeof text, "%.2f", w);
      // Queries hovered: the numbers end at the keys' labels; keys hovered: they start at the queries'.
      const float x = hovered.side == 0 ? c.x1 - number_w * float(k + 1) : c.x0 + number_w * float(k);
      dl->AddRectFilled(ImVec2(x, y - pad * 0.5f), ImVec2(x + number_w, y + ImGui::GetFontSize() + pad * 0.5f), back);
      dl->AddText(ImVec2(x + pad, y), HeadColor(h), text);
    }
  }
}

void DrawColumns(const Columns& c, const Hovered& hovered, const attnlab::Trace& t, const std::vector<int>& shown,
                 int n_x, int n_z) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // Thicker where rows are spread (a projector), thinner where many tokens cross (60: 1 to 2.5 px).
  const float thickness = std::clamp(c.row / (std::max(n_x, n_z) > 20 ? 14.0f : 9.0f), 1.0f, 3.5f);
  // Only the rows in view: a line between two rows out of view on the same side is not seen.
  const ImVec2 clip_min = dl->GetClipRectMin(), clip_max = dl->GetClipRectMax();
  for (int h : shown)
    for (int i = 0; i < n_x; ++i) {
      if (hovered.side == 0 && hovered.index != i) continue;
      for (int j = 0; j < n_z; ++j) {
        if (hovered.side == 1 && hovered.index != j) continue;
        const double w = WeightOf(t, h, i, j);
        if (w < attnlab::exporter::kMinLineWeight) continue;
        const float y0 = c.y(i), y1 = c.y(j);
        if ((y0 < clip_min.y && y1 < clip_min.y) || (y0 > clip_max.y && y1 > clip_max.y)) continue;
        dl->AddLine(ImVec2(c.x0, y0), ImVec2(c.x1, y1), HeadColor(h, float(w)), thickness);
      }
    }
}

void DrawLabels(const Columns& c, const Hovered& hovered, const std::vector<std::string>& queries,
                const std::vector<std::string>& keys, const ControlMarks& marks) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), highlight = ImGui::GetColorU32(ImGuiCol_HeaderHovered);
  const float left_start = c.origin.x;
  for (int side = 0; side < 2; ++side) {
    const std::vector<std::string>& labels = side == 0 ? queries : keys;
    for (int i = 0; i < int(labels.size()); ++i) {
      const float w = ImGui::CalcTextSize(labels[std::size_t(i)].c_str()).x;
      const float top = c.y(i) - c.row * 0.5f;
      const ImVec2 a(side == 0 ? left_start : c.right_start, top);
      const ImVec2 b(side == 0 ? c.left_end : c.right_start + (c.left_end - left_start), top + c.row);
      if (hovered.side == side && hovered.index == i) dl->AddRectFilled(a, b, highlight);
      const float x = side == 0 ? c.left_end - w : c.right_start;
      dl->AddText(ImVec2(x, c.y(i) - fs * 0.5f), text, labels[std::size_t(i)].c_str());
      MarkRect(marks, {"", std::string(side == 0 ? "lines query " : "lines key ") + std::to_string(i)}, a, b);
    }
  }
}

}  // namespace

float AttentionLinesRowHeight() { return std::floor(ImGui::GetFontSize() * 1.35f); }

void DrawAttentionLines(AttentionLinesState& state, const attnlab::Scenario& s, const attnlab::Trace& t,
                        const std::vector<int>& wanted, const ControlMarks& marks) {
  if (t.heads.empty()) return;
  std::vector<int> heads;
  for (int h : wanted)
    if (h >= 0 && h < int(t.heads.size())) heads.push_back(h);
  if (wanted.empty())
    for (int h = 0; h < int(t.heads.size()); ++h) heads.push_back(h);
  if (heads.size() > 1) HeadSwatches(state, heads, marks);
  std::vector<int> shown;
  for (int h : heads)
    if (heads.size() == 1 || state.Shown(h)) shown.push_back(h);
  const attnlab::Matrix& first = t.heads.front().weights;  // rows: n_x by n_z; columns: n_z by n_x
  const bool rows = t.layout == attnlab::Layout::rows;
  const int n_x = int(rows ? first.rows() : first.cols()), n_z = int(rows ? first.cols() : first.rows());
  if (std::max(n_x, n_z) > kMaxLinesTokens) {  // n^2 lines a head every frame: past this, a figure's work
    DimTextWrapped(std::to_string(std::max(n_x, n_z)) + " tokens: too many to draw as lines live (up to " +
                   std::to_string(kMaxLinesTokens) + "); attnlab-cli export FILE --what lines draws them.");
    return;
  }
  std::vector<std::string> queries = QueryTokenLabels(s), keys = KeyTokenLabels(s);
  queries.resize(std::size_t(n_x)), keys.resize(std::size_t(n_z));
  // The child scrolls when the tokens need more height than the panel has; labels and lines scroll
  // together, so each label stays at its lines' ends.
  if (!ImGui::BeginChild("##attention lines", ImVec2(0, 0), false, 0)) {
    ImGui::EndChild();
    return;
  }
  const float fs = ImGui::GetFontSize(), avail = ImGui::GetContentRegionAvail().x;
  // The lines keep a quarter of the width (5 ems at least); each column of labels up to half of the
  // rest, 14 ems at most: a narrow lecture-mode panel still spells "translation" out.
  const float label_room = std::max(fs * 3.0f, std::min((avail - std::max(fs * 5.0f, avail * 0.25f)) * 0.5f - fs, fs * 14.0f));
  queries = Elided(queries, label_room), keys = Elided(keys, label_room);
  const float label_w = std::min(label_room, std::max(Widest(queries), Widest(keys))) + fs * 0.3f;
  Columns c;
  c.origin = ImGui::GetCursorScreenPos();
  const int n = std::max(n_x, n_z);
  // A few tokens spread over the panel's height (up to 2.5 lines a row, for a projector); many
  // keep the smallest row that keeps labels apart, and scroll.
  c.row = std::floor(std::clamp(ImGui::GetContentRegionAvail().y / float(n), AttentionLinesRowHeight(), fs * 2.5f));
  c.left_end = c.origin.x + label_w;
  const float gap = fs * 0.5f;
  const float lines_w = std::max(fs * 6.0f, std::min(avail - 2.0f * (label_w + gap), fs * 24.0f));
  c.x0 = c.left_end + gap;
  c.x1 = c.x0 + lines_w;
  c.right_start = c.x1 + gap;
  ImGui::Dummy(ImVec2(c.right_start + label_w - c.origin.x, c.row * float(n)));
  const Hovered hovered = HoveredToken(c, n_x, n_z);
  MarkRect(marks, {"", "lines area"}, ImVec2(c.x0, c.origin.y), ImVec2(c.x1, c.origin.y + c.row * float(n)));
  DrawLabels(c, hovered, queries, keys, marks);
  DrawColumns(c, hovered, t, shown, n_x, n_z);
  if (hovered.side >= 0) WriteWeights(c, hovered, t, shown, hovered.side == 0 ? n_z : n_x);
  ImGui::EndChild();
}

}  // namespace attnlab::app
