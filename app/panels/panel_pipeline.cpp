#include "panels/panel_pipeline.h"

#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "panels/stage_heatmap.h"
#include "view/derived_stages.h"
#include "widgets/heatmap.h"
#include "view/stage_labels.h"
#include "widgets/theme.h"
#include "widgets/computing_badge.h"
#include "widgets/turn_diagram.h"
#include "attnlab/numbering.h"

namespace attnlab::app::panel_pipeline {
namespace {

// A heatmap's title: its stage's label in the one table (the presenter shows the same words).
const char* Label(StageId id) { return attnlab::stage_row(id).label; }

// Places widgets left to right and wraps to a new line when the next one would not fit.
class Flow {
 public:
  void Place(float width) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float gap = style.ItemSpacing.x * 3.0f;
    if (!first_) {
      const float right = ImGui::GetItemRectMax().x + gap + width;
      const float limit = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
      if (right <= limit)
        ImGui::SameLine(0.0f, gap);
      else
        ImGui::Dummy(ImVec2(0.0f, style.ItemSpacing.y));  // breathing room between lines
    }
    first_ = false;
  }

 private:
  bool first_ = true;
};

struct View {
  AppState& state;
  const attnlab::Scenario& s;
  const attnlab::Trace& trace;
  int head;
  float max_width, max_height;  // room for one matrix's grid beside a neighbour, in pixels
  float full_width;             // room for one matrix's grid alone on its line
};

// Matrices up to this many pixels a side at 2 pixels a cell are drawn cell by cell, to scroll
// through; larger ones (over 512 tokens) fit the room instead, several cells a pixel, so that
// every stage of a 2048-token trace is in view and its textures stay small.
constexpr float kMaxExactGrid = 1024.0f;

float CellSize(const View& v, const attnlab::Matrix& m) {
  const int rows = int(m.rows()), cols = int(m.cols());
  const int decimals = v.state.ui.decimals;
  const float cell = ChooseCellSize(rows, cols, v.max_width, v.max_height, decimals);
  // Too narrow for its numbers beside a neighbour (lecture mode's large font): alone on its line
  // the matrix may have room for them.
  const float readable = SmallestCellWithValues(decimals);
  if (cell < readable && readable * cols <= v.full_width && readable * rows <= v.max_height)
    return ChooseCellSize(rows, cols, v.full_width, v.max_height, decimals);
  if (std::max(rows, cols) * cell <= kMaxExactGrid) return cell;
  return FitCellSize(rows, cols, v.max_width, v.max_height, decimals);
}

void ShowMatrix(View& v, Flow& flow, StageMatrix mv) {
  mv.head = v.head;
  StageHeatmap heatmap(v.state, mv, CellSize(v, *mv.m));
  flow.Place(heatmap.Size().x);
  heatmap.Draw();
}

void SectionHeader(const char* number, const char* title, const char* hint) {
  ImGui::Spacing();
  ImGui::PushFont(GetFonts().bold);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(AccentColor()), "%s", number);
  ImGui::SameLine();
  ImGui::TextUnformatted(title);
  ImGui::PopFont();
  if (hint) {
    ImGui::SameLine();
    // The hint is optional: drop it rather than let it run past the window's edge.
    if (ImGui::CalcTextSize(hint).x <= ImGui::GetContentRegionAvail().x)
      ImGui::TextColored(DimTextColor(), "%s", hint);
    else
      ImGui::NewLine();
  }
  ImGui::Separator();
  ImGui::Spacing();
}

void HeadSelector(AppState& state) {
  const int count = state.document.HeadCount();
  ImGui::AlignTextToFramePadding();
  if (count == 1) {
    ImGui::TextUnformatted("One head");
    return;
  }
  ImGui::TextUnformatted("Head");
  for (int h = 0; h < count; ++h) {
    ImGui::SameLine();
    char label[16];
    std::snprintf(label, sizeof label, "%s", attnlab::index_text(h).c_str());
    const bool selected = h == state.ui.selected_head;
    if (selected) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_HeaderActive));
    if (ImGui::Button(label, ImVec2(ImGui::GetFrameHeight() * 1.4f, 0))) state.ui.selected_head = h;
    if (selected) ImGui::PopStyleColor();
  }
  ImGui::SameLine();
  ImGui::TextColored(DimTextColor(), "of %d  (press 0-9)", count);
}

