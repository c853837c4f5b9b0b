#include "panels/panel_model.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/model.h"
#include "attnlab/numbering.h"
#include "attnlab/text_fit.h"
#include "panels/document_banner.h"
#include "session/model_lab.h"
#include "widgets/busy_bar.h"
#include "widgets/control_marks.h"
#include "widgets/heatmap.h"
#include "widgets/heatmap_marks.h"
#include "widgets/panel_tooltip.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_model {
namespace {

/// The run's weights in double (what the heatmap widget draws), rebuilt when the run changes.
struct RunMaps {
  std::uint64_t serial = ~std::uint64_t{0};
  int layers = 0, heads = 0;
  std::vector<attnlab::Matrix> maps;  ///< layer * heads + head: n by n, queries down
  std::vector<attnlab::BoolArray> allowed;  ///< per layer: keys up to the query, within its window
  std::vector<std::string> captions;         ///< per layer: "local 512", "global", "no RoPE" or ""
  const attnlab::Matrix& At(int layer, int head) const { return maps[std::size_t(layer * heads + head)]; }
};

void Rebuild(RunMaps& m, const ModelLab& lab) {
  m.serial = lab.RunSerial();
  m.maps.clear();
  m.layers = m.heads = 0;
  const ModelRun* run = lab.Run();
  if (!run) return;
  const int n = int(run->run->ids.size());
  m.layers = int(run->run->layers.size());
  m.heads = m.layers ? int(run->run->layers.front().weights.size()) : 0;
  for (const models::LayerRun& layer : run->run->layers)
    for (const models::MatrixF& w : layer.weights) m.maps.emplace_back(w.cast<double>());
  m.allowed.clear();
  m.captions.clear();
  const models::ModelConfig& config = lab.Model()->config();
  for (int l = 0; l < m.layers; ++l) {
    // An encoder's tokens see each other: no hatched triangle over its weights.
    m.allowed.push_back(config.causal
                            ? attnlab::causal_mask(n, config.attention[std::size_t(l)].window)
                            : attnlab::BoolArray::Constant(n, n, true));
    m.captions.push_back(config.layer_caption(l));
  }
}

// The grid's captions, written in one place (how layers and heads are numbered is one choice).
std::string LayerCaption(int layer) { return attnlab::layer_label(layer); }
std::string HeadCaption(int head) { return attnlab::head_label(head); }
std::string HeadNumber(int head) { return attnlab::index_text(head); }

/// A map is never drawn smaller than this many pixels a side: below it the grid scrolls. At 16
/// pixels a 12 x 12 grid fits a lecture-mode panel at 1280 x 800, and a map still shows its
/// pattern (the diagonal, the first token's column, a window's band) pooled to a pixel a block.
constexpr float kMinMapSide = 16.0f;

/// Where the grid's maps go: cells of `cell` pixels (below 1, pooled), a map every `pitch` pixels
/// after the captions.
struct GridFit {
  float cell = 0, map = 0, pitch_x = 0, pitch_y = 0, caption_w = 0, header_h = 0;
  bool head_numbers = false;  ///< the columns are captioned with numbers only, "head" in the corner
  bool one_line = false;      ///< a layer's own caption ("local 512") beside "layer N", not under it
  ImVec2 size;                ///< the whole grid
};

// The cell size of an n-token map drawn `side` pixels wide: whole pixels from 2 up, 1 from 1 to 2
// (every cell keeps a pixel of its own), and below that pooled to exactly `side` texels.
float MapCell(int n, float side) {
  const float fit = side / float(n);
  if (fit >= 2.0f) return std::floor(fit);
  if (fit >= 1.0f) return 1.0f;
  return (side + 0.25f) / float(n);  // floor(n * cell) == side: one texel a pixel
}

// The largest maps at which every layer and head fits in `avail`, never below kMinMapSide (then
// the grid scrolls) nor with cells above a cap (a picture of the pattern, not a table). However
// long the text, the maps shrink (pooled) rather than push layers and heads out of view.
GridFit Fit(int layers, int heads, int n, const std::vector<std::string>& captions, ImVec2 avail,
            bool one_line = false) {
  const float fs = ImGui::GetFontSize(), gap = std::max(2.0f, std::round(fs * 0.2f));
  GridFit f;
  f.one_line = one_line;
  bool special = false;
  for (int l = 0; l < layers; ++l) {
    const std::string& caption = captions[std::size_t(l)];
    special = special || !caption.empty();
    const float layer_w = ImGui::CalcTextSize(LayerCaption(l).c_str()).x;
    const float caption_w = ImGui::CalcTextSize(caption.c_str()).x;
    f.caption_w = std::max(f.caption_w, one_line ? layer_w + fs * 0.5f + caption_w : std::max(layer_w, caption_w));
  }
  f.caption_w += std::round(fs * 0.6f);
  f.header_h = ImGui::GetTextLineHeightWithSpacing();
  const float by_w = (avail.x - f.caption_w) / float(heads) - gap;
  const float by_h = (avail.y - f.header_h) / float(layers) - gap;
  const float max_side = std::round(fs * 2.5f) * float(n);
  const float side = std::max(kMinMapSide, std::min(std::floor(std::min(by_w, by_h)), max_side));
  f.cell = MapCell(n, side);
  f.map = f.cell < 1.0f ? side : f.cell * float(n);
  f.head_numbers = ImGui::CalcTextSize(HeadCaption(heads - 1).c_str()).x > f.map;
  const float head_w = ImGui::CalcTextSize(HeadNumber(heads - 1).c_str()).x;
  f.pitch_x = std::max(f.map, head_w) + gap;
  f.pitch_y = f.map + gap;
  f.size = ImVec2(f.caption_w + f.pitch_x * float(heads), f.header_h + f.pitch_y * float(layers));
  if (special && !one_line && f.pitch_y < 2.0f * ImGui::GetTextLineHeight())  // no room for two lines
    return Fit(layers, heads, n, captions, avail, true);
  return f;
}

ImVec2 TokenSize(const std::string& label) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const ImVec2 text = ImGui::CalcTextSize(label.c_str());
  return ImVec2(text.x + style.FramePadding.x * 2.0f, text.y + style.FramePadding.y);
}

