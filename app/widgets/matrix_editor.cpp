#include "widgets/matrix_editor.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui_internal.h>  // ActiveIdUsingKeyInputMask: Tab moves the cell field, not the focus

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "attnlab/colormap.h"
#include "attnlab/edits.h"
#include "attnlab/matrix_text.h"
#include "attnlab/number_format.h"
#include "attnlab/numbering.h"
#include "attnlab/scenario.h"
#include "attnlab/trace_io.h"
#include "view/head_palette.h"
#include "view/label_fit.h"
#include "widgets/edit_error.h"
#include "widgets/heatmap.h"
#include "widgets/panel_tooltip.h"
#include "widgets/theme.h"

namespace attnlab::app {
namespace {

struct Geometry {
  float cell_w = 0, cell_h = 0, label_w = 0, header_h = 0, strip = 0;
  ImVec2 origin;  // top-left of cell (0, 0), screen coordinates
  ImVec2 size;    // whole widget (labels + grid)
  int decimals = 2;
};

ImFont* Mono() { return GetFonts().mono ? GetFonts().mono : ImGui::GetFont(); }

float MonoWidth(const char* text) {
  ImFont* f = Mono();
  return f->CalcTextSizeA(f->FontSize, FLT_MAX, 0.0f, text).x;
}

// One format per matrix so the numbers line up: integers stay integers.
int ChooseDecimals(const attnlab::Matrix& m, double* max_abs) {
  bool integers = true;
  *max_abs = 0;
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    const double v = m.data()[i];
    *max_abs = std::max(*max_abs, std::fabs(v));
    integers = integers && std::fabs(v - std::round(v)) < 1e-9;
  }
  return integers ? 0 : *max_abs < 100 ? 2 : 1;
}

void FormatCell(char* buf, std::size_t n, double v, int decimals) {
  std::snprintf(buf, n, "%s", attnlab::format_fixed(v, decimals).c_str());
}

std::string LabelAt(const std::vector<std::string>* labels, int i) {
  if (labels && i < static_cast<int>(labels->size())) return (*labels)[static_cast<std::size_t>(i)];
  return std::to_string(i);
}

float UiTextWidth(const std::string& text) { return ImGui::CalcTextSize(text.c_str()).x; }

// A label wider than the cap is measured only as far as the cap (a 1 MB token costs nothing).
float MaxLabelWidth(const std::vector<std::string>* labels, int count, float cap) {
  float w = 0;
  for (int i = 0; i < count; ++i) w = std::max(w, WidthUpTo(LabelAt(labels, i), cap, UiTextWidth));
  return w;
}

Geometry Measure(const MatrixEditorSpec& spec) {
  const attnlab::Matrix& m = *spec.values;
  const float fs = ImGui::GetFontSize();
  Geometry g;
  double max_abs = 0;
  g.decimals = ChooseDecimals(m, &max_abs);
  char widest[64];
  FormatCell(widest, sizeof widest, -max_abs, g.decimals);
  const int rows = int(m.rows()), cols = int(m.cols());
  g.strip = spec.band > 0 ? std::floor(fs * 1.15f) : 0.0f;
  g.label_w = std::ceil(MaxLabelWidth(spec.row_labels, rows, fs * 6.0f) + fs * 0.5f);
  if (spec.band > 0 && !spec.band_on_cols) g.label_w += g.strip + 2.0f;
  g.header_h = std::ceil(fs * 1.3f) + (spec.band > 0 && spec.band_on_cols ? g.strip + 2.0f : 0.0f);
  const float avail = ImGui::GetContentRegionAvail().x - g.label_w;
  const float min_w = std::ceil(MonoWidth(widest) + fs * 0.7f);
  g.cell_w = std::floor(std::clamp(avail / std::max(cols, 1), min_w, std::max(min_w, fs * 3.6f)));
  g.cell_h = std::floor(fs * 1.55f);
  g.size = ImVec2(g.label_w + cols * g.cell_w + 2.0f, g.header_h + rows * g.cell_h + 2.0f);
  return g;
}

ImVec2 CellMin(const Geometry& g, int r, int c) {
  return ImVec2(g.origin.x + c * g.cell_w, g.origin.y + r * g.cell_h);
}

void DrawColumnLabels(const MatrixEditorSpec& spec, const Geometry& g) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const attnlab::Matrix& m = *spec.values;
  const ImU32 dim = ImGui::GetColorU32(DimTextColor());
  const float fs = ImGui::GetFontSize();
  for (int c = 0; c < m.cols(); ++c) {
    const std::string text = ElideMiddle(LabelAt(spec.col_labels, c), g.cell_w - 4.0f, UiTextWidth);
    const float w = UiTextWidth(text);
    const ImVec2 min = CellMin(g, 0, c);
    const float y = g.origin.y - std::ceil(fs * 1.2f);
    const ImVec4 clip(min.x, y, min.x + g.cell_w - 1, y + fs * 1.3f);
    dl->AddText(ImGui::GetFont(), fs, ImVec2(min.x + std::max(2.0f, (g.cell_w - w) * 0.5f), y), dim,
                text.c_str(), nullptr, 0.0f, &clip);
  }
}