// RoPE: one coordinate pair of the token under the mouse (in Q, K, Q_rot or K_rot; else the
// pinned cell's, else the last query) turning on a circle.
void TurnOfHoveredToken(View& v, Flow& flow) {
  const attnlab::Model* model = v.state.document.TraceModel();
  if (!model) return;
  const UiState& ui = v.state.ui;
  const auto on_qk = [&](const HoveredCell& c) {
    return c.head == v.head && (c.stage == StageId::Q || c.stage == StageId::K || c.stage == StageId::Q_rot || c.stage == StageId::K_rot);
  };
  const HoveredCell& hovered = ui.hover.Shown();
  const HoveredCell cell = on_qk(hovered) ? hovered : on_qk(ui.pinned) ? ui.pinned : HoveredCell{};
  const bool cols = v.s.layout == attnlab::Layout::columns;
  const bool query = cell.stage == StageId::none || cell.stage == StageId::Q || cell.stage == StageId::Q_rot;
  const int last = int(v.trace.query_positions.size()) - 1;
  const int token = cell.stage == StageId::none ? last : cols ? cell.col : cell.row;
  const int coordinate = cell.stage == StageId::none ? 0 : cols ? cell.row : cell.col;
  const RopeTurn turn = TurnOf(*model, v.trace, v.head, query, token, coordinate);
  if (!turn.shown) return;
  const std::vector<std::string> names = query ? QueryTokenLabels(v.s) : KeyTokenLabels(v.s);
  const float fs = ImGui::GetFontSize();
  flow.Place(fs * 17.0f);
  ImGui::BeginGroup();
  ImGui::PushFont(GetFonts().bold);
  ImGui::Text("%s \xE2\x80\x9C%s\xE2\x80\x9D turned", query ? "query" : "key",
              token < int(names.size()) ? names[std::size_t(token)].c_str() : "?");
  ImGui::PopFont();
  const char* which = cell.stage == StageId::none ? "hover a cell of Q, K, Q_rot or K_rot"
                      : on_qk(hovered)          ? "the cell under the mouse"
                                                : "the pinned cell";
  ImGui::TextColored(DimTextColor(), "%s", which);
  TurnDiagram(turn, v.state.ui.decimals);
  ImGui::EndGroup();
}

// `derived`: the selected head's scaled and masked stages (the trace derives them, it does not
// store them), kept by the panel.
void HeadStages(View& v, DerivedStages& derived) {
  const attnlab::HeadTrace& h = v.trace.heads[static_cast<std::size_t>(v.head)];
  const std::uint64_t tv = v.state.document.TraceVersion();  // textures and ranges built once per trace
  if (v.trace.X_pos.size()) {
    SectionHeader("0", "Add the positions", "X + PE: sines and cosines of each token's position");
    Flow pos;
    ShowMatrix(v, pos, {StageId::X_pos, Label(StageId::X_pos), &v.trace.X_pos, tv, false});
    if (v.trace.Z_pos.size()) ShowMatrix(v, pos, {StageId::none, "Z + PE", &v.trace.Z_pos, tv, false});
  }
  const bool norm = v.trace.has_qk_norm(), rope = v.trace.has_rope();
  SectionHeader("1", "Project the tokens",
                norm && rope ? "then normalise Q and K (QK-norm) and turn them by position (RoPE)"
                : norm       ? "then normalise Q and K (QK-norm)"
                : rope       ? "then turn Q and K by position (RoPE)"
                             : "queries, keys and values");
  Flow qkv;
  ShowMatrix(v, qkv, {StageId::Q, Label(StageId::Q), &h.Q, tv, false});
  ShowMatrix(v, qkv, {StageId::K, Label(StageId::K), &h.K, tv, false});
  ShowMatrix(v, qkv, {StageId::V, Label(StageId::V), &h.V, tv, false});
  if (norm) {
    ShowMatrix(v, qkv, {StageId::Q_norm, Label(StageId::Q_norm), &h.Q_norm, tv, false});
    ShowMatrix(v, qkv, {StageId::K_norm, Label(StageId::K_norm), &h.K_norm, tv, false});
  }
  if (rope) {
    ShowMatrix(v, qkv, {StageId::Q_rot, Label(StageId::Q_rot), &h.Q_rot, tv, false});
    ShowMatrix(v, qkv, {StageId::K_rot, Label(StageId::K_rot), &h.K_rot, tv, false});
    TurnOfHoveredToken(v, qkv);
  }

  SectionHeader("2", "Score every query against every key", nullptr);
  derived.Update(v.trace, tv, v.head, v.state.heatmaps->work);
  const DerivedStages& d = derived;
  Flow scores;
  ShowMatrix(v, scores, {StageId::scores, Label(StageId::scores), &h.scores, tv, false});
  ShowMatrix(v, scores, {StageId::scaled, Label(StageId::scaled), &d.Scaled(), d.ScaledVersion(), false,
                         nullptr, 0, 0, !d.ScaledCurrent()});
  if (v.trace.has_softcap())
    ShowMatrix(v, scores, {StageId::capped, Label(StageId::capped), &d.Capped(), d.CappedVersion(), false, nullptr, 0,
                           0, !d.CappedCurrent()});
  if (v.trace.has_bias())
    ShowMatrix(v, scores, {StageId::bias, Label(StageId::bias), &d.Bias(), d.BiasVersion(), false, nullptr, 0, 0,
                           !d.BiasCurrent()});
  ShowMatrix(v, scores, {StageId::masked, Label(StageId::masked), &d.Masked(), d.MaskedVersion(), false,
                         nullptr, 0, 0, !d.MaskedCurrent()});
  ShowMatrix(v, scores,
             {StageId::weights, Label(StageId::weights), &h.weights, tv, true, &v.trace.allowed});

  SectionHeader("3", "Mix the values", "each output is a weighted sum of value vectors");
  Flow out;
  ShowMatrix(v, out, {StageId::head_output, Label(StageId::head_output), &h.output, tv, false});
}

