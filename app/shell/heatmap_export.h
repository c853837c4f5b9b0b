#pragma once
/// Export from the window, through the same library as `attnlab-cli export` (attnlab_export), so
/// that a figure saved from a right-click is the CLI's figure: PNG at 1x/2x/4x, SVG, CSV, the
/// image on the clipboard (via xclip: GLFW's clipboard is text only), and "Export all".
#include <functional>
#include <string>
#include <vector>

#include <optional>

#include "attnlab/export/figure.h"
#include "attnlab/export/lines.h"
#include "attnlab/export/views.h"

namespace attnlab::app {

struct AppState;
struct HeatmapSpec;

enum class ExportFormat { Png, Svg, Csv };
const char* ExportExtension(ExportFormat format);  ///< ".png", ".svg", ".csv"

/// Options shared by the right-click menu and Export all (kept for the session).
struct ExportSettings {
  bool values = false;       ///< numbers in the cells
  bool transparent = false;  ///< no page colour
  int scale = 2;             ///< Export all's PNG scale
  bool png = true, svg = true, csv = true, numpy = true;  ///< Export all's formats
};

/// One heatmap ready to be written: its figure, the CLI's file stem, and how.
struct FigureExport {
  attnlab::exporter::HeatmapFigure figure;
  std::string stem;  ///< "head2_weights", "concat", "W_o", ...
  ExportFormat format = ExportFormat::Png;
  int scale = 1;
  attnlab::exporter::FigureStyle style;
  /// The Lines panel's figure (the CLI's `--what lines`), written in place of `figure` (PNG, SVG).
  std::optional<attnlab::exporter::LinesFigure> lines;
};

/// The CLI's figure for the matrix `spec` shows (stage and head), or one built from the widget's
/// own data for matrices the CLI does not export (W_o, editors).
FigureExport FigureForHeatmap(AppState& state, const ExportSettings& settings,
                              const HeatmapSpec& spec);
/// Writes `job` to `path` atomically. Returns false with `error` set.
bool WriteFigure(const FigureExport& job, const std::string& path, std::string* error);

/// True when an image can be put on the clipboard (xclip is installed).
bool CanCopyImage();
/// Puts `job` rendered as PNG on the clipboard (image/png). Returns false with `error` set.
bool CopyImageToClipboard(const FigureExport& job, std::string* error);

/// Where an "Export ..." item hands its job: the dialogs ask where to write it
/// (DocumentDialogs::RequestFigureExport), which know this file and not the other way round.
using ExportRequest = std::function<void(FigureExport)>;

/// The contents of a heatmap's right-click menu (heatmap.cpp opens the popup); its two toggles
/// change `settings`.
void HeatmapContextMenu(AppState& state, ExportSettings& settings, const ExportRequest& request,
                        const HeatmapSpec& spec);

/// The contents of the Lines panel's right-click menu: every head's lines as the CLI draws them
/// (`attnlab-cli export --what lines`), PNG at 1x/2x/4x or SVG.
void LinesContextMenu(AppState& state, ExportSettings& settings, const ExportRequest& request);

/// Every view of the current scenario into `dir`, with the CLI's file names (docs/EXPORT.md).
/// Appends each written path to `written`; returns false with `error` set on the first failure.
bool ExportAllViews(AppState& state, const ExportSettings& settings, const std::string& dir,
                    std::vector<std::string>* written, std::string* error);

}  // namespace attnlab::app
