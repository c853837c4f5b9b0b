#include "panels/panel_single_query.h"

#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <numeric>
#include <string>
#include <vector>

#include "attnlab/attention.h"
#include "attnlab/number_format.h"
#include "view/inspector_math.h"
#include "view/stage_labels.h"
#include "view/text_wrap.h"
#include "widgets/computing_badge.h"
#include "widgets/control_marks.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_single_query {
namespace {

std::string VectorText(const attnlab::Vector& v, int decimals) {
  constexpr int kMaxShown = 12;
  std::string out = "[";
  for (int i = 0; i < v.size() && i < kMaxShown; ++i) out += (i ? ", " : "") + Num(v(i), decimals);
  if (v.size() > kMaxShown) out += ", \xE2\x80\xA6 (" + std::to_string(v.size()) + " values)";
  return out + "]";
}

// `text` in the current font, wrapped between numbers only (never "-0." and "6732" on two lines);
// each line is told to `marks` as "text:" + the line.
void WrappedBetweenNumbers(const std::string& text, const ControlMarks& marks) {
  const float width = ImGui::GetContentRegionAvail().x;
  const auto measure = [](const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; };
  for (const std::string& line : WrapAtSpaces(text, width, measure)) {
    ImGui::TextUnformatted(line.c_str());
    MarkLastItem(marks, ("text:" + line).c_str());
  }
}

void MonoWrapped(const std::string& text, const ControlMarks& marks) {
  ImGui::PushFont(GetFonts().mono);
  WrappedBetweenNumbers(text, marks);
  ImGui::PopFont();
}

// The query token (`query`, kept by the panel) and the head to show.
void Pickers(AppState& state, const std::vector<std::string>& queries, int& query) {
  const int n = static_cast<int>(queries.size());
  query = std::clamp(query, 0, n - 1);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Query");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
  const std::string preview = queries[static_cast<std::size_t>(query)];
  if (ImGui::BeginCombo("##query", preview.c_str())) {
    ImGuiListClipper clipper;  // only the tokens in view: there may be 2048
    clipper.Begin(n);
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        char label[96];
        std::snprintf(label, sizeof label, "%s  (%d)", queries[static_cast<std::size_t>(i)].c_str(), i);
        if (ImGui::Selectable(label, i == query)) query = i;
      }
    }
    ImGui::EndCombo();
  }
  const int heads = state.document.HeadCount();
  if (heads <= 1) return;
  ImGui::SameLine();
  ImGui::TextUnformatted("Head");
  ImGui::SameLine();
  const float fs = ImGui::GetFontSize();  // room for the number and its - + buttons, if there is
  ImGui::SetNextItemWidth(std::clamp(ImGui::GetContentRegionAvail().x, fs * 4.0f, fs * 6.0f));
  int head = state.ui.selected_head;  // the same selection as the Pipeline panel, counted from 0
  if (ImGui::InputInt("##head", &head, 1, 1))
    state.ui.selected_head = std::clamp(head, 0, heads - 1);
}

// One horizontal bar per key, filled to its weight, with the number beside it. The bar gives way
// to the number: in a narrow panel there is only the number, never a cut one.
void WeightBar(double weight, bool masked, int decimals) {
  const float fs = ImGui::GetFontSize();
  ImGui::PushFont(GetFonts().mono);
  const float number_w = ImGui::CalcTextSize("0.000").x;
  const ImGuiStyle& style = ImGui::GetStyle();  // the cell's padding clips its right edge
  const float width = ImGui::GetContentRegionAvail().x - number_w - style.ItemSpacing.x -
                      style.CellPadding.x * 2.0f;
  if (width >= fs * 1.5f) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, ImVec2(p.x + width, p.y + h), ImGui::GetColorU32(ImGuiCol_FrameBg));
    if (!masked)
      dl->AddRectFilled(p, ImVec2(p.x + width * static_cast<float>(weight), p.y + h),
                        AccentColor());
    ImGui::Dummy(ImVec2(width, h));
    ImGui::SameLine();
  }
  if (masked)
    ImGui::TextColored(DimTextColor(), "0");
  else
    ImGui::TextUnformatted(attnlab::format_fixed(weight, decimals).c_str());
  ImGui::PopFont();
}

