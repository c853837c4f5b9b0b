#include "widgets/edit_error.h"
#include "panels/panel_tokens.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "attnlab/scenario.h"
#include "widgets/theme.h"

namespace attnlab::app::TokensPanel {
namespace {

/// Picks entries along one axis: new index i takes old order[i], or `fill` where it is -1.
attnlab::Matrix TakeAlong(const attnlab::Matrix& m, bool along_rows, const std::vector<int>& order,
                          double fill) {
  const long n = static_cast<long>(order.size());
  attnlab::Matrix out = along_rows ? attnlab::Matrix::Constant(n, m.cols(), fill)
                                   : attnlab::Matrix::Constant(m.rows(), n, fill);
  for (long i = 0; i < n; ++i) {
    const int k = order[static_cast<std::size_t>(i)];
    if (k < 0) continue;
    if (along_rows)
      out.row(i) = m.row(k);
    else
      out.col(i) = m.col(k);
  }
  return out;
}

std::vector<std::string> TakeLabels(const std::vector<std::string>& labels,
                                    const std::vector<int>& order, const std::string& new_label) {
  if (labels.empty()) return labels;  // unlabelled stays unlabelled
  std::vector<std::string> out;
  for (int k : order) out.push_back(k < 0 ? new_label : labels[static_cast<std::size_t>(k)]);
  return out;
}

// Padding names context tokens by index: each follows its token; removed tokens drop out.
std::vector<int> RemapPadding(const std::vector<int>& padding, const std::vector<int>& order) {
  std::vector<int> out;
  for (int p : padding)
    for (std::size_t i = 0; i < order.size(); ++i)
      if (order[i] == p) out.push_back(static_cast<int>(i));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> Identity(int n) {
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  return order;
}

int Count(const attnlab::Scenario& s, Sequence seq) { return seq == Sequence::X ? s.n_x() : s.n_z(); }

const char* SeqName(Sequence seq) { return seq == Sequence::X ? "X" : "Z"; }

}  // namespace

void ReorderTokens(attnlab::Scenario& s, Sequence seq, const std::vector<int>& order,
                   const std::string& new_label) {
  if (order.empty())
    throw attnlab::ScenarioError(std::string(SeqName(seq)) +
                                 ": cannot remove the last token (attention needs at least one)");
  const bool rows = s.layout == attnlab::Layout::rows;  // tokens are rows of X (or its columns)
  const bool self = !s.cross_attention();
  if (seq == Sequence::X) {
    s.X = TakeAlong(s.X, rows, order, 0.0);
    s.tokens = TakeLabels(s.tokens, order, new_label);
    if (self) s.context_tokens = TakeLabels(s.context_tokens, order, new_label);
  } else {
    if (!s.Z) return;
    s.Z = TakeAlong(*s.Z, rows, order, 0.0);
    s.context_tokens = TakeLabels(s.context_tokens, order, new_label);
  }
  // The mask's query axis is X's tokens; its key axis is Z's (X's in self-attention).
  const bool queries = seq == Sequence::X, keys = seq == Sequence::Z || self;
  if (s.mask.cells) {
    if (queries) s.mask.cells = TakeAlong(*s.mask.cells, rows, order, 1.0);
    if (keys) s.mask.cells = TakeAlong(*s.mask.cells, !rows, order, 1.0);
  }
  if (keys) s.mask.padding = RemapPadding(s.mask.padding, order);
}

void InsertToken(attnlab::Scenario& s, Sequence seq, int at) {
  std::vector<int> order = Identity(Count(s, seq));
  at = std::clamp(at, 0, static_cast<int>(order.size()));
  order.insert(order.begin() + at, -1);
  const auto& labels = seq == Sequence::X ? s.tokens : s.context_tokens;
  std::string label = "new";
  for (int k = 2; std::find(labels.begin(), labels.end(), label) != labels.end(); ++k)
    label = "new" + std::to_string(k);
  ReorderTokens(s, seq, order, label);
}

void RemoveToken(attnlab::Scenario& s, Sequence seq, int index) {
  std::vector<int> order = Identity(Count(s, seq));
  if (index < 0 || index >= static_cast<int>(order.size())) return;
  order.erase(order.begin() + index);
  ReorderTokens(s, seq, order);
}

void MoveToken(attnlab::Scenario& s, Sequence seq, int index, int delta) {
  std::vector<int> order = Identity(Count(s, seq));
  const int to = index + delta;
  if (index < 0 || to < 0 || index >= static_cast<int>(order.size()) || to >= static_cast<int>(order.size()))
    return;
  std::swap(order[static_cast<std::size_t>(index)], order[static_cast<std::size_t>(to)]);
  ReorderTokens(s, seq, order);
}

void SetCrossAttention(attnlab::Scenario& s, bool cross) {
  if (cross == s.cross_attention()) return;
  if (cross) {
    s.Z = s.X;
    if (s.context_tokens.empty()) s.context_tokens = s.tokens;
    return;
  }
  if (s.d_z() != s.d_x())
    throw attnlab::ScenarioError("Z: is " + std::to_string(s.d_z()) + " wide and X " +
                                 std::to_string(s.d_x()) +
                                 "; make them equal (Sizes tab) before switching to self-attention");
  // Keys become X's tokens: keep the explicit mask's overlap, allow new keys, drop gone padding.
  std::vector<int> keys(static_cast<std::size_t>(s.n_x()), -1);
  for (int i = 0; i < s.n_x() && i < s.n_z(); ++i) keys[static_cast<std::size_t>(i)] = i;
  const bool rows = s.layout == attnlab::Layout::rows;
  if (s.mask.cells) s.mask.cells = TakeAlong(*s.mask.cells, !rows, keys, 1.0);
  s.mask.padding = RemapPadding(s.mask.padding, keys);
  s.Z.reset();
  s.context_tokens.clear();
}

namespace {

void DimWrapped(const char* text) {
  ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
  ImGui::TextWrapped("%s", text);
  ImGui::PopStyleColor();
}

void AttentionKind(AppState& state) {
  const bool cross = state.document.GetScenario().cross_attention();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Attention");
  ImGui::SameLine();
  if (ImGui::RadioButton("self", !cross) && cross)
    state.document.ApplyEdit("attention", [](attnlab::Scenario& s) { SetCrossAttention(s, false); });
  ImGui::SameLine();
  if (ImGui::RadioButton("cross", cross) && !cross)
    state.document.ApplyEdit("attention", [](attnlab::Scenario& s) { SetCrossAttention(s, true); });
  DimWrapped(cross ? "queries from X; keys and values from the context Z"
                   : "queries, keys and values all from X");
  ShowEditError(state.document, "attention");
}

void LabelField(AppState& state, State& self, Sequence seq, int i, const char* source) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const std::vector<std::string>& labels = seq == Sequence::X ? s.tokens : s.context_tokens;
  char buf[128] = {};
  if (i < static_cast<int>(labels.size()))
    std::snprintf(buf, sizeof buf, "%s", labels[static_cast<std::size_t>(i)].c_str());
  const std::string hint = "#" + std::to_string(i);
  const ImGuiID id = ImGui::GetID("##label");
  ImGui::SetNextItemWidth(-1.0f);
  const bool changed = ImGui::InputTextWithHint("##label", hint.c_str(), buf, sizeof buf);
  if (changed) {
    const std::string text = buf;
    const int n = seq == Sequence::X ? s.n_x() : s.n_z();
    state.document.ApplyEdit(source, [=](attnlab::Scenario& sc) {
      std::vector<std::string>& l = seq == Sequence::X ? sc.tokens : sc.context_tokens;
      if (l.empty())  // the first label given: the others keep the names the views show
        for (int k = 0; k < n; ++k) l.push_back("#" + std::to_string(k));
      l[static_cast<std::size_t>(i)] = text;
      // Self-attention keys are X's tokens: their labels follow when given separately.
      if (seq == Sequence::X && !sc.cross_attention() && !sc.context_tokens.empty())
        sc.context_tokens[static_cast<std::size_t>(i)] = text;
    }, self.label_editing == id);
    self.label_editing = id;
  }
  if (ImGui::IsItemDeactivated() && self.label_editing == id) self.label_editing = 0;
}

void RowButtons(AppState& state, Sequence seq, int i, int n, const char* source) {
  ImGui::BeginDisabled(i == 0);
  if (ImGui::ArrowButton("##up", ImGuiDir_Up))
    state.document.ApplyEdit(source, [=](attnlab::Scenario& s) { MoveToken(s, seq, i, -1); });
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("Move up");
  ImGui::SameLine(0, 2);
  ImGui::BeginDisabled(i == n - 1);
  if (ImGui::ArrowButton("##down", ImGuiDir_Down))
    state.document.ApplyEdit(source, [=](attnlab::Scenario& s) { MoveToken(s, seq, i, +1); });
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("Move down");
  ImGui::SameLine(0, 2);
  if (ImGui::Button("\xC3\x97", ImVec2(ImGui::GetFrameHeight(), 0)))  // ×
    state.document.ApplyEdit(source, [=](attnlab::Scenario& s) { RemoveToken(s, seq, i); });
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Remove this token (its embedding too)");
}

void TokenList(AppState& state, State& self, Sequence seq) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const int n = seq == Sequence::X ? s.n_x() : s.n_z();
  const char* source = seq == Sequence::X ? "tokens X" : "tokens Z";
  const char* label_source = seq == Sequence::X ? "labels X" : "labels Z";
  ImGui::PushFont(GetFonts().bold);
  ImGui::Text(seq == Sequence::X ? "X tokens" : "Z tokens");
  ImGui::PopFont();
  ImGui::SameLine();
  ImGui::TextColored(DimTextColor(), seq == Sequence::X ? "n_x = %d, the queries" : "n_z = %d, keys and values", n);
  ImGui::PushID(source);
  const float fs = ImGui::GetFontSize();
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg;
  if (ImGui::BeginTable("##tokens", 3, flags)) {
    ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed, fs * 1.6f);
    ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("actions", ImGuiTableColumnFlags_WidthFixed,
                            ImGui::GetFrameHeight() * 3 + 6);
    ImGuiListClipper clipper;
    clipper.Begin(n);
    while (clipper.Step())
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        ImGui::PushID(i);
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::AlignTextToFramePadding();
        ImGui::TextColored(DimTextColor(), "%d", i);
        ImGui::TableSetColumnIndex(1);
        LabelField(state, self, seq, i, label_source);
        ImGui::TableSetColumnIndex(2);
        RowButtons(state, seq, i, n, source);
        ImGui::PopID();
      }
    ImGui::EndTable();
  }
  if (ImGui::Button("+ Add token"))
    state.document.ApplyEdit(source, [=](attnlab::Scenario& sc) { InsertToken(sc, seq, n); });
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Appends a token with a zero embedding (edit it in %s below)",
                      seq == Sequence::X ? "X" : "Z");
  ShowEditError(state.document, source);
  ShowEditError(state.document, label_source);
  ImGui::PopID();
}

}  // namespace

void Draw(AppState& state, State& self) {
  AttentionKind(state);
  ImGui::Separator();
  TokenList(state, self, Sequence::X);
  if (state.document.GetScenario().cross_attention()) {
    ImGui::Spacing();
    TokenList(state, self, Sequence::Z);
  }
}

}  // namespace attnlab::app::TokensPanel
