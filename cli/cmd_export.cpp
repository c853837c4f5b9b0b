// attnlab-cli export FILE --out DIR: slide-ready figures (PNG, SVG), CSV and a runnable NumPy
// script, rendered on the CPU (works with no display, no X server, no GPU); with --sweep, one
// animated GIF (or numbered frames) per figure as one number moves; for a model folder, one figure
// of every layer's and head's attention weights (the model grid). docs/EXPORT.md.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "args.h"
#include "attnlab/attention.h"
#include "attnlab/export/csv.h"
#include "attnlab/export/gif.h"
#include "attnlab/export/lesson_slides.h"
#include "attnlab/export/lines.h"
#include "attnlab/export/model_grid.h"
#include "attnlab/export/numpy_script.h"
#include "attnlab/export/pdf.h"
#include "attnlab/export/sweep_frames.h"
#include "attnlab/export/views.h"
#include "attnlab/message_text.h"
#include "attnlab/models/hf_model.h"
#include "attnlab/scenario_io.h"
#include "attnlab/sweep.h"
#include "commands.h"
#include "export_files.h"

namespace attnlab::cli {
namespace {

using namespace attnlab::exporter;

struct ExportOptions {
  std::string file;
  bool lesson = false;  ///< --lesson: one slide per step of the scenario's lesson
  std::filesystem::path out;
  std::vector<StageId> stages;
  bool lines = false;      ///< --what lines: attention as lines (lines.h), not a stage
  std::vector<int> heads;  ///< 0-based; empty = all (known once the file is read)
  std::vector<std::string> formats;
  int scale = 1;
  Colormaps maps;
  FigureStyle style;
  std::optional<Sweep> sweep;  ///< --sweep PARAM=FROM:TO:FRAMES
};

/// The command line as CLI11 stored it: text, checked by parse_options in the order the messages
/// have always come in.
struct ExportArgs {
  std::string file, out, what = "all", head = "all", format = "png", scale = "1",
                         colormap = "viridis", decimals = std::to_string(kDefaultDecimals), sweep,
                         text, ids;
  bool values = false, transparent = false, lesson = false;
  std::map<std::string, const CLI::Option*> given;  ///< "--what": count() > 0 once parsed