// How far the row labels move right to stay in view while the grid scrolls sideways under them
// (Shift+wheel over a wide X): the left edge of what the window shows, less theirs.
float RowLabelShift(const Geometry& g) {
  return std::max(0.0f, ImGui::GetWindowDrawList()->GetClipRectMin().x - (g.origin.x - g.label_w));
}

// Once the row labels have shifted onto the cells, a button under them owns the mouse there (it
// goes before the grid's): a click on a token's name does not scrub, type into or sweep the cell
// hidden under it.
void RowLabelCover(const MatrixEditorSpec& spec, const Geometry& g) {
  const float shift = RowLabelShift(g);
  if (shift <= 0.0f) return;
  ImGui::SetCursorScreenPos(ImVec2(g.origin.x - g.label_w + shift, g.origin.y));
  ImGui::InvisibleButton("##row labels", ImVec2(g.label_w, spec.values->rows() * g.cell_h));
}

// The row labels, drawn over the cells they shifted onto (on the window's background) so that a
// row keeps its token's name however far the grid scrolls.
void DrawRowLabels(const MatrixEditorSpec& spec, const Geometry& g, const ControlMarks& marks) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const attnlab::Matrix& m = *spec.values;
  const float fs = ImGui::GetFontSize(), shift = RowLabelShift(g);
  const ImVec2 lo(g.origin.x - g.label_w + shift, g.origin.y), hi(lo.x + g.label_w, g.origin.y + m.rows() * g.cell_h);
  if (shift > 0.0f)  // over the cells and the column labels that scrolled under them
    dl->AddRectFilled(ImVec2(lo.x, lo.y - g.header_h), hi, ImGui::GetColorU32(ImGuiCol_WindowBg));
  MarkRect(marks, {"", "row labels:" + spec.source, 0, 0, 0, 0, int(m.rows()), 1}, lo, hi);
  for (int r = 0; r < m.rows(); ++r) {
    const ImVec2 min = CellMin(g, r, 0);
    const float right = g.origin.x + shift - fs * 0.35f - (spec.band > 0 && !spec.band_on_cols ? g.strip + 2 : 0);
    const float x0 = lo.x;
    const std::string text = ElideMiddle(LabelAt(spec.row_labels, r), right - x0, UiTextWidth);
    const float w = UiTextWidth(text);
    const ImVec4 clip(x0, min.y, right, min.y + g.cell_h);
    dl->AddText(ImGui::GetFont(), fs, ImVec2(std::max(x0, right - w), min.y + (g.cell_h - fs) * 0.5f),
                ImGui::GetColorU32(ImGuiCol_Text), text.c_str(), nullptr, 0.0f, &clip);
  }
}