// y = sum_j a_j v_j: the largest contributions by name.
std::string WeightedSum(const attnlab::SingleQuery& r, const std::vector<std::string>& keys,
                        int decimals) {
  std::vector<int> order(static_cast<std::size_t>(r.weights.size()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return r.weights(a) > r.weights(b); });
  std::string sum = "y = \xCE\xA3_j a_j v_j = ";
  int shown = 0;
  for (int j : order) {
    if (shown == 4 || r.weights(j) <= 0) break;
    sum += (shown ? " + " : "") + Num(r.weights(j), decimals) + "\xC3\x97v(" +
           keys[static_cast<std::size_t>(j)] + ")";
    ++shown;
  }
  if (shown < static_cast<int>(std::count_if(order.begin(), order.end(), [&](int j) { return r.weights(j) > 0; })))
    sum += " + \xE2\x80\xA6";
  if (shown == 0) sum += "0 (every key is masked)";
  return sum;
}

// Algorithm 3 for one (head, query) of the trace shown, with the Model that trace was computed
// from (never resolved here), and what the panel writes of it: recomputed only when that trace,
// the head or the query changes.
struct QueryView {
  attnlab::SingleQuery result;
  attnlab::Vector logits;         ///< what the softmax reads: scale q.k_j (+ ALiBi's bias), -inf masked
  std::vector<std::string> keys;  ///< the keys' labels
  std::string weighted_sum;       ///< "y = Σ_j a_j v_j = 0.5×v(cat) + …"
};

class QueryCache {
 public:
  const QueryView* Get(const AppState& state, int head, int query) {
    const attnlab::Model* model = state.document.TraceModelFor(head);  // a head shown ahead: its own
    if (!model) return nullptr;
    const int decimals = state.ui.decimals;
    if (model != model_ || state.document.TraceVersion() != trace_version_ || head != head_ ||
        query != query_ || decimals != decimals_) {
      model_ = model;
      decimals_ = decimals;
      trace_version_ = state.document.TraceVersion();
      head_ = head;
      query_ = query;
      ok_ = Compute(*state.document.TraceScenarioFor(head), *model);
    }
    return ok_ ? &view_ : nullptr;
  }

 private:
  bool Compute(const attnlab::Scenario& s, const attnlab::Model& model) {
    try {
      view_.result = attnlab::single_query(model, head_, query_);
      view_.logits = view_.result.scores * model.scale;
      for (Eigen::Index j = 0; j < view_.logits.size() && !model.slopes.empty(); ++j)
        view_.logits(j) = attnlab::biased_logit(view_.result.scores(j), model.scale,
                                                attnlab::alibi_bias(model, std::size_t(head_), query_, j));
    } catch (const std::exception&) {
      return false;
    }
    view_.keys = KeyTokenLabels(s);
    view_.weighted_sum = WeightedSum(view_.result, view_.keys, decimals_);
    return true;
  }

  const attnlab::Model* model_ = nullptr;
  std::uint64_t trace_version_ = 0;
  int head_ = -1, query_ = -1;
  int decimals_ = 0;
  bool ok_ = false;
  QueryView view_;
};

