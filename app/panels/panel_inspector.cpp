#include "panels/panel_inspector.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "attnlab/stage.h"
#include "view/inspector_math.h"
#include "view/inspector_tiles.h"
#include "view/label_fit.h"
#include "widgets/theme.h"
#include "widgets/turn_diagram.h"
#include "widgets/computing_badge.h"

namespace attnlab::app::panel_inspector {
namespace {

bool SameTileCell(const TileCell& a, const TileCell& b) {
  return a.what == b.what && a.tile == b.tile && a.block_rows == b.block_rows && a.block_cols == b.block_cols &&
         a.query == b.query && a.col == b.col;
}

bool SameCell(const HoveredCell& a, const HoveredCell& b) {
  return a.stage == b.stage && a.head == b.head && a.row == b.row && a.col == b.col && SameTileCell(a.tile, b.tile);
}

// A cell of the Tiles view is explained as a step of the online softmax (from the run `runs` keeps
// for the trace's version), any other as its stage.
Explanation ExplainAny(const attnlab::Scenario& s, const attnlab::Model& model, const attnlab::Trace& trace,
                       std::uint64_t trace_version, const HoveredCell& cell, int decimals, TileRuns& runs) {
  if (cell.tile.what == TileValue::none) return Explain(s, model, trace, cell, decimals);
  const TileCell& c = cell.tile;
  const attnlab::FlashRun* run = runs.Get(trace, trace_version, cell.head, c.block_rows, c.block_cols);
  return run ? ExplainTile(s, trace, *run, cell, decimals) : Explanation{};
}

// The explanation of one cell of the trace shown, written out again only when the cell or the
// trace changes (a weight's row at 2048 keys is thousands of terms).
class ExplanationCache {
 public:
  const Explanation& Get(const AppState& state, const attnlab::Trace& trace, const HoveredCell& cell) {
    // A head shown ahead of the rest of its trace is explained by its own version's model.
    const int head = cell.stage != StageId::none && attnlab::per_head(cell.stage) ? cell.head : -1;
    const attnlab::Model* model = state.document.TraceModelFor(head);
    const int decimals = state.ui.decimals;
    if (SameCell(cell, cell_) && state.document.TraceVersion() == trace_version_ &&
        model == model_ && decimals == decimals_)
      return e_;
    cell_ = cell;
    decimals_ = decimals;
    trace_version_ = state.document.TraceVersion();
    model_ = model;
    e_ = model && Names(cell) ? ExplainAny(*state.document.TraceScenarioFor(head), *model, trace, trace_version_, cell,
                                           decimals, tile_runs_)
                              : Explanation{};
    return e_;
  }