// Each head's band: a coloured strip naming the head along the banded axis and an outline around
// its cells, so that changing H visibly re-splits the same matrix.
void DrawBands(const MatrixEditorSpec& spec, const Geometry& g) {
  if (spec.band <= 0) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const attnlab::Matrix& m = *spec.values;
  const int length = int(spec.band_on_cols ? m.cols() : m.rows());
  const float fs = ImGui::GetFontSize();
  for (int h = 0; h * spec.band < length; ++h) {
    const int first = h * spec.band, last = std::min(length, first + spec.band);
    ImVec2 a, b, s0, s1;
    if (spec.band_on_cols) {
      a = CellMin(g, 0, first);
      b = ImVec2(g.origin.x + last * g.cell_w, g.origin.y + m.rows() * g.cell_h);
      s0 = ImVec2(a.x + 1, g.origin.y - g.header_h);
      s1 = ImVec2(b.x - 1, s0.y + g.strip);
    } else {
      a = CellMin(g, first, 0);
      b = ImVec2(g.origin.x + m.cols() * g.cell_w, g.origin.y + last * g.cell_h);
      s0 = ImVec2(g.origin.x - g.strip - 2, a.y + 1);
      s1 = ImVec2(g.origin.x - 2, b.y - 1);
    }
    const bool selected = h == spec.selected_band;
    dl->AddRectFilled(s0, s1, HeadColor(h, selected ? 1.0f : 0.75f), 3.0f);
    char name[32];
    const float room = spec.band_on_cols ? s1.x - s0.x : s1.y - s0.y;
    std::snprintf(name, sizeof name, "%s",
                  room > ImGui::CalcTextSize("head 00").x && spec.band_on_cols
                      ? attnlab::head_label(h).c_str()
                      : attnlab::index_text(h).c_str());
    const ImVec2 t = ImGui::CalcTextSize(name);
    if ((spec.band_on_cols ? room : s1.x - s0.x) >= t.x * 0.9f || !spec.band_on_cols)
      dl->AddText(ImVec2(std::floor((s0.x + s1.x - t.x) * 0.5f), std::floor((s0.y + s1.y - fs) * 0.5f)),
                  IM_COL32(20, 20, 24, 255), name);
    dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x, b.y), HeadColor(h), 0.0f, 0,
                selected ? 3.0f : 2.0f);
  }
}

bool Tinted(const MatrixEditorSpec& spec) {
  return spec.tint && spec.tint->rows() == spec.values->rows() && spec.tint->cols() == spec.values->cols();
}

void DrawCells(const MatrixEditorSpec& spec, const Geometry& g, Colormap colormap,
               const MatrixEditorState::Scrub& scrub) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const attnlab::Matrix& m = *spec.values;
  const attnlab::Matrix& colours = Tinted(spec) ? *spec.tint : m;
  const attnlab::ColorScale scale = DivergingScale(colours, colormap);
  ImFont* mono = Mono();
  char buf[64];
  // Only the cells in view: a 256 x 256 embedding is 65k formatted numbers a frame otherwise.
  const ImVec2 clip_min = dl->GetClipRectMin(), clip_max = dl->GetClipRectMax();
  const int r0 = std::max(0, int((clip_min.y - g.origin.y) / g.cell_h));
  const int r1 = std::min(int(m.rows()), int((clip_max.y - g.origin.y) / g.cell_h) + 1);
  const int c0 = std::max(0, int((clip_min.x - g.origin.x) / g.cell_w));
  const int c1 = std::min(int(m.cols()), int((clip_max.x - g.origin.x) / g.cell_w) + 1);
  for (int r = r0; r < r1; ++r)
    for (int c = c0; c < c1; ++c) {
      const ImVec2 a = CellMin(g, r, c);
      const ImVec2 b(a.x + g.cell_w - 1, a.y + g.cell_h - 1);
      const attnlab::Rgb8 fill = attnlab::MapValue(scale, colours(r, c));
      dl->AddRectFilled(a, b, ToU32(fill));
      FormatCell(buf, sizeof buf, m(r, c), g.decimals);
      const float w = MonoWidth(buf);
      const ImU32 ink = attnlab::Luminance(fill) > 0.45 ? IM_COL32(16, 16, 16, 255)
                                                        : IM_COL32(245, 245, 245, 255);
      dl->AddText(mono, mono->FontSize,
                  ImVec2(std::floor((a.x + b.x - w) * 0.5f), std::floor((a.y + b.y - mono->FontSize) * 0.5f)),
                  ink, buf);
    }
  const bool scrubbing = scrub.source == spec.source && ImGui::IsItemActive();
  if (scrubbing && scrub.row < m.rows() && scrub.col < m.cols()) {
    const ImVec2 a = CellMin(g, scrub.row, scrub.col);
    dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(a.x + g.cell_w, a.y + g.cell_h), AccentColor(), 0, 0, 2.0f);
  }
}