// How many lines the tokens take wrapped at `width` (as Tokens wraps them).
int TokenLines(const ModelRun& run, float width) {
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  int lines = 1;
  float x = 0;
  for (const std::string& label : run.labels) {
    const float w = TokenSize(label).x;
    if (x > 0 && x + spacing + w > width) {
      ++lines;
      x = 0;
    }
    x += (x > 0 ? spacing : 0.0f) + w;
  }
  return lines;
}

/// The second sentence's mark under its tokens (a pair's B): a colour of its own, not the accent
/// that frames the masked word.
ImU32 SecondSentenceColor() { return IM_COL32(236, 150, 40, 255); }

bool InSecondSentence(const ModelRun& run, std::size_t i) { return i < run.sequence.size() && run.sequence[i] == 1; }

// The tokens as the tokenizer split them, each in a frame, wrapped over lines; a pair's second
// sentence underlined, an encoder's masked word framed. With a `mask` token (an encoder's), a word
// is clicked to hide it behind it (ModelLab::ToggleHidden): `clicked` is its position.
void TokenFrames(AppState& state, const ModelRun& run, const std::string& mask, int* clicked) {
  const bool encoder = !mask.empty();
  const ImGuiStyle& style = ImGui::GetStyle();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float thick = std::max(2.0f, std::round(ImGui::GetFontSize() * 0.15f));
  for (std::size_t i = 0; i < run.labels.size(); ++i) {
    const std::string& label = run.labels[i];
    const ImVec2 size = TokenSize(label);
    if (i > 0) SameLineIfFits(size.x);
    const ImVec2 pos = ImGui::GetCursorScreenPos(), end(pos.x + size.x, pos.y + size.y);
    const bool word = i < run.sequence.size() && run.sequence[i] >= 0;
    ImGui::PushID(int(i));
    if (encoder && word ? ImGui::InvisibleButton("##token", size) : (ImGui::Dummy(size), false)) *clicked = int(i);
    ImGui::PopID();
    dl->AddRectFilled(pos, end, ImGui::GetColorU32(ImGui::IsItemHovered() && encoder && word ? ImGuiCol_FrameBgHovered
                                                                                             : ImGuiCol_FrameBg),
                      style.FrameRounding);
    dl->AddText(ImVec2(pos.x + style.FramePadding.x, pos.y + style.FramePadding.y * 0.5f),
                ImGui::GetColorU32(ImGuiCol_Text), label.c_str());
    if (InSecondSentence(run, i)) dl->AddRectFilled(ImVec2(pos.x, end.y - thick), end, SecondSentenceColor());
    if (int(i) == run.position) dl->AddRect(pos, end, AccentColor(), style.FrameRounding, 0, thick);
    MarkLastItem(state.on_control, ("model token " + std::to_string(i)).c_str());
    if (!ImGui::IsItemHovered()) continue;
    const std::string text = "token " + std::to_string(i) + ": id " + std::to_string(run.run->ids[i]) +
                             (InSecondSentence(run, i) ? ", the second sentence (token type 1)" : "");
    if (int(i) == run.hidden)
      ImGui::SetTooltip("%s\nhides %s: click to show it again", text.c_str(), run.hidden_label.c_str());
    else if (encoder && word)
      ImGui::SetTooltip("%s\nclick: hide it behind %s and see what the model predicts there", text.c_str(),
                        mask.c_str());
    else
      ImGui::SetTooltip("%s", text.c_str());
  }
}

