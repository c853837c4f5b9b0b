#include "shell/heatmap_export.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <optional>

#include "panels/app_state.h"
#include "attnlab/export/csv.h"
#include "attnlab/export/numpy_script.h"
#include "attnlab/export/views.h"
#include "attnlab/scenario_io.h"
#include "view/hovered_cell.h"
#include "widgets/heatmap.h"
#include "widgets/theme.h"

extern char** environ;

namespace attnlab::app {
namespace {

namespace ex = attnlab::exporter;

ex::Colormaps MapsFor(const AppState& state) {
  return {state.ui.colormap, DivergingFor(state.ui.colormap)};
}

// A file stem from a widget title: "W_o", "head output" -> "head_output".
std::string StemFromTitle(const char* title) {
  std::string stem;
  for (const char* p = title ? title : "matrix"; *p; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    stem += std::isalnum(c) || c == '_' || c == '-' ? static_cast<char>(c) : '_';
  }
  return stem.empty() ? "matrix" : stem;
}

ex::HeatmapFigure FigureFromSpec(const HeatmapSpec& spec) {
  ex::HeatmapFigure f;
  f.title = spec.title ? spec.title : "matrix";
  f.subtitle = spec.formula ? spec.formula : "";
  f.values = *spec.values;
  if (spec.allowed) f.allowed = *spec.allowed;
  if (spec.row_labels) f.row_labels = *spec.row_labels;
  if (spec.col_labels) f.col_labels = *spec.col_labels;
  f.row_labels.resize(static_cast<std::size_t>(f.values.rows()));
  f.col_labels.resize(static_cast<std::size_t>(f.values.cols()));
  f.row_axis = spec.row_axis ? spec.row_axis : "";
  f.col_axis = spec.col_axis ? spec.col_axis : "";
  f.corner = f.row_axis;
  f.scale = spec.scale;
  f.col_band = spec.col_band;
  f.row_band = spec.row_band;
  return f;
}

std::string Bytes(const FigureExport& job) {
  if (job.lines)
    return job.format == ExportFormat::Svg ? ex::lines_svg(*job.lines, job.style.transparent)
                                           : ex::encode_png(ex::render_lines(*job.lines, job.scale, job.style.transparent));
  switch (job.format) {
    case ExportFormat::Png: return ex::encode_png(ex::render_figure(job.figure, job.style, job.scale));
    case ExportFormat::Svg: return ex::figure_svg(job.figure, job.style);
    case ExportFormat::Csv:
      return ex::matrix_csv({job.figure.corner, job.figure.row_labels, job.figure.col_labels,
                             job.figure.values});
  }
  return {};
}

std::string FindInPath(const char* program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string candidate = dirs.substr(start, end - start) + "/" + program;
    if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return {};
}

// Runs `argv` with `input` on its stdin and its output discarded (xclip stays in the background
// to serve the selection: it must not hold on to our stdout).
bool RunWithInput(const std::string& program, std::vector<std::string> args,
                  const std::string& input, std::string* error) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[0]);
  if (rc != 0) {
    close(fds[1]);
    *error = program + ": " + std::strerror(rc);
    return false;
  }
  signal(SIGPIPE, SIG_IGN);  // a helper that exits early must not take the window with it
  std::size_t done = 0;
  while (done < input.size()) {
    const ssize_t n = write(fds[1], input.data() + done, input.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  close(fds[1]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (done < input.size() || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *error = program + " failed (is there an X display?)";
    return false;
  }
  return true;
}

void ExportItem(AppState& state, const ExportSettings& settings, const ExportRequest& request,
                const HeatmapSpec& spec, const char* label, ExportFormat format, int scale) {
  if (!ImGui::MenuItem(label)) return;
  FigureExport job = FigureForHeatmap(state, settings, spec);
  job.format = format;
  job.scale = scale;
  request(std::move(job));
}

void PngMenu(AppState& state, const ExportSettings& settings, const ExportRequest& request,
             const HeatmapSpec& spec) {
  if (!ImGui::BeginMenu("Export PNG")) return;
  const FigureExport job = FigureForHeatmap(state, settings, spec);
  const ex::FigureLayout layout = ex::figure_layout(job.figure, job.style);
  for (int scale : {1, 2, 4}) {
    char label[64];
    std::snprintf(label, sizeof label, "%dx   %d \xC3\x97 %d px...", scale, layout.width * scale,
                  layout.height * scale);
    ExportItem(state, settings, request, spec, label, ExportFormat::Png, scale);
  }
  ImGui::EndMenu();
}

void CopyItems(AppState& state, const ExportSettings& settings, const HeatmapSpec& spec) {
  const bool can_copy = CanCopyImage();
  if (ImGui::MenuItem("Copy image (PNG 2x)", nullptr, false, can_copy)) {
    FigureExport job = FigureForHeatmap(state, settings, spec);
    job.scale = 2;
    std::string error;
    state.document.status = CopyImageToClipboard(job, &error) ? "copied " + job.stem + " (PNG 2x) to the clipboard"
                                                      : "not copied: " + error;
  }
  if (!can_copy && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Copying images needs xclip (Debian package xclip).\n"
                      "Export PNG writes the same image to a file.");
  if (ImGui::MenuItem("Copy values as CSV")) {
    FigureExport job = FigureForHeatmap(state, settings, spec);
    job.format = ExportFormat::Csv;
    ImGui::SetClipboardText(Bytes(job).c_str());
    state.document.status = "copied " + job.stem + " as CSV to the clipboard";
  }
}

}  // namespace

const char* ExportExtension(ExportFormat format) {
  switch (format) {
    case ExportFormat::Png: return ".png";
    case ExportFormat::Svg: return ".svg";
    case ExportFormat::Csv: return ".csv";
  }
  return "";
}

FigureExport FigureForHeatmap(AppState& state, const ExportSettings& settings,
                              const HeatmapSpec& spec) {
  FigureExport job;
  job.style.values = settings.values;
  job.style.transparent = settings.transparent;
  job.style.decimals = state.ui.decimals;  // the figure shows what the window shows
  const attnlab::Trace& trace = state.document.GetTrace();
  // A stage with an exported figure (stage.h: a caption) exports as the CLI does; the inputs and
  // W_o as drawn.
  const StageId stage = spec.stage;
  const bool exported = attnlab::stage_row(stage).caption != nullptr;
  const int head = attnlab::per_head(stage) ? std::max(spec.head, 0) : 0;
  if (exported && head < static_cast<int>(trace.heads.size())) {
    job.figure = ex::stage_figure(state.document.GetScenario(), trace, stage, head, MapsFor(state));
    job.stem = ex::file_stem(stage, head);
  } else {
    job.figure = FigureFromSpec(spec);
    job.stem = StemFromTitle(spec.title);
  }
  return job;
}

bool WriteFigure(const FigureExport& job, const std::string& path, std::string* error) {
  try {
    attnlab::write_file_atomically(path, Bytes(job));
    return true;
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
}

bool CanCopyImage() {
  static const bool available = !FindInPath("xclip").empty();  // PATH does not change while we run
  return available;
}

bool CopyImageToClipboard(const FigureExport& job, std::string* error) {
  const std::string xclip = FindInPath("xclip");
  if (xclip.empty()) {
    *error = "copying images needs xclip (Debian package xclip)";
    return false;
  }
  try {
    FigureExport png = job;
    png.format = ExportFormat::Png;
    return RunWithInput(xclip, {"-selection", "clipboard", "-t", "image/png", "-i"}, Bytes(png),
                        error);
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
}

void LinesContextMenu(AppState& state, ExportSettings& settings, const ExportRequest& request) {
  const attnlab::Scenario* scenario = state.document.TraceScenario();
  const attnlab::Trace& trace = state.document.GetTrace();
  if (!scenario || trace.heads.empty()) return;
  FigureExport job;
  job.lines = ex::lines_figure(*scenario, trace);
  job.figure.title = job.lines->title;  // the save dialog's title names it
  job.stem = ex::lines_stem(-1);
  job.style.transparent = settings.transparent;
  ImGui::TextColored(DimTextColor(), "%s", job.lines->title.c_str());
  ImGui::Separator();
  for (int scale : {1, 2, 4})
    if (ImGui::MenuItem(("Export PNG " + std::to_string(scale) + "x...").c_str())) {
      job.format = ExportFormat::Png, job.scale = scale;
      request(job);
    }
  if (ImGui::MenuItem("Export SVG...")) {
    job.format = ExportFormat::Svg, job.scale = 1;
    request(job);
  }
  ImGui::MenuItem("Transparent background", nullptr, &settings.transparent);
}

void HeatmapContextMenu(AppState& state, ExportSettings& settings, const ExportRequest& request,
                        const HeatmapSpec& spec) {
  ImGui::TextColored(DimTextColor(), "%s", FigureForHeatmap(state, settings, spec).figure.title.c_str());
  ImGui::Separator();
  PngMenu(state, settings, request, spec);
  ExportItem(state, settings, request, spec, "Export SVG...", ExportFormat::Svg, 1);
  ExportItem(state, settings, request, spec, "Export CSV...", ExportFormat::Csv, 1);
  ImGui::Separator();
  CopyItems(state, settings, spec);
  ImGui::Separator();
  ImGui::MenuItem("Values in cells", nullptr, &settings.values);
  ImGui::MenuItem("Transparent background", nullptr, &settings.transparent);
}

bool ExportAllViews(AppState& state, const ExportSettings& settings, const std::string& dir,
                    std::vector<std::string>* written, std::string* error) {
  namespace fs = std::filesystem;
  try {
    fs::create_directories(dir);
    const attnlab::Scenario& scenario = state.document.GetScenario();
    const attnlab::Trace& trace = state.document.GetTrace();
    auto write = [&](const std::string& name, const std::string& bytes) {
      const std::string path = (fs::path(dir) / name).string();
      attnlab::write_file_atomically(path, bytes);
      written->push_back(path);
    };
    if (settings.numpy) write("attention.py", ex::numpy_script(scenario, state.document.name));
    std::vector<ExportFormat> formats;
    if (settings.png) formats.push_back(ExportFormat::Png);
    if (settings.svg) formats.push_back(ExportFormat::Svg);
    if (settings.csv) formats.push_back(ExportFormat::Csv);
    const int heads = static_cast<int>(trace.heads.size());
    for (StageId stage : attnlab::exported_stages()) {
      if (!attnlab::has_stage(trace, stage)) continue;
      for (int h = 0; h < (attnlab::per_head(stage) ? heads : 1); ++h) {
        FigureExport job;
        job.figure = ex::stage_figure(scenario, trace, stage, h, MapsFor(state));
        job.style = {settings.values, settings.transparent, state.ui.decimals};
        job.scale = settings.scale;
        for (ExportFormat f : formats) {
          job.format = f;
          write(ex::file_stem(stage, h) + ExportExtension(f), Bytes(job));
        }
      }
    }
    return true;
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
}

}  // namespace attnlab::app