bool CellUnderMouse(const Geometry& g, const attnlab::Matrix& m, int* row, int* col) {
  const ImVec2 p = ImGui::GetMousePos();
  const int c = int(std::floor((p.x - g.origin.x) / g.cell_w));
  const int r = int(std::floor((p.y - g.origin.y) / g.cell_h));
  if (r < 0 || c < 0 || r >= m.rows() || c >= m.cols()) return false;
  *row = r;
  *col = c;
  return true;
}

void StoreCell(Document& document, const MatrixEditorSpec& spec, int row, int col, double value,
               bool coalesce) {
  document.ApplyEdit(
      spec.source.c_str(), [&](attnlab::Scenario& s) { attnlab::set_matrix_cell(s, spec.source, row, col, value); },
      coalesce);
}

// Horizontal drag: 0.01 per pixel (Shift: 0.001, Ctrl: 0.1), snapped to that step so the cells
// show clean numbers.
void Scrub(Document& document, const MatrixEditorSpec& spec, const Geometry& g,
           MatrixEditorState::Scrub& scrub) {
  const attnlab::Matrix& m = *spec.values;
  int r = -1, c = -1;
  if (ImGui::IsItemActivated() && CellUnderMouse(g, m, &r, &c))
    scrub = {spec.source, r, c, m(r, c), false};
  if (!ImGui::IsItemActive() || scrub.source != spec.source) return;
  if (scrub.row >= m.rows() || scrub.col >= m.cols()) return;
  ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
  const ImGuiIO& io = ImGui::GetIO();
  const float dx = ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 3.0f).x;
  if (dx == 0.0f) return;
  const double step = io.KeyShift ? 0.001 : io.KeyCtrl ? 0.1 : 0.01;
  const double value = std::round((scrub.start + dx * step) / step) * step;
  if (value == m(scrub.row, scrub.col)) return;
  StoreCell(document, spec, scrub.row, scrub.col, value, scrub.committed);
  scrub.committed = scrub.committed || document.EditErrorFor(spec.source.c_str()) == nullptr;
}

// Right-click on a cell: what can be done with that one number.
void CellMenu(const MatrixEditorSpec& spec, const Geometry& g, std::string& menu_cell) {
  if (!spec.sweep_cell) return;
  int r = -1, c = -1;
  if (ImGui::IsItemHovered() && ImGui::IsMouseClicked(ImGuiMouseButton_Right) && CellUnderMouse(g, *spec.values, &r, &c)) {
    menu_cell = spec.source + "[" + std::to_string(r) + "][" + std::to_string(c) + "]";
    ImGui::OpenPopup("##cell menu");
  }
  if (!ImGui::BeginPopup("##cell menu")) return;
  if (ImGui::MenuItem(("Sweep " + menu_cell).c_str())) spec.sweep_cell(menu_cell);
  ImGui::EndPopup();
}

