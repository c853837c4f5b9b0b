#include "panels/panel_plane.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "attnlab/colormap.h"
#include "attnlab/edits.h"
#include "attnlab/numbering.h"
#include "view/inspector_math.h"
#include "view/plane.h"
#include "view/stage_labels.h"
#include "widgets/computing_badge.h"
#include "widgets/control_marks.h"
#include "widgets/edit_error.h"
#include "widgets/panel_tooltip.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_plane {
namespace {

constexpr const char* kSource = "Plane";  // names the drag in a refused edit's message
// Okabe & Ito's sky blue and a lightened vermillion: apart for colour-vision deficiencies, and
// neither is a colour of the weights' colormaps' ends.
constexpr ImU32 kQueryColor = IM_COL32(86, 180, 233, 255);
constexpr ImU32 kKeyColor = IM_COL32(240, 110, 50, 255);
constexpr int kMaxLabelled = 64;     // more points than this: no labels (they would only overlap)
constexpr int kMaxTooltipRows = 16;  // keys listed in the tooltip

// The square plot: plot units to screen pixels, y up.
struct Frame {
  ImVec2 min;
  float side = 0;
  double extent = 1;  // half the side, in plot units
  float Scale() const { return float(side / (2.0 * extent)); }
  ImVec2 Origin() const { return {min.x + side * 0.5f, min.y + side * 0.5f}; }
  ImVec2 Max() const { return {min.x + side, min.y + side}; }
  ImVec2 ToScreen(double x, double y) const {
    const ImVec2 o = Origin();
    return {o.x + float(x) * Scale(), o.y - float(y) * Scale()};
  }
};

struct Hit {
  bool key = false;
  int index = -1;
};

ImU32 WeightColor(Colormap map, double w) {
  const Rgb8 c = MapValue({map, 0.0, 1.0}, w);
  return IM_COL32(c.r, c.g, c.b, 255);
}

// A line from `from` to `to`, with a filled head at `to` when `head` > 0.
void Arrow(ImDrawList* dl, ImVec2 from, ImVec2 to, ImU32 col, float thick, float head) {
  const float dx = to.x - from.x, dy = to.y - from.y, len = std::sqrt(dx * dx + dy * dy);
  if (len < 1.0f) return;
  const float ux = dx / len, uy = dy / len, h = std::min(head, len * 0.6f);
  const ImVec2 base(to.x - ux * h, to.y - uy * h);
  dl->AddLine(from, head > 0 ? base : to, col, thick);
  if (head > 0)
    dl->AddTriangleFilled(to, ImVec2(base.x - uy * h * 0.5f, base.y + ux * h * 0.5f),
                          ImVec2(base.x + uy * h * 0.5f, base.y - ux * h * 0.5f), col);
}

// A label beside the tip of an arrow from the origin, on the side away from the origin, kept
// inside [lo, hi] (the plot).
void TipLabel(ImDrawList* dl, ImVec2 origin, ImVec2 tip, ImU32 col, const std::string& text,
              ImVec2 lo, ImVec2 hi) {
  const float fs = ImGui::GetFontSize();
  const ImVec2 size = ImGui::CalcTextSize(text.c_str());
  float dx = tip.x - origin.x, dy = tip.y - origin.y;
  const float len = std::sqrt(dx * dx + dy * dy);
  if (len > 1.0f)
    dx /= len, dy /= len;
  else
    dx = 1.0f, dy = 0.0f;
  ImVec2 at(tip.x + dx * fs * 0.9f - (dx < 0 ? size.x : 0.0f) -
                (std::abs(dx) < 0.3f ? size.x * 0.5f : 0.0f),
            tip.y + dy * fs * 0.9f - size.y * 0.5f + dy * size.y * 0.4f);
  at.x = std::clamp(at.x, lo.x + 2, std::max(lo.x + 2, hi.x - size.x - 2));
  at.y = std::clamp(at.y, lo.y + 2, std::max(lo.y + 2, hi.y - size.y - 2));
  dl->AddText(ImVec2(at.x + 1, at.y + 1), IM_COL32(0, 0, 0, 200),
              text.c_str());  // readable over lines
  dl->AddText(at, col, text.c_str());
}

// Grid lines every `step`, the axes through the origin, the numbers along the bottom and left
// edges and the axes' names.
void Grid(ImDrawList* dl, const Frame& f, bool principal) {
  const double step = PlaneGridStep(f.extent);
  const int n = int(std::floor(f.extent / step + 1e-9));
  const ImU32 faint = ImGui::GetColorU32(ImGuiCol_Border, 0.45f),
              axis = ImGui::GetColorU32(ImGuiCol_Text, 0.55f);
  const ImU32 dim = ImGui::GetColorU32(DimTextColor());
  const float fs = ImGui::GetFontSize(), pad = fs * 0.2f;
  dl->AddRectFilled(f.min, f.Max(), ImGui::GetColorU32(ImGuiCol_FrameBg, 0.5f));
  char buf[32];
  for (int k = -n; k <= n; ++k) {
    const ImVec2 v = f.ToScreen(k * step, 0), h = f.ToScreen(0, k * step);
    dl->AddLine(ImVec2(v.x, f.min.y), ImVec2(v.x, f.Max().y), k == 0 ? axis : faint,
                k == 0 ? 1.5f : 1.0f);
    dl->AddLine(ImVec2(f.min.x, h.y), ImVec2(f.Max().x, h.y), k == 0 ? axis : faint,
                k == 0 ? 1.5f : 1.0f);
    if (k == 0 || std::abs(k * step) > f.extent * 0.97) continue;  // none cut by the edges
    std::snprintf(buf, sizeof buf, "%g", k * step);
    const ImVec2 size = ImGui::CalcTextSize(buf);
    dl->AddText(ImVec2(v.x - size.x * 0.5f, f.Max().y - size.y - pad), dim, buf);
    dl->AddText(ImVec2(f.min.x + pad, h.y - size.y * 0.5f), dim, buf);
  }
  const char* x_name = principal ? "PC1" : "d_k 0";
  const char* y_name = principal ? "PC2" : "d_k 1";
  const ImVec2 o = f.Origin();
  dl->AddText(ImVec2(f.Max().x - ImGui::CalcTextSize(x_name).x - pad, o.y + pad), axis, x_name);
  dl->AddText(ImVec2(o.x + pad, f.min.y + pad), axis, y_name);
}

class PlanePanel final : public PanelContents {
 public:
  void Draw(AppState& state) override {
    const attnlab::Trace& trace = state.document.GetTrace();
    const attnlab::Scenario* scenario = state.document.TraceScenario();
    const attnlab::Model* model = state.document.TraceModel();
    if (trace.heads.empty() || !scenario || !model) {
      ImGui::TextDisabled("No trace yet.");
      return;
    }
    const int head = std::clamp(state.ui.selected_head, 0, int(trace.heads.size()) - 1);
    Update(state, trace, *model, head);
    ComputingBadge(state.document, trace);
    Header(state, head);
    ShowEditError(state.document, kSource);
    Plot(state, trace, *scenario, head);
  }