// The tokens, in at most a sixth of the room left (at least one line): a long text scrolls
// within its strip rather than push the grid's maps smaller (each map's tooltip names its tokens).
// Returns the word clicked (an encoder's), or -1.
int Tokens(AppState& state, const ModelRun& run, const std::string& mask) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float line = TokenSize("X").y + ImGui::GetStyle().ItemSpacing.y;
  // A pair's second sentence stays in view beside the first: two lines at least.
  const int max_lines = std::max(run.pair.empty() ? 1 : 2, int(avail.y / 6.0f / line));
  int clicked = -1;
  if (TokenLines(run, avail.x) <= max_lines) {
    TokenFrames(state, run, mask, &clicked);
    return clicked;
  }
  if (ImGui::BeginChild("##model tokens", ImVec2(avail.x, line * float(max_lines))))
    TokenFrames(state, run, mask, &clicked);
  ImGui::EndChild();
  return clicked;
}

// A caption of the grid, named for the window tests that read what it says.
void MarkCaption(AppState& state, const char* caption, ImVec2 at) {
  const ImVec2 size = ImGui::CalcTextSize(caption);
  MarkRect(state.on_control, {"", std::string("model caption ") + caption}, at,
           ImVec2(at.x + size.x, at.y + size.y));
}

// The hovered map, large, with its tokens on both axes and the hovered cell outlined.
void MapTooltip(AppState& state, const RunMaps& maps, const ModelRun& run, int layer, int head,
                const HeatmapResult& hover) {
  const attnlab::Matrix& w = maps.At(layer, head);
  const int n = int(w.rows());
  const float fs = ImGui::GetFontSize();
  const std::vector<std::pair<int, int>> outlined = {{hover.row, hover.col}};
  BeginPanelTooltip();
  ImGui::PushFont(GetFonts().bold);
  const std::string name = attnlab::model_head_label(layer, head);
  ImGui::TextUnformatted(name.c_str());
  MarkLastItem(state.on_control,
               ("model tooltip " + name).c_str());  // the words a window test reads
  ImGui::PopFont();
  if (!maps.captions[std::size_t(layer)].empty()) {
    ImGui::SameLine();
    ImGui::TextColored(DimTextColor(), "(%s)", maps.captions[std::size_t(layer)].c_str());
  }
  const std::string& q = run.labels[std::size_t(hover.row)];
  const std::string& k = run.labels[std::size_t(hover.col)];
  if (maps.allowed[std::size_t(layer)](hover.row, hover.col))
    ImGui::Text("query \xE2\x80\x9C%s\xE2\x80\x9D \xE2\x86\x92 key \xE2\x80\x9C%s\xE2\x80\x9D: %.*f", q.c_str(),
                k.c_str(), state.ui.decimals, w(hover.row, hover.col));
  else
    ImGui::Text("query \xE2\x80\x9C%s\xE2\x80\x9D \xE2\x86\x92 key \xE2\x80\x9C%s\xE2\x80\x9D: masked (%s)",
                q.c_str(), k.c_str(), hover.col > hover.row ? "a later token" : "outside the layer's window");
  char id[40];  // which map it shows, for the layout dump (tests check it against the model's)
  std::snprintf(id, sizeof id, "model/tooltip/%d/%d", layer, head);
  HeatmapSpec spec;
  spec.id = id;
  spec.values = &w;
  spec.allowed = &maps.allowed[std::size_t(layer)];
  spec.row_labels = spec.col_labels = &run.labels;
  spec.row_axis = "queries";
  spec.col_axis = "keys";
  spec.scale = WeightsScale(state.ui.colormap);
  spec.decimals = state.ui.decimals;
  spec.shape_in_title = false;
  spec.legend = false;
  spec.cell_tooltip = false;
  spec.outlined = &outlined;
  // Full resolution (a pixel a cell at least, never pooled as the grid's maps may be), as large as
  // 18 font sizes allow and within 60% of the window's height, so the tooltip stays on screen.
  const float fits = std::floor(ImGui::GetIO().DisplaySize.y * 0.6f / float(n));
  spec.cell = std::max(1.0f, std::min({std::floor(fs * 18.0f / float(n)), std::round(fs * 2.4f), fits}));
  spec.data_version = maps.serial;
  spec.head = head;
  Heatmap(*state.heatmaps, spec);
  DimTextWrapped("Click: open " + LayerCaption(layer) + " as the document, " + HeadCaption(head) + " selected.");
  ImGui::EndTooltip();
}