void Tooltip(const MatrixEditorSpec& spec, const Geometry& g) {
  int r = -1, c = -1;
  if (ImGui::IsItemActive() || !ImGui::IsItemHovered() || !CellUnderMouse(g, *spec.values, &r, &c))
    return;
  BeginPanelTooltip();
  ImGui::Text("%s[%d][%d] = %s", spec.source.c_str(), r, c, format_significant((*spec.values)(r, c), 6).c_str());
  if (Tinted(spec))
    ImGui::Text("d %s / d %s[%d][%d] = %s", spec.tint_of.c_str(), spec.source.c_str(), r, c,
                format_significant((*spec.tint)(r, c), 6, true).c_str());
  ImGui::TextColored(DimTextColor(), "drag \xE2\x86\x94 to scrub (Shift fine, Ctrl coarse)");
  ImGui::TextColored(DimTextColor(), "double-click to type \xC2\xB7 Ctrl+V pastes a matrix");
  if (spec.sweep_cell) ImGui::TextColored(DimTextColor(), "right-click to sweep this number");
  ImGui::EndTooltip();
}

// Moves the field to the next cell (Tab) or the previous one (Shift+Tab), row by row.
void TypeNextCell(const MatrixEditorSpec& spec, MatrixEditorState::Typing& typing, int step) {
  const int rows = int(spec.values->rows()), cols = int(spec.values->cols());
  const int next =
      ((typing.row * cols + typing.col + step) % (rows * cols) + rows * cols) % (rows * cols);
  typing.row = next / cols;
  typing.col = next % cols;
  typing.focus = true;
  std::snprintf(typing.buf, sizeof typing.buf, "%.10g", (*spec.values)(typing.row, typing.col));
}

// The double-click text field over a cell, its value selected so that typing replaces it. Enter
// applies, Tab applies and moves on; Escape or clicking away cancels.
void TypingField(Document& document, const MatrixEditorSpec& spec, const Geometry& g,
                 MatrixEditorState::Typing& typing) {
  if (typing.source != spec.source) return;
  if (typing.row >= spec.values->rows() || typing.col >= spec.values->cols()) {
    typing = {};
    return;
  }
  const ImVec2 a = CellMin(g, typing.row, typing.col);
  const ImVec2 saved = ImGui::GetCursorScreenPos();
  ImGui::SetCursorScreenPos(ImVec2(a.x, a.y + std::floor((g.cell_h - ImGui::GetFrameHeight()) * 0.5f)));
  ImGui::SetNextItemWidth(std::max(g.cell_w, ImGui::GetFontSize() * 4.0f));
  if (typing.focus) ImGui::SetKeyboardFocusHere();
  ImVec4 field = ImGui::GetStyleColorVec4(ImGuiCol_PopupBg);
  field.w = 1.0f;  // opaque: the cell's own number must not show through the typed one
  ImGui::PushStyleColor(ImGuiCol_FrameBg, field);
  ImGui::PushID(typing.row * int(spec.values->cols()) + typing.col);  // each cell its own field
  const bool enter = ImGui::InputText("##type", typing.buf, sizeof typing.buf,
                                      ImGuiInputTextFlags_EnterReturnsTrue |
                                          ImGuiInputTextFlags_AutoSelectAll |
                                          ImGuiInputTextFlags_CharsScientific);
  ImGui::PopID();
  ImGui::PopStyleColor();
  const bool active = ImGui::IsItemActive();
  const bool tab = active && ImGui::IsKeyPressed(GLFW_KEY_TAB, false);
  // Tab is the field's own key: ImGui's tabbing would move the keyboard focus elsewhere.
  if (active) ImGui::GetCurrentContext()->ActiveIdUsingKeyInputMask |= 1u << ImGuiKey_Tab;
  ImGui::SetCursorScreenPos(saved);
  if (enter || tab) {
    // A refused value stays in the field, with the message beside the matrix.
    if (!CommitTypedCell(document, spec, typing.row, typing.col, typing.buf)) return;
    if (!tab) {
      typing = {};
      return;
    }
    TypeNextCell(spec, typing, ImGui::GetIO().KeyShift ? -1 : 1);
    return;
  }
  if (!active && !typing.focus) typing = {};
  typing.focus = false;
}