  bool has(const std::string& option) const { return given.at(option)->count() > 0; }
};

// The matrices --what names; `lines` is set when it names the lines figure too.
std::vector<StageId> parse_stages(const std::string& text, bool& lines) {
  std::vector<StageId> stages;
  if (text == "all") return exported_stages();
  for (const std::string& name : split_list(text)) {
    if (name == "lines") {
      lines = true;
      continue;
    }
    const auto stage = stage_from_name(name);
    if (!stage || !stage_row(*stage).caption) {
      std::string names;
      for (StageId id : exported_stages()) names += std::string(stage_name(id)) + ",";
      throw UsageError("--what expects a list of " + names + "lines or all, got " + quote_arg(name));
    }
    stages.push_back(*stage);
  }
  if (stages.empty() && !lines) throw UsageError("--what expects at least one matrix");
  return stages;
}

std::vector<std::string> parse_formats(const std::string& text) {
  const auto formats = split_list(text);
  for (const std::string& f : formats)
    if (f != "png" && f != "svg" && f != "csv" && f != "numpy" && f != "gif" && f != "pdf")
      throw UsageError("--format expects a list of png,svg,csv,numpy (gif with --sweep, pdf with --lesson), got " +
                       quote_arg(f));
  if (formats.empty()) throw UsageError("--format expects at least one of png,svg,csv,numpy");
  return formats;
}

int parse_scale(const ExportArgs& p) {
  const int scale = whole_number("--scale", p.scale, 1, 4);
  if (scale == 3) throw UsageError("--scale expects 1, 2 or 4, got '3'");
  return scale;
}

Colormaps parse_colormaps(const ExportArgs& p) {
  const auto maps = colormaps_from_name(p.colormap);
  if (!maps)
    throw UsageError(
        "--colormap expects viridis, cividis, grayscale, rdbu or gray-diverging, got " +
        quote_arg(p.colormap));
  return *maps;
}

ExportOptions parse_options(const ExportArgs& p) {
  ExportOptions o;
  o.lesson = p.lesson;
  o.style.values = p.values;
  o.style.transparent = p.transparent;
  if (!p.has("--out")) throw UsageError("export needs --out DIR");
  if (p.out.empty()) throw UsageError("--out expects a directory (or - for standard output), got ''");
  o.file = p.file;
  o.out = p.out;
  o.stages = parse_stages(p.what, o.lines);
  o.formats = parse_formats(p.format);
  for (const std::string& f : o.formats)
    if (o.lines && f != "png" && f != "svg" && !p.has("--sweep"))
      throw UsageError("--what lines draws --format png or svg, got " + quote_arg(f));
  if (o.lines && p.has("--sweep")) throw UsageError("--what lines takes no --sweep");
  if (p.head != "all") o.heads = {whole_number("--head", p.head, 0, 255)};
  o.scale = parse_scale(p);
  o.style.decimals = whole_number("--decimals", p.decimals, kMinDecimals, kMaxDecimals);
  o.maps = parse_colormaps(p);
  const bool pdf = std::find(o.formats.begin(), o.formats.end(), "pdf") != o.formats.end();
  if (o.lesson && (p.has("--what") || p.has("--head")))
    throw UsageError("--lesson writes one slide per step: it takes no --what or --head");
  for (const std::string& f : o.formats)
    if (o.lesson && f != "png" && f != "pdf")
      throw UsageError("--lesson writes --format png slides or a pdf handout, got " + quote_arg(f));
  if (pdf && !o.lesson) throw UsageError("--format pdf is a lesson's handout: it needs --lesson");
  if (o.lesson && o.scale > 2) throw UsageError("--lesson expects --scale 1 or 2, got '4'");
  const bool gif = std::find(o.formats.begin(), o.formats.end(), "gif") != o.formats.end();
  if (p.has("--sweep")) {
    try {
      o.sweep = parse_sweep(p.sweep);
    } catch (const ScenarioError& e) {
      throw UsageError(std::string("--sweep ") + e.what());
    }
    if (o.lesson) throw UsageError("--sweep animates figures: it takes no --lesson");
    for (const std::string& f : o.formats)
      if (f != "gif" && f != "png" && f != "svg")
        throw UsageError("--sweep writes --format gif, png or svg frames, got " + quote_arg(f));
  } else if (gif) {
    throw UsageError("--format gif animates a sweep: it needs --sweep PARAM=FROM:TO:FRAMES");
  }
  const bool only_numpy = o.formats.size() == 1 && o.formats[0] == "numpy";
  if (o.out == "-" && !only_numpy) throw UsageError("--out - (standard output) works with --format numpy only");
  return o;
}

void export_figure(const ExportOptions& o, const HeatmapFigure& figure, const std::string& stem, ExportFiles& files) {
  for (const std::string& format : o.formats) {
    const std::string name = stem + "." + format;
    if (format == "png") files.add(name, encode_png(render_figure(figure, o.style, o.scale)));
    if (format == "svg") files.add(name, figure_svg(figure, o.style));
    if (format == "csv") files.add(name, matrix_csv({figure.corner, figure.row_labels, figure.col_labels, figure.values}));
  }
}

/// The figures --what and --head select, in pipeline order (head 0 for the stages not per head).
/// A stage the scenario does not have is bad usage, found before anything is written.
std::vector<SweepView> selected_views(const ExportOptions& o, const Trace& trace) {
  std::vector<int> heads = o.heads;
  if (heads.empty())
    for (int h = 0; h < static_cast<int>(trace.heads.size()); ++h) heads.push_back(h);
  const bool all = o.stages == exported_stages();
  std::vector<SweepView> views;
  for (StageId stage : o.stages) {
    if (!has_stage(trace, stage)) {
      if (all) continue;
      throw ScenarioError(std::string("--what ") + stage_name(stage) + ": this scenario has no such stage (X_pos needs "
                          "positional_encoding, Q_rot and K_rot need rope, bias needs alibi)");
    }
    if (!per_head(stage)) {
      views.push_back({stage, 0});
      continue;
    }
    for (int h : heads) views.push_back({stage, h});
  }
  return views;
}

bool wants(const ExportOptions& o, const char* format) {
  return std::find(o.formats.begin(), o.formats.end(), format) != o.formats.end();
}

void export_all(const ExportOptions& o, const Scenario& scenario, const Trace& trace,
                const std::vector<SweepView>& views) {
  const std::string script_name = std::filesystem::path(o.file).filename().string();
  if (o.out == "-") {
    std::cout << numpy_script(scenario, script_name);
    return;
  }
  ExportFiles files(o.out);
  if (wants(o, "numpy")) files.add("attention.py", numpy_script(scenario, script_name));
  for (const SweepView& v : views)
    export_figure(o, stage_figure(scenario, trace, v.stage, v.head, o.maps), file_stem(v.stage, v.head), files);
  if (o.lines) {  // every head in one figure, or the one --head names
    const int head = o.heads.empty() ? -1 : o.heads[0];
    const LinesFigure figure = lines_figure(scenario, trace, head);
    if (wants(o, "png")) files.add(lines_stem(head) + ".png", encode_png(render_lines(figure, o.scale, o.style.transparent)));
    if (wants(o, "svg")) files.add(lines_stem(head) + ".svg", lines_svg(figure, o.style.transparent));
  }
  files.commit();
}

// GIFs from the export library (each frame computed once for every view), then PNG and SVG frames.
void export_sweep(const ExportOptions& o, const Scenario& scenario, const std::vector<SweepView>& views) {
  const Sweep& sweep = *o.sweep;
  const std::vector<SweepPlan> plans = plan_sweep(scenario, sweep, views, o.maps, o.style);
  ExportFiles files(o.out);
  if (wants(o, "gif")) {
    const std::vector<std::string> gifs = sweep_gifs(scenario, sweep, views, plans, o.maps, o.scale);
    for (std::size_t v = 0; v < gifs.size(); ++v) files.add(file_stem(views[v].stage, views[v].head) + ".gif", gifs[v]);
  }
  if (wants(o, "png") || wants(o, "svg"))
    for_each_sweep_frame(scenario, sweep, [&](int k, const Scenario& s, const Trace& t) {
      for (std::size_t v = 0; v < views.size(); ++v) {
        const HeatmapFigure figure = sweep_figure(s, t, sweep, k, views[v], plans[v], o.maps);
        const std::string stem = sweep_frame_stem(views[v], k);
        if (wants(o, "png")) files.add(stem + ".png", encode_png(render_figure(figure, plans[v].style, o.scale)));
        if (wants(o, "svg")) files.add(stem + ".svg", figure_svg(figure, plans[v].style));
      }
    });
  files.commit();
}

// PNG: one slide per step, and one before the reveal for a step that asks for a prediction.
// PDF: lesson.pdf, one page per step as revealed (a handout).
void export_lesson(const ExportOptions& o, const Scenario& scenario, const Trace& trace) {
  const lesson::Lesson lesson = lesson::lesson_of(scenario);
  for (std::size_t i = 0; i < lesson.steps.size(); ++i)
    if (lesson::needs_model(lesson.steps[i]))
      throw ScenarioError("view.lesson.steps[" + std::to_string(i) +
                          "]: a step of another layer, the head finder or patching needs the model: the window "
                          "presents it (attnlab-cli model --layer, heads and patch print its numbers)");
  LessonDeck deck(scenario, trace, lesson, SlideOptions{o.scale, o.style.decimals, o.maps});
  const bool png = wants(o, "png"), pdf = wants(o, "pdf");
  ExportFiles files(o.out);
  PdfPages handout;
  for (std::size_t i = 0; i < lesson.steps.size(); ++i)
    for (bool hidden : {true, false}) {
      if (hidden && !(lesson.steps[i].predict && png)) continue;
      const Canvas slide = deck.render(i, hidden);
      if (png) files.add(slide_stem(lesson, i, hidden) + ".png", encode_png(slide));
      if (pdf && !hidden) handout.add(slide);
    }
  if (pdf) files.add("lesson.pdf", handout.finish());
  files.commit();
}

/// Everything the command line asks of this scenario, checked before any folder or file is made:
/// the views to export. Throws UsageError (exit 2) or ScenarioError (exit 1).
std::vector<SweepView> check_request(const ExportOptions& o, const Scenario& scenario, const Trace& trace) {
  if (!o.heads.empty()) check_head_exists(o.heads[0], trace.heads.size());
  if (o.sweep) {
    try {  // both ends, before any frame is drawn
      check_sweep(scenario, *o.sweep);
    } catch (const ScenarioError& e) {
      throw UsageError(std::string("--sweep ") + e.what());
    }
  }
  if (o.lesson) return {};  // export_lesson reads the lesson before it makes the folder
  return selected_views(o, trace);
}

// ---- A model folder: the model grid (every layer's and head's weights in one figure) ----

struct GridOptions {
  std::vector<int> ids;              ///< --ids; empty with --text
  std::vector<std::string> formats;  ///< png, svg
  int scale = 1;
  Colormap map = Colormap::Viridis;
};

/// What a model folder takes: --text or --ids, --out, --format png,svg, --scale, --colormap.
void refuse_scenario_options(const ExportArgs& p) {
  std::string given;
  for (const char* option : {"--what", "--head", "--decimals", "--sweep"})
    if (given.empty() && p.has(option)) given = option;
  const std::pair<bool, const char*> flags[] = {
      {p.lesson, "--lesson"}, {p.values, "--values"}, {p.transparent, "--transparent"}};
  for (const auto& [flag, name] : flags)
    if (given.empty() && flag) given = name;
  if (!given.empty())
    throw UsageError(
        given +
        " is for scenario files; a model folder takes --text or --ids, --out, --format png,svg, "
        "--scale and --colormap");
}

GridOptions parse_grid_options(const ExportArgs& p) {
  refuse_scenario_options(p);
  const bool text = p.has("--text"), ids = p.has("--ids");
  if (text == ids)
    throw UsageError(text ? "give --text or --ids, not both"
                          : "export of a model folder needs --text TEXT or --ids LIST");
  if (!p.has("--out")) throw UsageError("export needs --out DIR");
  if (p.out.empty() || p.out == "-")
    throw UsageError("--out expects a directory for a model folder's grid, got " +
                     quote_arg(p.out));
  GridOptions o;
  o.formats = split_list(p.format);
  if (o.formats.empty())
    throw UsageError("--format expects png, svg or png,svg for a model folder");
  for (const std::string& f : o.formats)
    if (f != "png" && f != "svg")
      throw UsageError("--format expects png, svg or png,svg for a model folder, got " +
                       quote_arg(f));
  o.scale = parse_scale(p);
  o.map = parse_colormaps(p).sequential;  // weights: a sequential map, as the weights figures
  for (const std::string& item : ids ? split_list(p.ids) : std::vector<std::string>{})
    o.ids.push_back(whole_number("--ids", item, 0, INT_MAX));
  if (ids && o.ids.empty())
    throw UsageError("--ids expects token ids separated by commas, got " + quote_arg(p.ids));
  return o;
}

/// The text as one line for the subtitle: control characters (a newline) become spaces.
std::string one_line(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return text;
}

/// The figure of a forward run: every layer and query head, the causal mask (a decoder's), the
/// tokens' labels (a space shows as U+2423, which DejaVu Sans draws).
ModelGridFigure grid_figure(const models::HfModel& model, const models::ForwardRun& run,
                            const std::string& text, Colormap map) {
  ModelGridFigure f;
  f.tokens = model.labels(run.ids);
  const int n = static_cast<int>(run.ids.size());
  for (const models::LayerRun& layer : run.layers) {
    f.weights.emplace_back();
    for (const models::MatrixF& w : layer.weights) f.weights.back().push_back(w.cast<double>());
  }
  std::string shown = "\xE2\x80\x9C" + one_line(text) + "\xE2\x80\x9D";  // “text”
  if (text.empty()) {  // --ids: the tokens themselves
    shown.clear();
    for (const std::string& t : f.tokens) shown += (shown.empty() ? "" : " ") + t;
  }
  const std::size_t heads = f.weights.empty() ? 0 : f.weights[0].size();
  f.title = model.name() + " \xE2\x80\x93 attention weights of every layer and head";
  f.subtitle = shown + " \xC2\xB7 " + std::to_string(n) + " tokens \xC2\xB7 " +
               std::to_string(f.weights.size()) + " layers \xC3\x97 " + std::to_string(heads) +
               " heads \xC2\xB7 rows: queries, columns: keys";
  // An encoder's tokens see each other: its figure hatches nothing.
  f.allowed = model.config().causal ? causal_allowed(n) : BoolArray::Constant(n, n, true);
  f.scale = {map, 0.0, 1.0};
  return f;
}

int run_model_grid(const ExportArgs& args) {
  const GridOptions o = parse_grid_options(args);
  ModelGridFigure figure;
  try {  // everything the folder can refuse, before any folder or file is made
    const auto model = models::HfModel::open(args.file);
    const std::vector<int> ids = o.ids.empty() ? model->encode(args.text) : o.ids;
    figure =
        grid_figure(*model, model->transformer().run(ids), o.ids.empty() ? args.text : "", o.map);
  } catch (const std::exception& e) {
    return report_invalid(args.file, e);
  }
  try {
    ExportFiles files(args.out);
    for (const std::string& format : o.formats)
      files.add("model-grid." + format, format == "png"
                                            ? encode_png(render_model_grid(figure, o.scale))
                                            : model_grid_svg(figure));
    files.commit();
  } catch (const std::exception& e) {  // no font, an unwritable folder
    std::cerr << one_line_message(std::string("attnlab-cli: export: ") + e.what()) << "\n";
    return 1;
  }
  return 0;
}

int run_export(const ExportArgs& args) {
  std::error_code error;
  if (std::filesystem::is_directory(args.file, error)) return run_model_grid(args);
  for (const char* option : {"--text", "--ids"})
    if (args.has(option))
      throw UsageError(std::string(option) + " reads a model folder; " + quote_arg(args.file) +
                       " is not a folder");
  const ExportOptions o = parse_options(args);
  Scenario scenario;
  Trace trace;
  try {
    scenario = load_scenario(o.file);
    trace = compute(scenario);
  } catch (const ScenarioError& e) {
    return report_invalid(o.file, e);
  }
  try {
    const std::vector<SweepView> views = check_request(o, scenario, trace);
    if (o.lesson)
      export_lesson(o, scenario, trace);
    else if (o.sweep)
      export_sweep(o, scenario, views);
    else
      export_all(o, scenario, trace, views);
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {  // a stage the scenario lacks, no font, an unwritable folder
    std::cerr << one_line_message(std::string("attnlab-cli: export: ") + e.what()) << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

Run add_export(CLI::App& program) {
  auto a = std::make_shared<ExportArgs>();
  CLI::App* c = program.add_subcommand(
      "export",
      "figures (PNG, SVG), CSV and a runnable NumPy script, drawn without a display (docs/EXPORT.md);\n"
      "with --sweep, one animated GIF (or numbered frames) per figure as one number moves;\n"
      "with --lesson, one 1920x1080 PNG slide per step of the scenario's lesson (--format pdf:\n"
      "DIR/lesson.pdf, one page per step, a handout);\n"
      "for a model folder (with --text or --ids), DIR/model-grid.png: every layer's and\n"
      "head's weights");
  add_file(*c, a->file)
      ->description(
          "the scenario, a JSON file (docs/FORMAT.md; examples in assets/presets), or a\n"
          "Hugging Face model folder (gpt2, llama, qwen2) with --text or --ids");
  const auto option = [&](const char* name, std::string& value, const char* type, const char* help) {
    CLI::Option* opt = c->add_option(name, value, help)->type_name(type);
    a->given[name] = opt;
    return opt;
  };
  option("--out", a->out, "DIR", "the directory to write into (created); -: the NumPy script to stdout")->group(kRequired);
  option("--what", a->what, "LIST",
         "the matrices, comma-separated, or all: X_pos, Q, K, V, Q_rot, K_rot,\n"
         "scores, scaled, bias, masked, weights, head_output, concat, output;\n"
         "lines: the weights as lines from queries to keys, every head (or --head)\n"
         "in one figure, DIR/lines.png (not part of all)");
  option("--head", a->head, "N", "the head (from 0) of the per-head matrices, or all");
  option("--format", a->format, "LIST",
         "comma-separated: png, svg, csv, numpy; with --sweep: gif, png, svg;\n"
         "with --lesson: png, pdf; a model folder: png, svg");
  option("--scale", a->scale, "1|2|4", "pixels per point of the PNGs (--lesson: 1 or 2)");
  option("--colormap", a->colormap, "NAME", "viridis, cividis, grayscale, rdbu or gray-diverging");
  c->add_flag("--values", a->values, "write each cell's value in it");
  option("--decimals", a->decimals, "1-6", "digits after the point of the values written");
  c->add_flag("--transparent", a->transparent, "no background behind the figure");
  option("--sweep", a->sweep, "PARAM=FROM:TO:FRAMES",
         "animate: PARAM from FROM to TO in FRAMES frames (2 to 1000), e.g.\n"
         "scale=0.1:2:40; PARAM is scale, rope.base, alibi[h], X[i][j], W_q[i][j],\n"
         "heads[h].W_k[i][j], ...");
  c->add_flag("--lesson", a->lesson,
              "one PNG slide per step of the scenario's lesson (--format pdf: one PDF,\n"
              "one page per step; no --what or --head)");
  option("--text", a->text, "TEXT", "model folder only: the text, split by the model's tokenizer");
  option("--ids", a->ids, "LIST",
         "model folder only: token ids instead of a text, comma-separated: 464,3797,...");
  return [a] { return run_export(*a); };
}

}  // namespace attnlab::cli
