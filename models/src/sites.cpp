#include "attnlab/models/sites.h"

#include <algorithm>

#include "attnlab/scenario.h"

namespace attnlab::models {

const char* site_name(Site site) {
  switch (site) {
    case Site::resid_pre: return "resid_pre";
    case Site::q: return "q";
    case Site::k: return "k";
    case Site::v: return "v";
    case Site::pattern: return "pattern";
    case Site::z: return "z";
    case Site::attn_out: return "attn_out";
    case Site::mlp_out: return "mlp_out";
    case Site::resid_post: return "resid_post";
  }
  return "?";
}

bool per_head(Site site) { return site == Site::pattern || site == Site::z; }

std::string SitePoint::label() const {
  std::string text = "layer " + std::to_string(layer) + " " + site_name(site);
  if (head >= 0) text += " of head " + std::to_string(head);
  return text;
}

bool SiteCache::wants(Site site, int layer) const {
  return std::any_of(wanted_.begin(), wanted_.end(),
                     [&](const std::pair<Site, int>& w) { return w.first == site && (w.second < 0 || w.second == layer); });
}

const MatrixF& SiteCache::get(const SitePoint& where) const {
  const auto found = values_.find(where);
  if (found == values_.end()) refuse("site", where.label() + " was not recorded by the run");
  return found->second;
}

bool SitePatch::wants(Site site, int layer) const {
  const auto matches = [&](const auto& entry) { return entry.first.site == site && entry.first.layer == layer; };
  return std::any_of(whole_.begin(), whole_.end(), matches) || std::any_of(rows_.begin(), rows_.end(), matches);
}

void SitePatch::at(const SitePoint& where, MatrixF& value) {
  if (const auto whole = whole_.find(where); whole != whole_.end()) value = whole->second;
  const auto row = rows_.find(where);
  if (row == rows_.end()) return;
  const auto& [index, replacement] = row->second;
  if (index < 0 || index >= value.rows() || replacement.rows() != 1 || replacement.cols() != value.cols())
    refuse("site", where.label() + ": row " + std::to_string(index) + " of width " + std::to_string(replacement.cols()) +
                       " does not fit " + std::to_string(value.rows()) + "x" + std::to_string(value.cols()));
  value.row(index) = replacement;
}

}  // namespace attnlab::models