 private:
  HoveredCell cell_;
  std::uint64_t trace_version_ = 0;
  const attnlab::Model* model_ = nullptr;
  int decimals_ = 0;
  Explanation e_;
  TileRuns tile_runs_;  ///< a Tiles cell's loop, kept while the hovered cell moves within it
};

// The cell under the mouse in the last whole frame, whether the Inspector draws before or after
// the heatmaps.
HoveredCell CurrentHover(const UiState& ui) { return ui.hover.Shown(); }

// A click on a heatmap cell pins it; a click on the pinned cell again unpins it.
void UpdatePin(AppState& state) {
  const HoveredCell hover = CurrentHover(state.ui);
  if (!Names(hover) || !ImGui::IsMouseClicked(ImGuiMouseButton_Left)) return;
  state.ui.pinned = SameCell(hover, state.ui.pinned) ? HoveredCell{} : hover;
}

// Wraps only at spaces: ImGui's word wrap also breaks after '.', which splits "0.3622" in two,
// and counts the space it breaks at in the line's width (past the panel's edge, to a window test).
void WrappedAtSpaces(const std::string& text, ImFont* font, const ImVec4* color = nullptr) {
  ImGui::PushFont(font);
  if (color) ImGui::PushStyleColor(ImGuiCol_Text, *color);
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  const float space = ImGui::CalcTextSize(" ").x;
  bool first = true;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const char* b = text.c_str() + start;
    const char* e = text.c_str() + end;
    // Beside the last word when it fits, else on the next line (a SameLine taken back by NewLine
    // would leave the space after the last word in the line's width)
    if (!first && ImGui::GetItemRectMax().x + space + ImGui::CalcTextSize(b, e).x <= right)
      ImGui::SameLine(0.0f, space);
    ImGui::TextUnformatted(b, e);
    first = false;
    start = end + 1;
  }
  if (color) ImGui::PopStyleColor();
  ImGui::PopFont();
}

void MonoWrapped(const std::string& text, const ImVec4* color = nullptr) {
  WrappedAtSpaces(text, GetFonts().mono, color);
}

// What column `c` (> 0) of a term's row shows: its factors, then its value, then nothing.
std::string TermCell(const SumTerm& t, std::size_t c, int decimals) {
  if (c - 1 < t.factors.size()) return Num(t.factors[c - 1], decimals);
  return c - 1 == t.factors.size() ? Num(t.value, decimals) : std::string();
}

float InspectorTextWidth(const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; }

// Room for the terms' labels (column 0) when the number columns keep their whole width. In the
// current font.
float TermLabelRoom(const Explanation& e, int decimals) {
  const float pad = ImGui::GetStyle().CellPadding.x * 2.0f + 1.0f;  // a column's padding and border
  float numbers = 0;
  for (std::size_t c = 1; c < e.columns.size(); ++c) {
    float widest = InspectorTextWidth(e.columns[c]);
    for (const SumTerm& t : e.terms)
      widest = std::max(widest, InspectorTextWidth(TermCell(t, c, decimals)));
    numbers += widest;
  }
  return ImGui::GetContentRegionAvail().x - numbers - pad * float(e.columns.size());
}

// The terms' labels as the table shows them: a long token ("translation") shortened in the middle,
// as the heatmaps' axes do, so that the last column stays inside the panel; none when they would
// no longer tell the terms apart or keep four characters (the table does not fit).
std::vector<std::string> TermLabelsThatFit(const Explanation& e, int decimals) {
  const float room = TermLabelRoom(e, decimals);
  if (room < InspectorTextWidth("0000")) return {};
  std::vector<std::string> labels;
  for (const SumTerm& t : e.terms) labels.push_back(t.label);
  labels = ElideEach(labels, room, InspectorTextWidth);
  return TellsApart(labels) ? labels : std::vector<std::string>{};
}

void DrawTermTable(const Explanation& e, const std::vector<std::string>& labels, int decimals) {
  const int ncols = static_cast<int>(e.columns.size());
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_NoHostExtendX;
  if (!ImGui::BeginTable("##terms", ncols, flags)) return;
  for (const std::string& c : e.columns) ImGui::TableSetupColumn(c.c_str());
  ImGui::TableHeadersRow();
  const ImU32 highlight = (AccentColor() & 0x00FFFFFF) | 0x50000000;
  for (std::size_t i = 0; i < e.terms.size(); ++i) {
    const SumTerm& t = e.terms[i];
    ImGui::TableNextRow();
    if (t.highlight) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, highlight);
    if (t.masked) ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(labels[i].c_str());
    for (int col = 1; col < ncols; ++col) {
      ImGui::TableSetColumnIndex(col);
      ImGui::TextUnformatted(TermCell(t, std::size_t(col), decimals).c_str());
    }
    if (t.masked) ImGui::PopStyleColor();
  }
  ImGui::EndTable();
}

// Where the table does not fit (a narrow lecture-mode column), a line per term: "this: S″ = 0.35,
// S″ − max = −0.18, ...", each "name = value" kept whole (no-break spaces), wrapped between them.
void DrawTermLines(const Explanation& e, int decimals) {
  const auto no_break = [](std::string text) {
    for (std::size_t at = text.find(' '); at != std::string::npos; at = text.find(' ', at))
      text.replace(at, 1, "\xC2\xA0");
    return text;
  };
  const ImVec4 accent = ImGui::ColorConvertU32ToFloat4(AccentColor()), dim = DimTextColor();
  for (const SumTerm& t : e.terms) {
    std::string line = no_break(t.label) + ":";
    const char* separator = " ";
    for (std::size_t c = 1; c < e.columns.size(); ++c) {
      const std::string cell = TermCell(t, c, decimals);
      if (cell.empty()) continue;
      line += separator + no_break(e.columns[c] + " = " + cell);
      separator = ", ";
    }
    MonoWrapped(line, t.highlight ? &accent : t.masked ? &dim : nullptr);
  }
}

// The shown terms of a long sum (or a weight's whole row), the inspected one highlighted.
void TermTable(const Explanation& e, int decimals) {
  ImGui::PushFont(GetFonts().mono);
  const std::vector<std::string> labels = TermLabelsThatFit(e, decimals);
  if (!labels.empty()) DrawTermTable(e, labels, decimals);
  ImGui::PopFont();
  if (labels.empty()) DrawTermLines(e, decimals);
  if (e.omitted > 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%d more terms not shown (the first and the largest are)",
                  e.omitted);
    DimTextWrapped(buf);
  }
}