void StartTyping(const MatrixEditorSpec& spec, const Geometry& g, MatrixEditorState::Typing& typing) {
  int r = -1, c = -1;
  if (!ImGui::IsItemHovered() || !ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left) ||
      !CellUnderMouse(g, *spec.values, &r, &c))
    return;
  typing.source = spec.source;
  typing.row = r;
  typing.col = c;
  typing.focus = true;
  std::snprintf(typing.buf, sizeof typing.buf, "%.10g", (*spec.values)(r, c));
}

void CopyMenu(const MatrixEditorSpec& spec) {
  if (ImGui::SmallButton("Copy \xE2\x96\xBE")) ImGui::OpenPopup("##copy");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Copy %s to the clipboard", spec.source.c_str());
  if (!ImGui::BeginPopup("##copy")) return;
  if (ImGui::Selectable("as NumPy text"))
    ImGui::SetClipboardText(attnlab::format_matrix(*spec.values, 4).c_str());
  if (ImGui::Selectable("as CSV (full precision)"))
    ImGui::SetClipboardText(attnlab::matrix_to_csv(*spec.values).c_str());
  ImGui::EndPopup();
}

constexpr const char* kResizeId = "Resize the tokens?";

// The clipboard into the matrix; a paste that only has another number of tokens asks first.
void Paste(Document& document, const MatrixEditorSpec& spec) {
  const char* clipboard = ImGui::GetClipboardText();
  const std::string text = clipboard ? clipboard : "";
  const int tokens = attnlab::paste_token_count(document.GetScenario(), spec.source, text);
  if (tokens == 0) {
    CommitPastedText(document, spec, text);
    return;
  }
  spec.state->resize = {spec.source, text, tokens};
  ImGui::OpenPopup(kResizeId);
}

// "Paste a 5x4 X into a 3x4 X: resize the tokens to 5?" Resize and paste (Enter) or Cancel (Escape).
void ResizeQuestion(Document& document, const MatrixEditorSpec& spec) {
  MatrixEditorState::ResizePaste& r = spec.state->resize;
  if (!ImGui::BeginPopupModal(kResizeId, nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings))
    return;
  const attnlab::Matrix& m = *spec.values;
  const bool rows = document.GetScenario().layout == attnlab::Layout::rows;  // tokens are rows
  const long pr = rows ? r.tokens : long(m.rows()), pc = rows ? long(m.cols()) : r.tokens;
  ImGui::Text("Paste a %ldx%ld %s into a %dx%d %s: resize the tokens to %d?", pr, pc, r.source.c_str(), int(m.rows()),
              int(m.cols()), r.source.c_str(), r.tokens);
  ImGui::TextColored(DimTextColor(), "%s", r.tokens > (rows ? m.rows() : m.cols())
                                               ? "New tokens are added at the end (new, new2, ...)."
                                               : "Tokens are removed from the end.");
  ImGui::Spacing();
  const bool appearing = ImGui::IsWindowAppearing();  // the key that opened it answers nothing
  if (ImGui::Button("Resize and paste") || (!appearing && ImGui::IsKeyPressed(GLFW_KEY_ENTER, false))) {
    CommitResizingPaste(document, spec, r.text);
    r = {};
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || (!appearing && ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false))) {
    r = {};
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

void ClipboardKeys(Document& document, const MatrixEditorSpec& spec) {
  const ImGuiIO& io = ImGui::GetIO();
  if (!ImGui::IsItemHovered() || !io.KeyCtrl || io.WantTextInput) return;
  if (ImGui::IsKeyPressed(GLFW_KEY_V, false)) Paste(document, spec);
  if (ImGui::IsKeyPressed(GLFW_KEY_C, false))
    ImGui::SetClipboardText(attnlab::format_matrix(*spec.values, 4).c_str());
}

}  // namespace

ImU32 HeadColor(int head, float alpha) {
  const std::array<float, 3> c = HeadRgb(head);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(c[0], c[1], c[2], alpha));
}