/// A text field whose text the lab may also set (a reopened layer's): the field shows it.
struct SyncedText {
  // A sentence or a paragraph: a grid of every layer and head at a hundred tokens or so is what a
  // class can still read (and 12 x 12 maps of 1024 tokens would be a gigabyte of doubles).
  char buffer[400] = {};
  std::string synced;  ///< the lab's text when the field last took it
  bool cursor_to_end = false;  ///< the field took the keyboard back: its cursor goes after the text
};

// The field `id` showing `value`; returns true when typed in (the new text in f.synced).
bool SyncedField(SyncedText& f, const char* id, const char* hint, const std::string& value) {
  if (value != f.synced) {  // set elsewhere (a reopened layer's text, an instrument): the field shows it
    f.synced = value;
    std::snprintf(f.buffer, sizeof f.buffer, "%s", f.synced.c_str());
    // A field being typed in edits its own copy of the text (ImGui 1.86) and would write the old
    // one back at its next edit: it lets go and takes the keyboard again with the new text, the
    // cursor after it (taking the focus selects all, and the next key would replace the text).
    if (ImGui::GetActiveID() == ImGui::GetID(id)) {
      ImGui::ClearActiveID();
      ImGui::SetKeyboardFocusHere();
      f.cursor_to_end = true;
    }
  }
  ImGui::SetNextItemWidth(-1.0f);
  const auto to_end = [](ImGuiInputTextCallbackData* data) {
    data->CursorPos = data->SelectionStart = data->SelectionEnd = data->BufTextLen;
    *static_cast<bool*>(data->UserData) = false;
    return 0;
  };
  if (!ImGui::InputTextWithHint(id, hint, f.buffer, sizeof f.buffer,
                                f.cursor_to_end ? ImGuiInputTextFlags_CallbackAlways : 0, to_end, &f.cursor_to_end))
    return false;
  f.synced = f.buffer;
  return true;
}

class ModelPanel final : public PanelContents {
 public:
  void Draw(AppState& state) override;

 private:
  void TextField(ModelLab& lab, const ControlMarks& marks);
  void PairField(ModelLab& lab, const ControlMarks& marks);
  void Grid(AppState& state, ModelLab& lab);
  void Map(AppState& state, ModelLab& lab, const GridFit& fit, int layer, int head, ImVec2 at);

  SyncedText text_, pair_;
  const models::HfModel* focused_model_ = nullptr;  ///< the model the field took the focus for
  RunMaps maps_;
};

void ModelPanel::TextField(ModelLab& lab, const ControlMarks& marks) {
  // A model just opened: ready to type (over the text before, selected); not when it opened for the
  // document, a layer of it (a saved layer, a lesson): its text is the layer's, and the keys are the
  // document's (P presents the lesson rather than typing "p" over it).
  if (lab.Model() != focused_model_) {
    focused_model_ = lab.Model();
    if (lab.DocumentLayer() < 0) ImGui::SetKeyboardFocusHere();
  }
  const bool encoder = lab.Model() && !lab.Model()->config().causal;
  const char* hint = lab.Model() && !lab.Model()->tokenizer() ? "Type token ids: 464, 3797, 3332\xE2\x80\xA6"
                     : encoder ? "Type a sentence (a word as [MASK] to predict it)\xE2\x80\xA6"
                               : "Type a sentence\xE2\x80\xA6";
  if (SyncedField(text_, "##model text", hint, lab.Text())) lab.SetText(text_.synced);
  MarkLastItem(marks, "model text");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(encoder || !lab.Model() ? "The model runs on this text as it is typed"
                                              : "The model runs on this text as it is typed (a decoder: one text; a "
                                                "sentence pair is for encoders such as BERT)");
}