void ShowExplanation(const Explanation& e, int decimals, const ControlMarks& marks) {
  ImGui::BeginGroup();
  WrappedAtSpaces(e.title, GetFonts().bold);
  const ImVec4 dim = DimTextColor();
  MonoWrapped(e.formula, &dim);
  ImGui::Spacing();
  if (!e.why_masked.empty()) {
    const ImVec4 warn = WarningTextColor();
    MonoWrapped("masked (\xE2\x88\x92\xE2\x88\x9E): " + e.why_masked, &warn);
  }
  // Weights always list their row; other sums only when terms were elided (labels matter then).
  const bool weights = e.columns.size() == 5;
  if (!e.columns.empty() && (weights || e.omitted > 0)) TermTable(e, decimals);
  if (!e.written.empty()) MonoWrapped(e.written);
  for (const std::string& line : e.lines) MonoWrapped(line);
  if (e.turn.shown) {
    TurnDiagram(e.turn, decimals);
    MarkLastItem(marks, "inspector rope turn");  // its lines wrap inside the Inspector (window tests)
  }
  ImGui::Spacing();
  ImGui::PushFont(GetFonts().bold);
  ImGui::Text("= %s", Num(e.value, decimals).c_str());
  ImGui::PopFont();
  ImGui::EndGroup();
  // All of the arithmetic, and the part of the panel that shows it: how many of its lines a class
  // sees without scrolling (window tests).
  MarkLastItem(marks, "inspector arithmetic");
  const ImVec2 view = ImGui::GetWindowPos();
  const ImVec2 end(view.x + ImGui::GetWindowContentRegionMax().x,
                   view.y + ImGui::GetWindowSize().y);
  MarkRect(marks, ControlMark{"", "inspector view"}, view, end);  // left of its scrollbar
}

class InspectorPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override;

 private:
  ExplanationCache explanation_;
};

}  // namespace

// With a reference kept (Compare panel): the cell's value then and the change since.
void ShowReference(const AppState& state, const attnlab::Trace& trace, const HoveredCell& cell) {
  if (!state.reference) return;
  double now = 0, then = 0;
  if (!ReferenceValue(trace, cell.stage, cell.head, cell.row, cell.col, &now)) return;
  ImGui::Separator();
  if (!ReferenceValue(state.reference->trace, cell.stage, cell.head, cell.row, cell.col, &then)) {
    DimTextWrapped("The reference has no such cell.");
    return;
  }
  const int d = state.ui.decimals + 2;
  if (std::isfinite(now) && std::isfinite(then))
    ImGui::Text("reference %.*f, now %.*f: changed by %+.*f", d, then, d, now, d, now - then);
  else
    ImGui::Text("reference %s, now %s", std::isfinite(then) ? std::to_string(then).c_str() : "masked",
                std::isfinite(now) ? std::to_string(now).c_str() : "masked");
}

void InspectorPanel::Draw(AppState& state) {
  UpdatePin(state);
  const HoveredCell hover = CurrentHover(state.ui);
  const bool hovering = Names(hover);
  const HoveredCell cell = hovering ? hover : state.ui.pinned;
  const attnlab::Trace& trace = state.document.GetTrace();
  const Explanation& e = explanation_.Get(state, trace, cell);
  if (!e.valid) {
    DimTextWrapped("Hover any cell of the Pipeline, Heads or Tiles panel to see its arithmetic with the "
        "actual numbers. Click a cell to pin it here.");
    return;
  }
  if (Names(state.ui.pinned)) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(AccentColor()));
    ImGui::TextUnformatted(hovering && !SameCell(cell, state.ui.pinned) ? "hovering (a cell is pinned)"
                                                                         : "pinned");
    ImGui::PopStyleColor();
    ImGui::SameLine();
    if (ImGui::SmallButton("unpin")) state.ui.pinned = {};
  }
  // The trace's own numbers while a newer one computes, dimmed as its heatmaps are.
  const bool stale = ComputingBadge(state.document, trace);
  if (stale) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, ImGui::GetStyle().Alpha * kStaleAlpha);
  ShowExplanation(e, state.ui.decimals, state.on_control);
  ShowReference(state, trace, cell);
  if (stale) ImGui::PopStyleVar();
}

std::unique_ptr<PanelContents> Make() { return std::make_unique<InspectorPanel>(); }

}  // namespace attnlab::app::panel_inspector
