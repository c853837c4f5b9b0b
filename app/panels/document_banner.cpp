#include "panels/document_banner.h"

#include <imgui.h>

#include <algorithm>
#include <string>

#include "attnlab/numbering.h"
#include "session/model_lab.h"
#include "view/label_fit.h"
#include "widgets/control_marks.h"
#include "widgets/theme.h"

namespace attnlab::app {
namespace {

const models::HfModel* OpenModel(const AppState& state) {
  return state.models && !state.models->Loading() ? state.models->Model() : nullptr;
}

// The layer the button opens: the grid's last pointed at, within the model's layers.
int LayerToOpen(const AppState& state, const ModelLab& lab) {
  const ModelRun* run = lab.Run();
  const int layers = run ? int(run->run->layers.size()) : 0;
  return std::clamp(state.ui.model_layer, 0, std::max(0, layers - 1));
}

std::string DocumentName(const AppState& state) {
  const attnlab::Scenario& s = state.document.GetScenario();
  return s.title.empty() ? state.document.name : s.title;
}

}  // namespace

float DocumentBannerHeight(const AppState& state) {
  return OpenModel(state) ? ImGui::GetFrameHeightWithSpacing() : 0.0f;
}

void DocumentBanner(AppState& state, const char* panel) {
  const models::HfModel* model = OpenModel(state);
  if (!model) return;
  ModelLab& lab = *state.models;
  const TextWidthFn width = [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; };
  const std::string mark = std::string("document banner ") + panel;
  ImGui::AlignTextToFramePadding();
  if (lab.DocumentLayer() >= 0) {  // the model's own layer: named, as the grid outlines it
    const std::string name =
        model->name() + " \xC2\xB7 " + attnlab::layer_label(lab.DocumentLayer());
    ImGui::PushFont(GetFonts().bold);
    ImGui::TextUnformatted(ElideEnd(name, ImGui::GetContentRegionAvail().x, width).c_str());
    ImGui::PopFont();
    MarkLastItem(state.on_control, (mark + ": " + name).c_str());
    return;
  }
  const bool can_open = lab.Run() && !lab.RunStale();
  const int layer = LayerToOpen(state, lab);
  const std::string button = "Open " + attnlab::layer_label(layer);
  const float button_w = can_open ? ImGui::CalcTextSize(button.c_str()).x +
                                        ImGui::GetStyle().FramePadding.x * 2.0f +
                                        ImGui::GetStyle().ItemSpacing.x
                                  : 0.0f;
  // Whose it is not first, then the document's name, shortened at its end where room is short.
  const std::string prefix = "Not " + model->name() + "'s: \xE2\x80\x9C", suffix = "\xE2\x80\x9D";
  // A slot too narrow for any of the name says only whose it is not, shortened to leave the button
  // its room.
  const float avail = std::max(0.0f, ImGui::GetContentRegionAvail().x - button_w);
  const float room = avail - width(prefix) - width(suffix);
  const std::string text = room >= width("Va\xE2\x80\xA6")
                               ? prefix + ElideEnd(DocumentName(state), room, width) + suffix
                               : ElideEnd("Not " + model->name() + "'s", avail, width);
  ImGui::PushStyleColor(ImGuiCol_Text, WarningTextColor());
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopStyleColor();
  MarkLastItem(state.on_control, (mark + ": not the model's").c_str());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "This panel shows the document, not %s: click a map in the Model grid, or the button, to "
        "make one of its layers the document.",
        model->name().c_str());
  if (!can_open) return;
  ImGui::SameLine();
  ImGui::PushID(panel);
  if (ImGui::Button(button.c_str())) {
    lab.OpenLayer(layer, state.ui.selected_head);
  }
  ImGui::PopID();
  MarkLastItem(
      state.on_control,
      (std::string("open model layer ") + panel + ": " + attnlab::index_text(layer)).c_str());
}

void LocateModelButton(AppState& state, const char* id) {
  if (ImGui::Button("Locate" "\xE2\x80\xA6")) state.locate_model();
  MarkLastItem(state.on_control, id);
  ImGui::SameLine();
}

}  // namespace attnlab::app
