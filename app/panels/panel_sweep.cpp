#include "panels/panel_sweep.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "attnlab/numbering.h"
#include "attnlab/sweep.h"
#include "panels/panel_requests.h"
#include "session/sweep.h"
#include "session/user_dirs.h"
#include "widgets/control_marks.h"
#include "widgets/matrix_editor.h"
#include "widgets/theme.h"

namespace attnlab::app::panel_sweep {
namespace {

struct SweepState {
  char param[96] = "scale";
  double from = 0.1, to = 2.0;
  float seconds = 4.0f;
  attnlab::SweepRepeat repeat = attnlab::SweepRepeat::bounce;
  std::string error;
  // What the parameter holds now, kept per version: the scale's default needs a resolve() of the
  // whole scenario, too much for every frame of a large one.
  std::uint64_t value_version = 0;
  std::string value_param, value_text;
};

// A range around the current value that shows something (attnlab::default_sweep_range).
void DefaultRange(SweepState& sweep, const attnlab::Scenario& s) {
  try {
    const attnlab::SweepRange range = attnlab::default_sweep_range(s, attnlab::parse_cell_ref(sweep.param));
    sweep.from = range.from;
    sweep.to = range.to;
    sweep.error.clear();
  } catch (const attnlab::ScenarioError& e) {
    sweep.error = e.what();
  }
}

// "scale = 0.354  (T = 2.83)": what the parameter holds now.
std::string ValueText(const attnlab::Scenario& s, const char* param) {
  try {
    const attnlab::CellRef ref = attnlab::parse_cell_ref(param);
    const double v = attnlab::scenario_value(s, ref);
    char buf[96];
    if (attnlab::sweep_against_temperature(ref))
      std::snprintf(buf, sizeof buf, "now %.4g  (T = 1/%s = %.4g)", v, ref.text().c_str(), 1.0 / v);
    else std::snprintf(buf, sizeof buf, "now %.4g", v);
    return buf;
  } catch (const attnlab::ScenarioError& e) {
    return e.what();
  }
}

void Controls(AppState& state, SweepState& sweep) {
  const float label_w = ImGui::CalcTextSize("Seconds ").x;
  const auto label = [&](const char* text) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(text);
    ImGui::SameLine(label_w + ImGui::GetStyle().WindowPadding.x);
    ImGui::SetNextItemWidth(-1.0f);
  };
  label("Number");
  if (ImGui::InputTextWithHint("##param", "scale, X[0][1], heads[1].W_k[0][0], alibi[0]", sweep.param,
                               sizeof sweep.param, ImGuiInputTextFlags_EnterReturnsTrue))
    DefaultRange(sweep, state.document.GetScenario());
  MarkLastItem(state.on_control, "sweep param");
  if (sweep.value_version != state.document.Version() || sweep.value_param != sweep.param) {
    sweep.value_version = state.document.Version();
    sweep.value_param = sweep.param;
    sweep.value_text = ValueText(state.document.GetScenario(), sweep.param);
  }
  DimTextWrapped(sweep.value_text.c_str());
  label("From");
  ImGui::InputDouble("##from", &sweep.from, 0, 0, "%.4g");
  MarkLastItem(state.on_control, "sweep from");
  label("To");
  ImGui::InputDouble("##to", &sweep.to, 0, 0, "%.4g");
  MarkLastItem(state.on_control, "sweep to");
  label("Seconds");
  ImGui::SliderFloat("##seconds", &sweep.seconds, 0.5f, 30.0f, "%.1f s", ImGuiSliderFlags_Logarithmic);
  int repeat = int(sweep.repeat);
  ImGui::RadioButton("once", &repeat, int(attnlab::SweepRepeat::once));
  SameLineIfFits(RadioButtonWidth("loop"));
  ImGui::RadioButton("loop", &repeat, int(attnlab::SweepRepeat::loop));
  SameLineIfFits(RadioButtonWidth("bounce"));
  ImGui::RadioButton("bounce", &repeat, int(attnlab::SweepRepeat::bounce));
  sweep.repeat = attnlab::SweepRepeat(repeat);
}

// What the fields describe, as the exporter's sweep: ten frames a second of the duration.
attnlab::Sweep FieldsSweep(const SweepState& sweep) {
  attnlab::Sweep s;
  s.param = attnlab::parse_cell_ref(sweep.param);
  s.from = sweep.from;
  s.to = sweep.to;
  s.frames = std::clamp(int(std::lround(sweep.seconds * 10.0f)) + 1, attnlab::kMinSweepFrames, attnlab::kMaxSweepFrames);
  return s;
}

// The sweep from From to To recorded as animated GIFs of every head's weights, by the shell beside
// the figure export (shell/sweep_export.h).
void RecordGif(AppState& state, SweepState& sweep) {
  const SweepRecorder& recorder = state.sweep_recorder;
  const bool busy = recorder.busy && recorder.busy();
  ImGui::SameLine();
  ImGui::BeginDisabled(busy || !recorder.record);
  const bool clicked = ImGui::Button(busy ? "Recording..." : "Record GIF");
  ImGui::EndDisabled();
  MarkLastItem(state.on_control, "sweep record");
  if (ImGui::IsItemHovered() && !state.sweep.Playing())
    ImGui::SetTooltip("Every head's weights from From to To, 10 frames a second, to %s", PicturesDir().c_str());
  if (!clicked) return;
  try {
    const attnlab::Sweep spec = FieldsSweep(sweep);
    attnlab::check_sweep(state.document.GetScenario(), spec);
    recorder.record(spec);
  } catch (const attnlab::ScenarioError& e) {
    sweep.error = e.what();
  }
}

void PlayButtons(AppState& state, SweepState& sweep) {
  const double now = ImGui::GetTime();
  SweepPlayer& player = state.sweep;
  // Resume only the sweep the fields still describe; after a change of number, Play starts anew.
  const bool resumable = player.Started() && player.Spec().param.text() == sweep.param &&
                         player.Spec().from == sweep.from && player.Spec().to == sweep.to;
  const char* label = player.Playing() ? "Pause" : resumable ? "Resume" : "Play";
  if (ImGui::Button(label, ImVec2(ImGui::GetFontSize() * 6.0f, 0))) {
    if (player.Playing()) {
      player.Pause(now);
    } else if (resumable) {
      player.Resume(now);
    } else {
      SweepSpec spec;
      try {
        spec.param = attnlab::parse_cell_ref(sweep.param);
        spec.from = sweep.from;
        spec.to = sweep.to;
        spec.seconds = sweep.seconds;
        spec.repeat = sweep.repeat;
        sweep.error = player.Start(state.document, spec, now);
      } catch (const attnlab::ScenarioError& e) {
        sweep.error = e.what();
      }
    }
  }
  MarkLastItem(state.on_control, "sweep play");
  // Not while it plays: the mouse rests on Pause, and the tip would cover the number being swept.
  if (ImGui::IsItemHovered() && !player.Playing())
    ImGui::SetTooltip("Each frame is a new version of the scenario; pausing keeps the value, and the whole sweep is "
                      "one undo step (Ctrl+Z).");
  RecordGif(state, sweep);
  if (player.Started()) {
    char value[160];
    if (attnlab::sweep_against_temperature(player.Spec().param))
      std::snprintf(value, sizeof value, "%s = %.4g  (T = %.4g)", player.Spec().param.text().c_str(), player.Value(),
                    1.0 / player.Value());
    else
      std::snprintf(value, sizeof value, "%s = %.4g", player.Spec().param.text().c_str(), player.Value());
    // Beside the buttons when it fits, else on a line of its own, wrapped: never cut at the edge.
    ImGui::SameLine();
    if (ImGui::CalcTextSize(value).x > ImGui::GetContentRegionAvail().x) ImGui::NewLine();
    ImGui::AlignTextToFramePadding();
    ImGui::TextWrapped("%s", value);
    MarkLastItem(state.on_control, "sweep value");
  }
  if (!sweep.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ErrorTextColor());
    ImGui::TextWrapped("%s", sweep.error.c_str());
    ImGui::PopStyleColor();
  }
}