// One row per key, only those in view (2048 keys are 2048 rows).
void KeyTable(const attnlab::Scenario& s, const attnlab::Model& model, const QueryView& view,
              int query, int decimals) {
  const attnlab::SingleQuery& r = view.result;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                                ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_ScrollY;
  const float fs = ImGui::GetFontSize();
  const float rows_h = ImGui::GetTextLineHeightWithSpacing() * (float(view.keys.size()) + 1.6f);
  const float height = std::min(rows_h, std::max(fs * 6.0f, ImGui::GetContentRegionAvail().y - fs * 5.0f));
  if (!ImGui::BeginTable("##keys", 4, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("key", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("q\xC2\xB7k_j", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn(model.slopes.empty() ? "scaled" : "scaled + bias", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("weight", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(r.scores.size()));
  while (clipper.Step()) {
    for (int j = clipper.DisplayStart; j < clipper.DisplayEnd; ++j) {
      const bool masked = !model.allowed(query, j);
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextUnformatted(view.keys[static_cast<std::size_t>(j)].c_str());
      ImGui::PushFont(GetFonts().mono);
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(Num(r.scores(j), decimals).c_str());
      ImGui::TableSetColumnIndex(2);
      if (masked)
        ImGui::TextColored(DimTextColor(), "\xE2\x88\x92\xE2\x88\x9E");
      else
        ImGui::TextUnformatted(Num(view.logits(j), decimals).c_str());
      ImGui::PopFont();
      if (masked && ImGui::IsItemHovered()) ImGui::SetTooltip("masked: %s", MaskReason(s, query, j).c_str());
      ImGui::TableSetColumnIndex(3);
      WeightBar(r.weights(j), masked, decimals);
    }
  }
  ImGui::EndTable();
}

class SingleQueryPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override;

 private:
  QueryCache cache_;
  int query_ = 0;  ///< the query token shown
};

}  // namespace

void SingleQueryPanel::Draw(AppState& state) {
  const std::vector<std::string> queries = QueryTokenLabels(state.document.GetScenario());
  if (queries.empty()) return;
  Pickers(state, queries, query_);
  const int head = std::clamp(state.ui.selected_head, 0, state.document.HeadCount() - 1);
  const int query = query_;
  const attnlab::Trace& trace = state.document.GetTrace();
  const QueryView* view = cache_.Get(state, head, query);
  // The trace's own numbers while a newer one computes, dimmed as its heatmaps are.
  const bool stale = ComputingBadge(state.document, trace) && state.document.HeadStale(head);
  if (!view) return;
  if (stale) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, ImGui::GetStyle().Alpha * kStaleAlpha);
  const attnlab::Scenario& s = *state.document.TraceScenarioFor(head);
  const attnlab::Model& model = *state.document.TraceModelFor(head);
  const std::string x = "x_" + std::to_string(query);
  const ControlMarks& marks = state.on_control;
  MonoWrapped((s.layout == attnlab::Layout::rows ? "q = " + x + " W_q" : "q = W_q " + x) +
                  " + b_q = " + VectorText(view->result.q, state.ui.decimals),
              marks);
  if (view->result.q_rot.size())
    MonoWrapped("q_rot = q turned by position " + Num(model.query_positions[std::size_t(query)], 0) + " = " +
                    VectorText(view->result.q_rot, state.ui.decimals) + "  (k_j turned by theirs)",
                marks);
  ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
  const std::string dot = view->result.q_rot.size() ? "q_rot\xC2\xB7k_rot_j" : "q\xC2\xB7k_j";
  const std::string bias = model.slopes.empty() ? "" : " \xE2\x88\x92 m|p \xE2\x88\x92 c_j|";
  WrappedBetweenNumbers(
      "a = softmax(" + dot + " \xC3\x97 " + Num(model.scale, state.ui.decimals) + bias + ") over the keys it may attend",
      marks);
  ImGui::PopStyleColor();
  KeyTable(s, model, *view, query, state.ui.decimals);
  MonoWrapped(view->weighted_sum, marks);
  MonoWrapped("= " + VectorText(view->result.output, state.ui.decimals), marks);
  if (stale) ImGui::PopStyleVar();
}

std::unique_ptr<PanelContents> Make() { return std::make_unique<SingleQueryPanel>(); }

}  // namespace attnlab::app::panel_single_query
