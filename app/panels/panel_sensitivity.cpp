#include "panels/panel_sensitivity.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "attnlab/sensitivity.h"
#include "session/trace_worker.h"
#include "view/stage_labels.h"
#include "widgets/control_marks.h"
#include "widgets/heatmap.h"
#include "widgets/theme.h"

namespace attnlab::app::SensitivityPanel {
namespace {

// One gradient as drawn: the matrix it belongs to ("W_q", "heads[1].b_k") and d target / d cell,
// shaped as the Inputs show that matrix (a bias as a row in the rows layout, a column otherwise).
struct Gradient {
  std::string source;
  attnlab::Matrix values;
};

// A cell and its gradient, for the list of the largest.
struct TopCell {
  std::string cell;  // in the one cell syntax: "W_q[0][1]"
  double grad = 0;
};

attnlab::Matrix Shown(const attnlab::Vector& b, attnlab::Layout layout) {
  return layout == attnlab::Layout::rows ? attnlab::Matrix(b.transpose()) : attnlab::Matrix(b);
}

void AddProjections(std::vector<Gradient>& out, const attnlab::ProjectionGradients& g, const std::string& prefix,
                    attnlab::Layout layout) {
  const std::pair<const char*, const std::optional<attnlab::Matrix>*> ws[] = {{"W_q", &g.W_q}, {"W_k", &g.W_k}, {"W_v", &g.W_v}};
  for (const auto& [name, w] : ws)
    if (*w) out.push_back({prefix + name, **w});
  const std::pair<const char*, const std::optional<attnlab::Vector>*> bs[] = {{"b_q", &g.b_q}, {"b_k", &g.b_k}, {"b_v", &g.b_v}};
  for (const auto& [name, b] : bs)
    if (*b) out.push_back({prefix + name, Shown(**b, layout)});
}

// Every gradient the scenario has, in the Inputs' order: X (Z), the projections, W_o, b_o.
std::vector<Gradient> Gradients(const attnlab::Sensitivity& g, attnlab::Layout layout) {
  std::vector<Gradient> out{{"X", g.X}};
  if (g.Z) out.push_back({"Z", *g.Z});
  AddProjections(out, g.full, "", layout);
  for (std::size_t h = 0; h < g.heads.size(); ++h) AddProjections(out, g.heads[h], "heads[" + std::to_string(h) + "].", layout);
  for (std::size_t k = 0; k < g.kv_heads.size(); ++k)
    AddProjections(out, g.kv_heads[k], "kv_heads[" + std::to_string(k) + "].", layout);
  if (g.W_o) out.push_back({"W_o", *g.W_o});
  if (g.b_o) out.push_back({"b_o", Shown(*g.b_o, layout)});
  return out;
}

std::vector<TopCell> Largest(const std::vector<Gradient>& grads, std::size_t count) {
  std::vector<TopCell> all;
  for (const Gradient& g : grads)
    for (Eigen::Index r = 0; r < g.values.rows(); ++r)
      for (Eigen::Index c = 0; c < g.values.cols(); ++c)
        if (g.values(r, c) != 0.0)
          all.push_back({g.source + "[" + std::to_string(r) + "][" + std::to_string(c) + "]", g.values(r, c)});
  const std::size_t n = std::min(count, all.size());
  std::partial_sort(all.begin(), all.begin() + long(n), all.end(),
                    [](const TopCell& a, const TopCell& b) { return std::abs(a.grad) > std::abs(b.grad); });
  all.resize(n);
  return all;
}

// The target a pinned cell names, when it is one a sensitivity starts from.
std::string PinnedTarget(const HoveredCell& pin) {
  const std::string cell = "[" + std::to_string(pin.row) + "][" + std::to_string(pin.col) + "]";
  const std::string head = "heads[" + std::to_string(pin.head) + "].";
  switch (pin.stage) {
    case Stage::Output: return "output" + cell;
    case Stage::Concat: return "concat" + cell;
    case Stage::Weights: return head + "weights" + cell;
    case Stage::Scores: return head + "scores" + cell;
    case Stage::HeadOutput: return head + "output" + cell;
    default: return {};
  }
}

constexpr std::size_t kListed = 8;  // the cells that move the target most, at most

class Contents : public PanelContents {
 public:
  void Draw(AppState& state) override {
    FollowPin(state);
    Target(state);
    const attnlab::Scenario& s = state.document.GetScenario();
    if (ComputeOffThread(s)) {
      ImGui::TextDisabled("This scenario is too large for a live sensitivity; try attnlab-cli sensitivity.");
      return;
    }
    Refresh(state, s);
    if (!error_.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
      ImGui::TextWrapped("%s", error_.c_str());
      ImGui::PopStyleColor();
      return;
    }
    ImGui::TextWrapped("%s = %.6g.  How much it moves per unit of each input:", target_, value_);
    TopList(state);
    ImGui::Separator();
    ImGui::BeginChild("##gradients", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    Heatmaps(state, s);
    ImGui::EndChild();
  }

 private:
  // Pinning a cell of the output (or of a head's weights, scores, output) makes it the target.
  void FollowPin(AppState& state) {
    const std::string pinned = PinnedTarget(state.ui.pinned);
    if (pinned.empty() || pinned == last_pin_) return;
    last_pin_ = pinned;
    std::snprintf(target_, sizeof target_, "%s", pinned.c_str());
  }

  void Target(AppState& state) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Target");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1.0f);
    ImGui::InputTextWithHint("##target", "output[0][0], heads[0].weights[1][2]", target_, sizeof target_);
    MarkLastItem(state.on_control, "sensitivity target");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Click a cell of the output or of a head's weights to make it the target.\n"
                        "Indices as stored (the file's layout), heads from 0.");
  }