// An encoder's second sentence ([CLS] A [SEP] B [SEP]). A decoder reads one text: no field (a line
// of a projected window is worth more than a disabled one), unless a pair reached it (a saved
// layer's), shown to be deleted beside the line refusing it.
void ModelPanel::PairField(ModelLab& lab, const ControlMarks& marks) {
  const models::HfModel& model = *lab.Model();
  const bool encoder = !model.config().causal;
  if (!encoder && lab.Pair().empty()) return;
  const char* hint = "Second sentence (optional): a pair, its tokens underlined\xE2\x80\xA6";
  if (SyncedField(pair_, "##model pair", hint, lab.Pair())) lab.SetPair(pair_.synced);
  MarkLastItem(marks, "model pair");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(encoder ? "The pair's second sentence: token type 1, underlined in the tokens"
                              : "%s is a decoder and reads one text: delete the second sentence", model.name().c_str());
}

void ModelPanel::Draw(AppState& state) {
  ModelLab* lab = state.models;
  if (!lab) return;
  if (lab->Loading()) BusyBar(("Loading " + lab->LoadingName() + kEllipsis).c_str());
  const models::HfModel* model = lab->Model();
  // A layer whose model folder is not there, or holds other weights: said here too, with Locate….
  if (const NextTokens& next = lab->Next(); next.offer_locate && state.locate_model) {
    LocateModelButton(state, "locate model Model");
    ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
    ImGui::TextWrapped("%s", next.note.c_str());
    ImGui::PopStyleColor();
    MarkLastItem(state.on_control, "model folder note");
    ImGui::Spacing();
  }
  if (!model) {
    if (!lab->Loading())
      DimTextWrapped("No model open. File > Open model" + std::string(kEllipsis) +
                     " opens a Hugging Face folder (GPT-2, Llama, Qwen2: config.json, safetensors, "
                     "tokenizer); so does dropping the folder on the window or `attnlab FOLDER`.");
    return;
  }
  ImGui::PushFont(GetFonts().bold);
  ImGui::TextUnformatted(model->name().c_str());
  ImGui::PopFont();
  ImGui::SameLine();
  ImGui::TextColored(DimTextColor(), "%s, %s", model->config().describe().c_str(), model->dtype().c_str());
  if (!model->tokenizer())  // the folder's ids still work: say why words do not
    DimTextWrapped("No tokenizer (" + model->tokenizer_error() + "): type token ids, separated by commas or spaces.");
  TextField(*lab, state.on_control);
  PairField(*lab, state.on_control);
  if (!lab->TextError().empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
    ImGui::TextWrapped("%s", lab->TextError().c_str());
    ImGui::PopStyleColor();
  }
  if (maps_.serial != lab->RunSerial()) Rebuild(maps_, *lab);
  const ModelRun* run = lab->Run();
  if (!run) return;
  if (!run->cut_note.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
    ImGui::TextWrapped("%s", run->cut_note.c_str());
    ImGui::PopStyleColor();
    MarkLastItem(state.on_control, "model text cut");
  }
  // An encoder's words are clicked to hide them behind its mask token.
  const std::optional<int> mask = model->config().causal ? std::nullopt : model->mask_id();
  const int clicked = Tokens(state, *run, mask ? model->tokenizer()->token(*mask) : std::string());
  if (clicked >= 0 && !lab->RunStale()) lab->ToggleHidden(clicked);
  ImGui::Spacing();
  Grid(state, *lab);
}