// Which line is which head: a short stroke in each head's colour and its name, wrapping to the
// panel's width.
void HeadLegend(AppState& state, int heads) {
  const float fs = ImGui::GetFontSize();
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  for (int h = 0; h < heads; ++h) {
    char name[24];  // "head " and any int: no truncation for GCC's -Wformat-truncation to fear
    std::snprintf(name, sizeof name, "%s", attnlab::head_label(h).c_str());
    const float width = fs * 1.6f + ImGui::CalcTextSize(name).x;
    if (h > 0) {
      ImGui::SameLine(0.0f, fs);
      if (ImGui::GetCursorScreenPos().x + width > right) ImGui::NewLine();
    }
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float y = std::floor(p.y + ImGui::GetTextLineHeight() * 0.5f);
    ImGui::GetWindowDrawList()->AddLine(ImVec2(p.x, y), ImVec2(p.x + fs * 1.2f, y), HeadColor(h),
                                        std::max(2.0f, fs * 0.12f));
    ImGui::SetCursorScreenPos(ImVec2(p.x + fs * 1.6f, p.y));
    ImGui::TextUnformatted(name);
    MarkLastItem(state.on_control, ("sweep legend " + std::string(name)).c_str());
  }
}

// Mean entropy of each head (nats) against the swept value, or against T = 1/scale.
void EntropyPlot(AppState& state, const SweepPlayer& player) {
  const auto& samples = player.Samples();
  if (samples.size() < 2) {
    DimTextWrapped("Play a sweep to draw each head's mean entropy against the value.");
    return;
  }
  const bool temperature = attnlab::sweep_against_temperature(player.Spec().param);
  const std::string axis = temperature ? "T = 1/" + player.Spec().param.text() : player.Spec().param.text();
  const auto x_of = [&](double v) { return temperature ? 1.0 / v : v; };
  // The whole sweep's range, whatever part of it has been played yet.
  double x0 = x_of(player.Spec().from), x1 = x_of(player.Spec().to), y1 = 1e-9;
  if (x0 > x1) std::swap(x0, x1);
  for (const SweepSample& s : samples)
    for (double e : s.mean_entropy) y1 = std::max(y1, e);
  // The ceiling: uniform weights over all n keys have entropy ln n.
  const double uniform = std::log(double(std::max(1, state.document.GetScenario().n_z())));
  y1 = std::max(y1, uniform);
  ImGui::TextWrapped("Mean entropy of each head's weights (nats) against %s", axis.c_str());
  const float fs = ImGui::GetFontSize();
  // As tall as the panel has room for below it the legend and the note (a short Details slot still
  // shows the whole plot), 5 to 9 lines.
  const float room = ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing() * 3.5f;
  const ImVec2 size(std::max(ImGui::GetContentRegionAvail().x, fs * 8.0f), std::clamp(room, fs * 5.0f, fs * 9.0f));
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##entropy plot", size);
  MarkLastItem(state.on_control, "sweep entropy plot");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float left = p.x + fs * 2.5f, right = p.x + size.x - fs * 0.5f, top = p.y + fs * 0.5f, bottom = p.y + size.y - fs * 1.5f;
  dl->AddRect(ImVec2(left, top), ImVec2(right, bottom), ImGui::GetColorU32(ImGuiCol_Border));
  const auto X = [&](double x) { return float(left + (right - left) * (x1 > x0 ? (x - x0) / (x1 - x0) : 0.5)); };
  const auto Y = [&](double y) { return float(bottom - (bottom - top) * (y / y1)); };
  const std::size_t heads = samples.front().mean_entropy.size();
  for (std::size_t h = 0; h < heads; ++h) {
    std::vector<ImVec2> line;
    for (const SweepSample& s : samples)
      if (h < s.mean_entropy.size()) line.push_back(ImVec2(X(x_of(s.value)), Y(s.mean_entropy[h])));
    std::sort(line.begin(), line.end(), [](const ImVec2& a, const ImVec2& b) { return a.x < b.x; });
    dl->AddPolyline(line.data(), int(line.size()), HeadColor(int(h)), 0, std::max(2.0f, fs * 0.12f));
  }
  const float now_x = X(x_of(player.Value()));
  dl->AddLine(ImVec2(now_x, top), ImVec2(now_x, bottom), AccentColor(), 1.0f);
  const ImU32 dim = ImGui::GetColorU32(DimTextColor());
  dl->AddLine(ImVec2(left, Y(uniform)), ImVec2(right, Y(uniform)), dim, 1.0f);
  dl->AddText(ImVec2(right - ImGui::CalcTextSize("uniform: ln n").x - fs * 0.3f, Y(uniform) + 2.0f), dim, "uniform: ln n");
  char buf[32];
  const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
  std::snprintf(buf, sizeof buf, "%.3g", y1);
  dl->AddText(ImVec2(p.x, top - fs * 0.5f), ink, buf);
  dl->AddText(ImVec2(p.x + fs, bottom - fs * 0.5f), ink, "0");
  std::snprintf(buf, sizeof buf, "%.3g", x0);
  dl->AddText(ImVec2(left, bottom + fs * 0.2f), ink, buf);
  std::snprintf(buf, sizeof buf, "%.3g", x1);
  dl->AddText(ImVec2(right - ImGui::CalcTextSize(buf).x, bottom + fs * 0.2f), ink, buf);
  HeadLegend(state, int(heads));
  DimTextWrapped(temperature ? "Small T (a large scale) sharpens each head's weights (entropy near 0); large T "
                    "flattens them towards uniform (entropy ln n)."
                  : "Each line is one head, in its colour.");
}

class SweepPanel final : public PanelContents, public Accepts<SweepRequest> {
 public:
  // From elsewhere (the scale's "Sweep" button, a cell's context menu): that number, around its
  // current value.
  void Take(AppState& state, const SweepRequest& request) override {
    std::snprintf(sweep_.param, sizeof sweep_.param, "%s", request.param.c_str());
    state.sweep.Pause(ImGui::GetTime());
    DefaultRange(sweep_, state.document.GetScenario());
    ranged_ = true;
  }
  void Draw(AppState& state) override {
    if (!ranged_) DefaultRange(sweep_, state.document.GetScenario());
    ranged_ = true;
    PlayButtons(state, sweep_);  // first: the one thing to reach in a short lecture-mode panel
    Controls(state, sweep_);
    ImGui::Separator();
    EntropyPlot(state, state.sweep);
  }

 private:
  SweepState sweep_;
  bool ranged_ = false;  // the first frame sets From and To around the current value
};

}  // namespace

std::unique_ptr<PanelContents> Make() { return std::make_unique<SweepPanel>(); }

}  // namespace attnlab::app::panel_sweep