void CombineStages(View& v) {
  const std::uint64_t tv = v.state.document.TraceVersion();
  const bool rows = v.s.layout == attnlab::Layout::rows;
  const attnlab::HeadTrace& h0 = v.trace.heads.front();
  const int d_v = int(rows ? h0.output.cols() : h0.output.rows());
  SectionHeader("4", "Combine the heads", v.trace.heads.size() > 1 ? nullptr : "(one head)");
  Flow flow;
  ShowMatrix(v, flow, {StageId::concat, Label(StageId::concat), &v.trace.concat, tv, false, nullptr,
                       rows ? d_v : 0, rows ? 0 : d_v});
  if (v.s.W_o) {
    const attnlab::Matrix& wo = *v.s.W_o;
    const std::uint64_t sv = v.state.document.Version();  // the Scenario's own matrix
    ShowMatrix(v, flow, {StageId::W_o, Label(StageId::W_o), &wo, sv, false, nullptr, 0, rows ? d_v : 0});
  }
  const attnlab::Matrix& out = v.trace.output;
  ShowMatrix(v, flow, {StageId::output, Label(StageId::output), &out, tv, false});
  if (!v.s.W_o) ImGui::TextColored(DimTextColor(), "No W_o in this scenario: the output is the concatenation.");
}

class PipelinePanel final : public PanelContents {
 public:
  void Draw(AppState& state) override;

 private:
  DerivedStages derived_;
};

}  // namespace

void PipelinePanel::Draw(AppState& state) {
  const attnlab::Trace& trace = state.document.GetTrace();
  if (ComputingBadge(state.document, trace) && trace.heads.empty()) return;
  if (trace.heads.empty()) {
    ImGui::TextColored(ErrorTextColor(), "Nothing to show: %s", state.document.status.c_str());
    return;
  }
  const attnlab::Scenario& s = state.document.GetScenario();
  const int head = std::clamp(state.ui.selected_head, 0, int(trace.heads.size()) - 1);
  const float avail = ImGui::GetContentRegionAvail().x;
  const float fs = ImGui::GetFontSize();
  View v{state, s, trace, head, std::clamp(avail * 0.42f, fs * 10.0f, fs * 30.0f), fs * 32.0f,
         std::max(fs * 10.0f, avail - fs * 5.0f)};  // the row labels' room
  HeadSelector(state);
  HeadStages(v, derived_);
  CombineStages(v);
  ImGui::Spacing();
}

std::unique_ptr<PanelContents> Make() { return std::make_unique<PipelinePanel>(); }

}  // namespace attnlab::app::panel_pipeline