bool CommitTypedCell(Document& document, const MatrixEditorSpec& spec, int row, int col,
                     const std::string& text) {
  return document.ApplyEdit(spec.source.c_str(), [&](attnlab::Scenario& s) {
    attnlab::set_cell(s, attnlab::cell_edit_of(spec.source, row, col, text));
  });
}

bool CommitPastedText(Document& document, const MatrixEditorSpec& spec, const std::string& text) {
  return document.ApplyEdit(spec.source.c_str(),
                            [&](attnlab::Scenario& s) { attnlab::paste_matrix(s, spec.source, text); });
}

bool CommitResizingPaste(Document& document, const MatrixEditorSpec& spec, const std::string& text) {
  return document.ApplyEdit(spec.source.c_str(),
                            [&](attnlab::Scenario& s) { attnlab::paste_matrix_resizing_tokens(s, spec.source, text); });
}

void MatrixEditor(Document& document, Colormap colormap, const MatrixEditorSpec& spec,
                  const ControlMarks& marks) {
  IM_ASSERT(spec.state && "MatrixEditorSpec::state: the drawer keeps the editor's state");
  MatrixEditorState& editor = *spec.state;
  const attnlab::Matrix& m = *spec.values;
  ImGui::PushID(spec.source.c_str());
  if (m.size() > 0) {
    Geometry g = Measure(spec);
    const ImVec2 top = ImGui::GetCursorScreenPos();
    g.origin = ImVec2(top.x + g.label_w, top.y + g.header_h);
    // The text field goes first so that it, not the grid under it, owns the mouse, and is drawn
    // in a channel above the cells so that it is seen.
    ImDrawListSplitter layers;
    layers.Split(ImGui::GetWindowDrawList(), 2);
    layers.SetCurrentChannel(ImGui::GetWindowDrawList(), 1);
    TypingField(document, spec, g, editor.typing);
    layers.SetCurrentChannel(ImGui::GetWindowDrawList(), 0);
    ImGui::SetCursorScreenPos(top);
    ImGui::Dummy(ImVec2(g.label_w, g.header_h));
    RowLabelCover(spec, g);
    ImGui::SetCursorScreenPos(g.origin);
    ImGui::InvisibleButton("##grid", ImVec2(m.cols() * g.cell_w, m.rows() * g.cell_h));
    MarkRect(marks, {"", "grid:" + spec.source, 0, 0, 0, 0, int(m.rows()), int(m.cols())},
             ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    Scrub(document, spec, g, editor.scrub);
    StartTyping(spec, g, editor.typing);
    ClipboardKeys(document, spec);
    if (editor.typing.source != spec.source) Tooltip(spec, g);  // it would cover the field
    CellMenu(spec, g, editor.menu_cell);
    DrawColumnLabels(spec, g);
    DrawCells(spec, g, colormap, editor.scrub);
    DrawBands(spec, g);
    DrawRowLabels(spec, g, marks);
    layers.Merge(ImGui::GetWindowDrawList());
    ImGui::SetCursorScreenPos(ImVec2(top.x, top.y + g.size.y + 2.0f));
  }
  const PinnedLeft pinned;  // the buttons under the grid stay in view while it scrolls sideways
  CopyMenu(spec);
  ImGui::SameLine();
  if (ImGui::SmallButton("Paste")) Paste(document, spec);
  MarkLastItem(marks, ("paste " + spec.source).c_str());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Replace %s with a matrix copied from NumPy, PyTorch or a spreadsheet",
                      spec.source.c_str());
  ResizeQuestion(document, spec);
  if (spec.removable) {
    ImGui::SameLine();
    if (ImGui::SmallButton("Remove"))
      document.ApplyEdit(spec.source.c_str(), [&](attnlab::Scenario& s) { attnlab::remove_matrix(s, spec.source); });
    if (spec.remove_tip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", spec.remove_tip);
  }
  ShowEditError(document, spec.source.c_str());
  ImGui::PopID();
}

}  // namespace attnlab::app