 private:
  // The projection and whether dragging may edit, once per trace version and head. The plot's
  // range stays while a drag runs, so that the point stays under the mouse.
  void Update(AppState& state, const attnlab::Trace& trace, const attnlab::Model& model, int head) {
    if (computed_for_ == state.document.TraceVersion() && head_ == head && proj_.queries.size())
      return;
    computed_for_ = state.document.TraceVersion();
    if (head_ != head) drag_.active = false;
    head_ = head;
    const HeadVectors v = ScoreVectors(trace, std::size_t(head));
    d_k_ = int(v.Q.cols());
    rope_ = trace.has_rope();
    proj_ = ProjectToPlane(v.Q, v.K);
    refusal_ = PlaneDragRefusal(model, std::size_t(head));
    if (!drag_.active) extent_ = PlaneExtent(proj_);
  }

  void Header(AppState& state, int head) {
    ImGui::Text("Head %s:", attnlab::index_text(head).c_str());
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kQueryColor), "queries (arrowheads)");
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kKeyColor), "keys (rings)");
    char buf[200];
    if (proj_.principal)
      std::snprintf(
          buf, sizeof buf,
          "d_k = %d%s, on its two principal axes: PC1 %.0f%%, PC2 %.0f%% of the squared lengths "
          "(uncentred: the origin stays)",
          d_k_, rope_ ? " (Q_rot, K_rot)" : "", 100 * proj_.explained[0], 100 * proj_.explained[1]);
    else
      std::snprintf(
          buf, sizeof buf, "d_k = %d: the vectors themselves, %s", d_k_,
          rope_ ? "Q_rot and K_rot (turned by RoPE), what the scores use" : "the scores' q and k");
    ImGui::TextWrapped("%s", buf);
    MarkLastItem(state.on_control, (std::string("plane axes: ") + buf).c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, DimTextColor());
    ImGui::TextWrapped(
        "Hover a query: each key's shadow on it, coloured by its weight. %s",
        refusal_.empty() ? "Drag a point to move its token's embedding." : refusal_.c_str());
    ImGui::PopStyleColor();
  }

  // The square plot in the room left, centred; its interactions, then its drawing.
  void Plot(AppState& state, const attnlab::Trace& trace, const attnlab::Scenario& scenario,
            int head) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float fs = ImGui::GetFontSize();
    Frame f;
    f.side = std::floor(std::max(fs * 8.0f, std::min(avail.x, avail.y)));
    f.extent = extent_;
    const ImVec2 cursor = ImGui::GetCursorScreenPos();
    f.min = ImVec2(std::floor(cursor.x + std::max(0.0f, (avail.x - f.side) * 0.5f)), cursor.y);
    ImGui::SetCursorScreenPos(f.min);
    ImGui::InvisibleButton("##plane", ImVec2(f.side, f.side));
    MarkLastItem(state.on_control, "plane plot");
    const Hit hit = ImGui::IsItemHovered() || ImGui::IsItemActive() ? HitTest(f) : Hit{};
    DragPoint(state, scenario, f, hit);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->PushClipRect(f.min, f.Max(), true);
    Grid(dl, f, proj_.principal);
    const int shown = drag_.active ? (drag_.key ? -1 : drag_.index)
                                   : (hit.index >= 0 && !hit.key ? hit.index : -1);
    Points(dl, f, scenario, shown);
    if (shown >= 0) Shadows(dl, f, trace, state.ui.colormap, head, shown);  // over the points
    dl->PopClipRect();
    MarkPoints(state, f);
    if (!drag_.active && hit.index >= 0) Tooltip(state, trace, scenario, head, hit);
  }

  // The point under the mouse: the nearest within reach, a query before a key at the same place.
  Hit HitTest(const Frame& f) const {
    const ImVec2 m = ImGui::GetMousePos();
    const float reach = ImGui::GetFontSize() * 0.8f;
    float best = reach * reach;
    Hit hit;
    for (int key = 0; key < 2; ++key) {
      const attnlab::Matrix& pts = key ? proj_.keys : proj_.queries;
      for (Eigen::Index i = 0; i < pts.rows(); ++i) {
        const ImVec2 p = f.ToScreen(pts(i, 0), pts(i, 1));
        const float d = (p.x - m.x) * (p.x - m.x) + (p.y - m.y) * (p.y - m.y);
        if (d < best) best = d, hit = {key == 1, int(i)};
      }
    }
    return hit;
  }

  // Pressing on a point starts a drag when the points are the embeddings; each move stores the
  // token's embedding, snapped to 0.01, and the whole drag is one undo step.
  void DragPoint(AppState& state, const attnlab::Scenario& scenario, const Frame& f,
                 const Hit& hit) {
    if (ImGui::IsItemActivated() && refusal_.empty() && hit.index >= 0) {
      const attnlab::Matrix& pts = hit.key ? proj_.keys : proj_.queries;
      drag_ = {true, hit.key, hit.index, pts(hit.index, 0), pts(hit.index, 1), false};
    }
    if (!ImGui::IsItemActive()) drag_.active = false;
    if (!drag_.active || !refusal_.empty()) return;
    ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
    const ImVec2 delta = ImGui::GetMouseDragDelta(ImGuiMouseButton_Left);
    const auto snap = [](double v) { return std::round(v * 100.0) / 100.0; };
    const double x = snap(drag_.x0 + delta.x / f.Scale()), y = snap(drag_.y0 - delta.y / f.Scale());
    const attnlab::Matrix& pts = drag_.key ? proj_.keys : proj_.queries;
    if (drag_.index >= pts.rows() || (x == pts(drag_.index, 0) && y == pts(drag_.index, 1))) return;
    const attnlab::Sequence seq =
        drag_.key && scenario.cross_attention() ? attnlab::Sequence::Z : attnlab::Sequence::X;
    attnlab::Vector value(2);
    value << x, y;
    const int index = drag_.index;
    state.document.ApplyEdit(
        kSource, [&](attnlab::Scenario& s) { attnlab::set_token_embedding(s, seq, index, value); },
        drag_.edited);
    drag_.edited = true;
  }

  // Query `query`'s direction across the plot, and every key dropped onto it: the foot of the
  // perpendicular is at q.k / |q| along it, coloured by the pair's weight.
  void Shadows(ImDrawList* dl, const Frame& f, const attnlab::Trace& trace, Colormap map, int head,
               int query) const {
    const double qx = proj_.queries(query, 0), qy = proj_.queries(query, 1),
                 len = std::hypot(qx, qy);
    if (!(len > 1e-12)) return;
    const double ux = qx / len, uy = qy / len, far = f.extent * 1.5;
    const float fs = ImGui::GetFontSize(), thick = std::max(2.0f, fs * 0.12f);
    const ImU32 halo = IM_COL32(225, 225, 225, 200);
    dl->AddLine(f.ToScreen(-far * ux, -far * uy), f.ToScreen(far * ux, far * uy),
                kQueryColor & 0x90FFFFFF, thick * 0.6f);
    for (Eigen::Index j = 0; j < proj_.keys.rows(); ++j) {
      const double kx = proj_.keys(j, 0), ky = proj_.keys(j, 1), t = kx * ux + ky * uy;
      const ImU32 col = WeightColor(map, WeightOf(trace, std::size_t(head), query, int(j)));
      const ImVec2 foot = f.ToScreen(t * ux, t * uy), key = f.ToScreen(kx, ky);
      // A halo first: the map's dark end stays visible on the (lecture mode's black) background.
      dl->AddLine(key, foot, halo, thick + 3.0f);
      dl->AddLine(key, foot, col, thick);
      dl->AddCircleFilled(foot, fs * 0.32f, col);
      dl->AddCircle(foot, fs * 0.32f, halo, 0, 2.0f);
    }
  }

  // Keys under the queries: where they coincide (self-attention with identity projections) a
  // key's thick shaft shows beside a query's thin one, and its ring around the query's head.
  void Points(ImDrawList* dl, const Frame& f, const attnlab::Scenario& scenario,
              int hovered_query) const {
    const float fs = ImGui::GetFontSize(), thick = std::max(2.0f, fs * 0.12f);
    const ImVec2 o = f.Origin();
    for (Eigen::Index j = 0; j < proj_.keys.rows(); ++j)
      Arrow(dl, o, f.ToScreen(proj_.keys(j, 0), proj_.keys(j, 1)), kKeyColor, thick * 2.4f, 0.0f);
    for (Eigen::Index i = 0; i < proj_.queries.rows(); ++i)
      Arrow(dl, o, f.ToScreen(proj_.queries(i, 0), proj_.queries(i, 1)), kQueryColor,
            i == hovered_query ? thick * 2.0f : thick, fs * 0.75f);
    for (Eigen::Index j = 0; j < proj_.keys.rows();
         ++j) {  // a ring: a query's head stays visible inside
      const ImVec2 p = f.ToScreen(proj_.keys(j, 0), proj_.keys(j, 1));
      dl->AddCircle(p, fs * 0.55f, kKeyColor, 0, thick * 1.6f);
    }
    if (proj_.queries.rows() + proj_.keys.rows() <= kMaxLabelled) Labels(dl, f, scenario);
  }

  // Token labels beside the tips; a query and a key at the same place share one, in the text
  // colour.
  void Labels(ImDrawList* dl, const Frame& f, const attnlab::Scenario& scenario) const {
    const std::vector<std::string> queries = QueryTokenLabels(scenario),
                                   keys = KeyTokenLabels(scenario);
    const ImVec2 o = f.Origin();
    std::vector<ImVec2> query_tips;
    for (Eigen::Index i = 0; i < proj_.queries.rows(); ++i)
      query_tips.push_back(f.ToScreen(proj_.queries(i, 0), proj_.queries(i, 1)));
    for (Eigen::Index j = 0; j < proj_.keys.rows(); ++j) {
      const ImVec2 p = f.ToScreen(proj_.keys(j, 0), proj_.keys(j, 1));
      const bool shared = j < Eigen::Index(query_tips.size()) &&
                          std::abs(query_tips[std::size_t(j)].x - p.x) < 1.0f &&
                          std::abs(query_tips[std::size_t(j)].y - p.y) < 1.0f &&
                          queries[std::size_t(j)] == keys[std::size_t(j)];
      if (shared) query_tips[std::size_t(j)].x = -1e9f;  // labelled here, once
      if (std::size_t(j) < keys.size())
        TipLabel(dl, o, p, shared ? ImGui::GetColorU32(ImGuiCol_Text) : kKeyColor,
                 keys[std::size_t(j)], f.min, f.Max());
    }
    for (std::size_t i = 0; i < query_tips.size() && i < queries.size(); ++i)
      if (query_tips[i].x > -1e8f)
        TipLabel(dl, o, query_tips[i], kQueryColor, queries[i], f.min, f.Max());
  }

  // Where each point was drawn, for window tests ("plane query 2", "plane key 0"), and one plot
  // unit from the origin ("plane unit": its width is the pixels per unit).
  void MarkPoints(AppState& state, const Frame& f) const {
    if (!state.on_control) return;
    const float r = ImGui::GetFontSize() * 0.3f;
    for (int key = 0; key < 2; ++key) {
      const attnlab::Matrix& pts = key ? proj_.keys : proj_.queries;
      for (Eigen::Index i = 0; i < pts.rows(); ++i) {
        const ImVec2 p = f.ToScreen(pts(i, 0), pts(i, 1));
        ControlMark mark;
        mark.id = std::string(key ? "plane key " : "plane query ") + std::to_string(i);
        MarkRect(state.on_control, mark, ImVec2(p.x - r, p.y - r), ImVec2(p.x + r, p.y + r));
      }
    }
    ControlMark unit;
    unit.id = "plane unit";
    const ImVec2 o = f.Origin(), one = f.ToScreen(1.0, 1.0);
    MarkRect(state.on_control, unit, ImVec2(o.x, one.y), ImVec2(one.x, o.y));
  }

  // The hovered point's numbers: a query's dot product with every key and the weights.
  void Tooltip(const AppState& state, const attnlab::Trace& trace,
               const attnlab::Scenario& scenario, int head, const Hit& hit) const {
    const std::vector<std::string> queries = QueryTokenLabels(scenario),
                                   keys = KeyTokenLabels(scenario);
    const int dec = state.ui.decimals;
    BeginPanelTooltip();
    if (hit.key) {
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kKeyColor), "key '%s'",
                         keys[std::size_t(hit.index)].c_str());
      ImGui::TextDisabled("hover a query for its dot products with the keys");
      ImGui::EndTooltip();
      return;
    }
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kQueryColor), "query '%s'",
                       queries[std::size_t(hit.index)].c_str());
    if (ImGui::BeginTable("##dots", 3, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
      for (const char* title : {"key", "q . k", "weight"}) ImGui::TableSetupColumn(title);
      ImGui::TableHeadersRow();
      const int n = int(proj_.keys.rows());
      for (int j = 0; j < n && j < kMaxTooltipRows; ++j) {
        const double w = WeightOf(trace, std::size_t(head), hit.index, j);
        ImGui::TableNextColumn();
        ImGui::ColorButton("##w", ImGui::ColorConvertU32ToFloat4(WeightColor(state.ui.colormap, w)),
                           ImGuiColorEditFlags_NoTooltip,
                           ImVec2(ImGui::GetFontSize(), ImGui::GetFontSize()));
        ImGui::SameLine();
        ImGui::TextUnformatted(keys[std::size_t(j)].c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(Num(ScoreOf(trace, std::size_t(head), hit.index, j), dec).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(Num(w, dec).c_str());
      }
      ImGui::EndTable();
      if (n > kMaxTooltipRows) ImGui::TextDisabled("... and %d more keys", n - kMaxTooltipRows);
    }
    ImGui::TextDisabled("weights: softmax of q . k x %s", Num(trace.scale, dec).c_str());
    if (proj_.principal)
      ImGui::TextDisabled("q . k over all %d coordinates; the plot shows its shadow", d_k_);
    ImGui::EndTooltip();
  }

  std::uint64_t computed_for_ = 0;
  int head_ = -1, d_k_ = 0;
  bool rope_ = false;  // the points are Q_rot and K_rot
  PlaneProjection proj_;
  std::string refusal_;
  double extent_ = 1.0;
  struct Drag {
    bool active = false, key = false;
    int index = 0;
    double x0 = 0, y0 = 0;  // the point's plot coordinates when the drag began
    bool edited = false;    // every edit after the drag's first extends it (one undo step)
  } drag_;
};

}  // namespace

std::unique_ptr<PanelContents> Make() { return std::make_unique<PlanePanel>(); }

}  // namespace attnlab::app::panel_plane
