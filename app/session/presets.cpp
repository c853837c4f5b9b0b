#include "session/presets.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "attnlab/model.h"
#include "attnlab/scenario_io.h"

namespace attnlab::app {
namespace fs = std::filesystem;
namespace {

// Self-explaining first view: three words, one head, every stage small enough to show numbers.
constexpr const char* kPreferredPreset = "vaswani-q2-is-attends";

// Used only when no preset directory is found (e.g. a binary copied without its assets).
constexpr const char* kFallbackScenario = R"({
  "format": "attnlab/1",
  "title": "Built-in example: the cat sat",
  "notes": "Self-attention over three tokens with identity projections (Q = K = V = X). Each row of the weights is one query's distribution over the keys and sums to 1.",
  "tokens": ["the", "cat", "sat"],
  "X": [[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]],
  "mask": "causal"
})";

fs::path ExecutableDir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

bool IsDir(const fs::path& p) {
  std::error_code ec;
  return !p.empty() && fs::is_directory(p, ec);
}

}  // namespace

std::string FindPresetDir() {
  std::vector<fs::path> candidates;
  const fs::path exe_dir = ExecutableDir();
  if (!exe_dir.empty()) {
    candidates.push_back(exe_dir / "presets");
    candidates.push_back(exe_dir / "assets" / "presets");
    // Installed (<prefix>/bin/attnlab); a build tree links <build>/share/attnlab/presets to the
    // source tree's presets, so <build>/app/attnlab finds them by the same rule.
    candidates.push_back(exe_dir / ".." / "share" / "attnlab" / "presets");
  }
  for (const fs::path& dir : candidates) {
    if (IsDir(dir)) return fs::weakly_canonical(dir).string();
  }
  return {};
}

std::vector<PresetInfo> ListPresets(const std::string& dir) {
  std::vector<PresetInfo> presets;
  std::error_code ec;
  if (dir.empty()) return presets;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    PresetInfo info;
    info.path = entry.path().string();
    info.stem = entry.path().stem().string();
    info.title = info.stem;
    try {
      const attnlab::Scenario s = attnlab::load_scenario(info.path);
      if (!s.title.empty()) info.title = s.title;
    } catch (const std::exception&) {
      // Listed anyway: choosing it shows the file's error instead of hiding the file.
    }
    presets.push_back(std::move(info));
  }
  std::sort(presets.begin(), presets.end(),
            [](const PresetInfo& a, const PresetInfo& b) { return a.stem < b.stem; });
  return presets;
}

attnlab::Scenario LoadAndValidate(const std::string& path) {
  attnlab::Scenario s = attnlab::load_scenario(path);
  attnlab::validate(s);
  ResolveModelFolder(s, path);
  return s;
}

void ResolveModelFolder(attnlab::Scenario& s, const std::string& path) {
  const auto m = s.view.find("model");
  if (m == s.view.end() || !m->is_object() || !m->contains("folder") || !(*m)["folder"].is_string()) return;
  const fs::path folder = fs::u8path((*m)["folder"].get<std::string>());
  if (folder.empty() || folder.is_absolute()) return;
  // Through links: the build tree's presets are a link to the source tree's, beside its models.
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(fs::absolute(fs::u8path(path), ec).parent_path(), ec);
  const fs::path beside = (dir / folder).lexically_normal();
  // Else as before: from the working folder (a layer `attnlab-cli model . --out` wrote there).
  if (fs::is_directory(beside, ec)) (*m)["folder"] = beside.u8string();
}

LoadedScenario BuiltInExample(const std::vector<PresetInfo>& presets) {
  std::vector<const PresetInfo*> order;
  for (const PresetInfo& p : presets)
    if (p.stem == kPreferredPreset) order.push_back(&p);
  for (const PresetInfo& p : presets) order.push_back(&p);
  for (const PresetInfo* p : order) {
    try {
      return {LoadAndValidate(p->path), p->path, p->stem, true};
    } catch (const std::exception&) {
      // Try the next one: the window must always open on something meaningful.
    }
  }
  return {attnlab::scenario_from_string(kFallbackScenario), "", "built-in example", true};
}

}  // namespace attnlab::app