  // Forward and backward again only when the scenario or the target changed.
  void Refresh(AppState& state, const attnlab::Scenario& s) {
    if (for_version_ == state.document.Version() && for_target_ == target_) return;
    for_version_ = state.document.Version();
    for_target_ = target_;
    ++data_version_;
    error_.clear();
    grads_.clear();
    top_.clear();
    try {
      const attnlab::Sensitivity g = attnlab::sensitivity(s, attnlab::parse_cell_ref(target_));
      value_ = g.value;
      grads_ = Gradients(g, s.layout);
      top_ = Largest(grads_, kListed);
    } catch (const attnlab::ScenarioError& e) {
      error_ = e.what();
    }
  }

  void TopList(AppState& state) {
    if (top_.empty()) {
      ImGui::TextDisabled("No input moves it (a masked weight, or a query that attends nothing).");
      return;
    }
    // Up to a third of the panel's height: in lecture mode the heatmaps keep their room.
    const float row_h = ImGui::GetTextLineHeightWithSpacing();
    const std::size_t shown = std::min(top_.size(), std::size_t(std::clamp(int(ImGui::GetContentRegionAvail().y / 3.0f / row_h), 3, int(kListed))));
    if (!ImGui::BeginTable("##top", 2, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) return;
    for (std::size_t k = 0; k < shown; ++k) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (ImGui::Selectable(top_[k].cell.c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) state.RequestSweep(top_[k].cell);
      MarkLastItem(state.on_control, ("sensitivity top " + std::to_string(k)).c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("Sweep %s to watch it move the target", top_[k].cell.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%+.4g", top_[k].grad);
    }
    ImGui::EndTable();
  }

  // One diverging heatmap a matrix, flowing left to right.
  void Heatmaps(AppState& state, const attnlab::Scenario& s) {
    const float fs = ImGui::GetFontSize();
    float x = 0;
    labels_.resize(grads_.size());
    for (std::size_t k = 0; k < grads_.size(); ++k) {
      const Gradient& g = grads_[k];
      Labels& l = labels_[k];
      const bool tokens = g.source == "X" || g.source == "Z";
      const bool rows = s.layout == attnlab::Layout::rows;
      const std::vector<std::string> token_labels = g.source == "Z" ? KeyTokenLabels(s) : QueryTokenLabels(s);
      l.rows = tokens && rows && int(token_labels.size()) == g.values.rows() ? token_labels : IndexLabels(int(g.values.rows()));
      l.cols = tokens && !rows && int(token_labels.size()) == g.values.cols() ? token_labels : IndexLabels(int(g.values.cols()));
      l.title = "d / d " + g.source;
      l.id = "sens/" + g.source;
      HeatmapSpec spec;
      spec.id = l.id.c_str();
      spec.title = l.title.c_str();
      spec.values = &g.values;
      spec.row_labels = &l.rows;
      spec.col_labels = &l.cols;
      spec.scale = SignedScale(state.ui.colormap);
      // All zero (e.g. a key bias: softmax ignores what every score of a query shares): the map's
      // middle, not a degenerate range.
      spec.symmetric_range = g.values.cwiseAbs().maxCoeff() > 0.0;
      if (!spec.symmetric_range) spec.scale.lo = -1.0, spec.scale.hi = 1.0;
      spec.cell = std::clamp(std::floor(fs * 2.2f), 8.0f, fs * 3.0f);
      spec.decimals = state.ui.decimals;
      spec.data_version = data_version_;
      const ImVec2 size = HeatmapSize(*state.heatmaps, spec);
      if (k > 0 && x + size.x < ImGui::GetContentRegionAvail().x) ImGui::SameLine(0.0f, fs);
      else x = 0;
      x += size.x + fs;
      ImGui::BeginGroup();
      Heatmap(*state.heatmaps, spec);
      ImGui::EndGroup();
    }
  }

  struct Labels {
    std::vector<std::string> rows, cols;
    std::string title, id;
  };
  char target_[96] = "output[0][0]";
  std::string last_pin_, for_target_, error_;
  std::uint64_t for_version_ = 0, data_version_ = 0;
  double value_ = 0;
  std::vector<Gradient> grads_;
  std::vector<TopCell> top_;
  std::vector<Labels> labels_;
};

}  // namespace

std::unique_ptr<PanelContents> Make() { return std::make_unique<Contents>(); }

}  // namespace attnlab::app::SensitivityPanel
