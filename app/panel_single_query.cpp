#include "panel_single_query.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <numeric>
#include <string>
#include <vector>

#include "attnlab/attention.h"
#include "inspector_math.h"
#include "stage_labels.h"
#include "theme.h"

namespace attnlab::app::SingleQueryPanel {
namespace {

// Algorithm 3 for one (head, query), recomputed only when the Scenario or the choice changes.
struct QueryCache {
  ModelCache model;
  std::uint64_t version = 0;
  int head = -1, query = -1;
  bool ok = false;
  attnlab::SingleQuery result;

  const attnlab::SingleQuery* Get(const AppState& state, int h, int q) {
    const attnlab::Model* m = model.Get(state);
    if (!m) return nullptr;
    if (version != state.Version() || head != h || query != q) {
      version = state.Version();
      head = h;
      query = q;
      try {
        result = attnlab::single_query(*m, h, q);
        ok = true;
      } catch (const std::exception&) {
        ok = false;
      }
    }
    return ok ? &result : nullptr;
  }
};

QueryCache g_cache;  // one panel; the cache is keyed by Scenario version, head and query

std::string VectorText(const attnlab::Vector& v) {
  constexpr int kMaxShown = 12;
  std::string out = "[";
  for (int i = 0; i < v.size() && i < kMaxShown; ++i) out += (i ? ", " : "") + Num(v(i));
  if (v.size() > kMaxShown) out += ", \xE2\x80\xA6 (" + std::to_string(v.size()) + " values)";
  return out + "]";
}

void MonoWrapped(const std::string& text) {
  ImGui::PushFont(GetFonts().mono);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopFont();
}

void Pickers(AppState& state, const std::vector<std::string>& queries) {
  const int n = static_cast<int>(queries.size());
  state.ui.single_query = std::clamp(state.ui.single_query, 0, n - 1);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Query");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
  const std::string preview = queries[static_cast<std::size_t>(state.ui.single_query)];
  if (ImGui::BeginCombo("##query", preview.c_str())) {
    for (int i = 0; i < n; ++i) {
      char label[96];
      std::snprintf(label, sizeof label, "%s  (%d)", queries[static_cast<std::size_t>(i)].c_str(), i);
      if (ImGui::Selectable(label, i == state.ui.single_query)) state.ui.single_query = i;
    }
    ImGui::EndCombo();
  }
  const int heads = state.HeadCount();
  if (heads <= 1) return;
  ImGui::SameLine();
  ImGui::TextUnformatted("Head");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4.0f);
  int head = state.ui.selected_head + 1;  // the same selection as the Pipeline panel
  if (ImGui::InputInt("##head", &head, 1, 1)) state.ui.selected_head = std::clamp(head, 1, heads) - 1;
}

// One horizontal bar per key, filled to its weight, with the number beside it.
void WeightBar(double weight, bool masked) {
  const float fs = ImGui::GetFontSize();
  const float width = std::max(fs * 3.0f, ImGui::GetContentRegionAvail().x - fs * 3.2f);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p, ImVec2(p.x + width, p.y + h), ImGui::GetColorU32(ImGuiCol_FrameBg));
  if (!masked)
    dl->AddRectFilled(p, ImVec2(p.x + width * static_cast<float>(weight), p.y + h), AccentColor());
  ImGui::Dummy(ImVec2(width, h));
  ImGui::SameLine();
  ImGui::PushFont(GetFonts().mono);
  if (masked)
    ImGui::TextColored(DimTextColor(), "0");
  else
    ImGui::Text("%.3f", weight);
  ImGui::PopFont();
}

void KeyTable(const AppState& state, const attnlab::SingleQuery& r, double scale, int query,
              const std::vector<std::string>& keys) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                                ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_ScrollY;
  const float fs = ImGui::GetFontSize();
  const float rows_h = ImGui::GetTextLineHeightWithSpacing() * (float(keys.size()) + 1.6f);
  const float height = std::min(rows_h, std::max(fs * 6.0f, ImGui::GetContentRegionAvail().y - fs * 5.0f));
  if (!ImGui::BeginTable("##keys", 4, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("key", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("q\xC2\xB7k_j", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("scaled", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("weight", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  for (int j = 0; j < r.scores.size(); ++j) {
    const std::string why = MaskReason(state.GetScenario(), query, j);
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(keys[static_cast<std::size_t>(j)].c_str());
    ImGui::PushFont(GetFonts().mono);
    ImGui::TableSetColumnIndex(1);
    ImGui::TextUnformatted(Num(r.scores(j)).c_str());
    ImGui::TableSetColumnIndex(2);
    if (why.empty())
      ImGui::TextUnformatted(Num(r.scores(j) * scale).c_str());
    else
      ImGui::TextColored(DimTextColor(), "\xE2\x88\x92\xE2\x88\x9E");
    ImGui::PopFont();
    if (!why.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("masked: %s", why.c_str());
    ImGui::TableSetColumnIndex(3);
    WeightBar(r.weights(j), !why.empty());
  }
  ImGui::EndTable();
}

// y = sum_j a_j v_j: the largest contributions by name, then the vector.
void OutputLine(const attnlab::SingleQuery& r, const std::vector<std::string>& keys) {
  std::vector<int> order(static_cast<std::size_t>(r.weights.size()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return r.weights(a) > r.weights(b); });
  std::string sum = "y = \xCE\xA3_j a_j v_j = ";
  int shown = 0;
  for (int j : order) {
    if (shown == 4 || r.weights(j) <= 0) break;
    sum += (shown ? " + " : "") + Num(r.weights(j)) + "\xC3\x97v(" + keys[static_cast<std::size_t>(j)] + ")";
    ++shown;
  }
  if (shown < static_cast<int>(std::count_if(order.begin(), order.end(), [&](int j) { return r.weights(j) > 0; })))
    sum += " + \xE2\x80\xA6";
  if (shown == 0) sum += "0 (every key is masked)";
  MonoWrapped(sum);
  MonoWrapped("  = " + VectorText(r.output));
}

}  // namespace

void Draw(AppState& state) {
  const attnlab::Scenario& s = state.GetScenario();
  const std::vector<std::string> queries = QueryTokenLabels(s), keys = KeyTokenLabels(s);
  if (queries.empty() || keys.empty()) return;
  Pickers(state, queries);
  const int head = std::clamp(state.ui.selected_head, 0, state.HeadCount() - 1);
  const int query = state.ui.single_query;
  const attnlab::SingleQuery* r = g_cache.Get(state, head, query);
  const attnlab::Model* model = g_cache.model.Get(state);
  if (!r || !model) return;
  const std::string x = "x_" + std::to_string(query);
  MonoWrapped((s.layout == attnlab::Layout::rows ? "q = " + x + " W_q" : "q = W_q " + x) +
              " + b_q = " + VectorText(r->q));
  ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
  ImGui::TextWrapped("a = softmax(q\xC2\xB7k_j \xC3\x97 %s) over the keys it may attend",
                     Num(model->scale).c_str());
  ImGui::PopStyleColor();
  KeyTable(state, *r, model->scale, query, keys);
  OutputLine(*r, keys);
}

}  // namespace attnlab::app::SingleQueryPanel