void ModelPanel::Grid(AppState& state, ModelLab& lab) {
  const ModelRun& run = *lab.Run();
  const int n = int(run.run->ids.size());
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float scrollbar = ImGui::GetStyle().ScrollbarSize;
  GridFit fit = Fit(maps_.layers, maps_.heads, n, maps_.captions, avail);
  if (fit.size.x > avail.x || fit.size.y > avail.y)  // it scrolls: leave room for the bars
    fit = Fit(maps_.layers, maps_.heads, n, maps_.captions, ImVec2(avail.x - scrollbar, avail.y - scrollbar));
  if (!ImGui::BeginChild("##model grid", avail, false, ImGuiWindowFlags_HorizontalScrollbar)) {
    ImGui::EndChild();
    return;
  }
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim = ImGui::ColorConvertFloat4ToU32(DimTextColor());
  if (fit.head_numbers)  // "head" once, in the corner, before the columns' numbers
    dl->AddText(ImVec2(origin.x, origin.y), dim, "head");
  for (int h = 0; h < maps_.heads; ++h) {
    const std::string caption = fit.head_numbers ? HeadNumber(h) : HeadCaption(h);
    const ImVec2 at(origin.x + fit.caption_w + fit.pitch_x * float(h), origin.y);
    dl->AddText(at, dim, caption.c_str());
    MarkCaption(state, caption.c_str(), at);
  }
  const float line = ImGui::GetTextLineHeight();
  for (int l = 0; l < maps_.layers; ++l) {
    const float y = origin.y + fit.header_h + fit.pitch_y * float(l);
    const std::string& special = maps_.captions[std::size_t(l)];
    // Taller maps than the text centre it; shorter ones start it at the map's top (it then
    // overlaps the gap below, never the next layer's caption, as a caption is one line a layer).
    const float lines = special.empty() || fit.one_line ? 1.0f : 2.0f;
    const float top = y + std::max(0.0f, (fit.map - line * lines) * 0.5f);
    const std::string caption = LayerCaption(l);
    dl->AddText(ImVec2(origin.x, top), dim, caption.c_str());
    MarkCaption(state, caption.c_str(), ImVec2(origin.x, top));
    if (fit.one_line)
      dl->AddText(ImVec2(origin.x + ImGui::CalcTextSize(caption.c_str()).x + ImGui::GetFontSize() * 0.5f, top), dim,
                  special.c_str());
    else if (lines == 2.0f)
      dl->AddText(ImVec2(origin.x, top + line), dim, special.c_str());
    for (int h = 0; h < maps_.heads; ++h)
      Map(state, lab, fit, l, h, ImVec2(origin.x + fit.caption_w + fit.pitch_x * float(h), y));
  }
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(fit.size);  // the scrolled extent
  ImGui::EndChild();
}

void ModelPanel::Map(AppState& state, ModelLab& lab, const GridFit& fit, int layer, int head, ImVec2 at) {
  char id[32];
  std::snprintf(id, sizeof id, "model/%d/%d", layer, head);
  const bool document = lab.DocumentLayer() == layer;
  const std::vector<int>& off = state.document.GetScenario().heads_off;
  const bool head_off = document && std::binary_search(off.begin(), off.end(), head);
  HeatmapSpec spec;
  spec.id = id;
  spec.values = &maps_.At(layer, head);
  spec.allowed = &maps_.allowed[std::size_t(layer)];
  spec.scale = WeightsScale(state.ui.colormap);
  spec.cell = fit.cell;
  spec.labels = false;
  spec.legend = false;
  spec.values_in_cells = false;
  spec.shape_in_title = false;
  spec.cell_tooltip = false;
  spec.selected = document && state.ui.selected_head == head;
  spec.data_version = maps_.serial;
  spec.stale = lab.RunStale() || head_off;
  spec.head = head;  // no stage: the grid is the model's, not the document's trace
  ImGui::SetCursorScreenPos(at);
  const HeatmapResult r = Heatmap(*state.heatmaps, spec);
  if (head_off) DrawOffMark(ImGui::GetWindowDrawList(), at, ImVec2(at.x + fit.map, at.y + fit.map));
  if (r.hovered) {
    state.ui.model_layer =
        layer;  // the layer the document banner offers (panels/document_banner.h)
    MapTooltip(state, maps_, *lab.Run(), layer, head, r);
  }
  if (r.clicked && !lab.RunStale())
    lab.OpenLayer(layer, head);
}

}  // namespace

std::unique_ptr<PanelContents> Make() { return std::make_unique<ModelPanel>(); }

}  // namespace attnlab::app::panel_model
