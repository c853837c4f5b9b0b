#include "view/sensitivity_map.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "attnlab/cell_ref.h"
#include "attnlab/sensitivity.h"
#include "view/stage_labels.h"

namespace attnlab::app {
namespace {

attnlab::Matrix AsShown(const attnlab::Vector& b, attnlab::Layout layout) {
  return layout == attnlab::Layout::rows ? attnlab::Matrix(b.transpose()) : attnlab::Matrix(b);
}

void AddProjections(std::vector<SensitivityGradient>& out, const attnlab::ProjectionGradients& g,
                    const std::string& prefix, attnlab::Layout layout) {
  const std::pair<const char*, const std::optional<attnlab::Matrix>*> ws[] = {{"W_q", &g.W_q}, {"W_k", &g.W_k}, {"W_v", &g.W_v}};
  for (const auto& [name, w] : ws)
    if (*w) out.push_back({prefix + name, **w});
  const std::pair<const char*, const std::optional<attnlab::Vector>*> bs[] = {{"b_q", &g.b_q}, {"b_k", &g.b_k}, {"b_v", &g.b_v}};
  for (const auto& [name, b] : bs)
    if (*b) out.push_back({prefix + name, AsShown(**b, layout)});
}

std::vector<SensitivityGradient> Gradients(const attnlab::Sensitivity& g, attnlab::Layout layout) {
  std::vector<SensitivityGradient> out{{"X", g.X}};
  if (g.Z) out.push_back({"Z", *g.Z});
  AddProjections(out, g.full, "", layout);
  for (std::size_t h = 0; h < g.heads.size(); ++h) AddProjections(out, g.heads[h], "heads[" + std::to_string(h) + "].", layout);
  for (std::size_t k = 0; k < g.kv_heads.size(); ++k)
    AddProjections(out, g.kv_heads[k], "kv_heads[" + std::to_string(k) + "].", layout);
  if (g.W_o) out.push_back({"W_o", *g.W_o});
  if (g.b_o) out.push_back({"b_o", AsShown(*g.b_o, layout)});
  return out;
}

// An exact zero reached through rounding (d/d b_k: the softmax takes back what every score of a
// query shares, leaving 1e-17s) would fill its map's whole range and look like a strong gradient.
// Far below what the largest gradient's rounding can resolve, it is zero.
constexpr double kRoundingOfLargest = 1e-12;

void FlushRoundingNoise(std::vector<SensitivityGradient>& gradients) {
  double largest = 0;
  for (const SensitivityGradient& g : gradients)
    if (g.values.size() > 0) largest = std::max(largest, g.values.cwiseAbs().maxCoeff());
  const double floor = largest * kRoundingOfLargest;
  for (SensitivityGradient& g : gradients) g.values = (g.values.array().abs() <= floor).select(0.0, g.values);
}

}  // namespace

SensitivityMap ComputeSensitivityMap(const attnlab::Scenario& s, const std::string& target) {
  SensitivityMap map;
  map.target = target;
  try {
    const attnlab::Sensitivity g = attnlab::sensitivity(s, attnlab::parse_cell_ref(target));
    map.value = g.value;
    map.gradients = Gradients(g, s.layout);
    FlushRoundingNoise(map.gradients);
  } catch (const attnlab::ScenarioError& e) {
    map.error = e.what();
  }
  return map;
}

const attnlab::Matrix* GradientOf(const SensitivityMap& map, const std::string& source) {
  for (const SensitivityGradient& g : map.gradients)
    if (g.source == source) return &g.values;
  return nullptr;
}

std::vector<SensitiveCell> LargestGradients(const SensitivityMap& map, std::size_t count) {
  std::vector<SensitiveCell> all;
  for (const SensitivityGradient& g : map.gradients) {
    const attnlab::CellRef source = attnlab::parse_cell_ref(g.source);
    for (Eigen::Index r = 0; r < g.values.rows(); ++r)
      for (Eigen::Index c = 0; c < g.values.cols(); ++c)
        if (g.values(r, c) != 0.0) all.push_back({source.at(long(r), long(c)).text(), g.values(r, c)});
  }
  const std::size_t n = std::min(count, all.size());
  std::partial_sort(all.begin(), all.begin() + long(n), all.end(),
                    [](const SensitiveCell& a, const SensitiveCell& b) { return std::abs(a.grad) > std::abs(b.grad); });
  all.resize(n);
  return all;
}

std::string CellMeaning(const attnlab::Scenario& s, const std::string& cell) {
  const attnlab::CellRef ref = attnlab::parse_cell_ref(cell);
  if ((ref.name == "X" || ref.name == "Z") && ref.index.size() == 2) {
    const bool rows = s.layout == attnlab::Layout::rows;
    const std::vector<std::string> tokens = ref.name == "Z" ? KeyTokenLabels(s) : QueryTokenLabels(s);
    const long token = rows ? ref.index[0] : ref.index[1], coordinate = rows ? ref.index[1] : ref.index[0];
    if (token < 0 || token >= long(tokens.size())) return {};
    return "token " + tokens[std::size_t(token)] + ", coordinate " + std::to_string(coordinate);
  }
  return attnlab::head_words(ref);
}

const SensitivityMap& SensitivityCache::Get(const attnlab::Scenario& s, std::uint64_t version, const std::string& target) {
  if (filled_ && version == version_ && target == map_.target) return map_;
  map_ = ComputeSensitivityMap(s, target);
  map_.generation = ++generation_;
  version_ = version;
  filled_ = true;
  return map_;
}

}  // namespace attnlab::app
