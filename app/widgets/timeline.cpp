#include "widgets/timeline.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace attnlab::app {

void Timeline::Go(int to, const TimelineSpec& spec) { step_ = std::clamp(to, spec.first, std::max(spec.first, spec.last)); }

// Left and Right step while the panel is focused or under the mouse, not while typing.
void Timeline::Keys(const TimelineSpec& spec) {
  if (!spec.keys || ImGui::GetIO().WantTextInput) return;
  const bool here = ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) ||
                    ImGui::IsWindowHovered(ImGuiHoveredFlags_RootAndChildWindows);
  if (!here) return;
  if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT)) Go(step_ + 1, spec);
  if (ImGui::IsKeyPressed(GLFW_KEY_LEFT)) Go(step_ - 1, spec);
}

void Timeline::Advance(const TimelineSpec& spec) {
  if (!playing_ || ImGui::GetTime() < next_at_) return;
  next_at_ = ImGui::GetTime() + spec.seconds;
  if (step_ >= spec.last) playing_ = false;
  else Go(step_ + 1, spec);
}

bool Timeline::Draw(const TimelineSpec& spec, const ControlMarks& marks) {
  Go(step_, spec);
  ImGui::PushID(spec.id);
  if (ImGui::ArrowButton("##previous", ImGuiDir_Left)) Go(step_ - 1, spec);
  MarkLastItem(marks, (spec.marks + "previous").c_str());
  ImGui::SameLine();
  if (ImGui::Button(playing_ ? "Pause###play" : "Play###play")) {
    playing_ = !playing_;
    if (playing_ && step_ >= spec.last) step_ = spec.first;
    next_at_ = ImGui::GetTime() + spec.seconds;
  }
  MarkLastItem(marks, (spec.marks + "play").c_str());
  ImGui::SameLine();
  if (ImGui::ArrowButton("##next", ImGuiDir_Right)) Go(step_ + 1, spec);
  MarkLastItem(marks, (spec.marks + "next").c_str());
  ImGui::SameLine();
  const float fs = ImGui::GetFontSize();
  // The step's label beside the slider, not in it, where the handle passed over it and hid it.
  char label[128];
  std::snprintf(label, sizeof label, spec.format.c_str(), step_);
  const float label_w = ImGui::CalcTextSize(label).x + ImGui::GetStyle().ItemSpacing.x;
  ImGui::SetNextItemWidth(std::max(fs * 8.0f, ImGui::GetContentRegionAvail().x - spec.room_after - label_w));
  int shown = step_;
  if (ImGui::SliderInt("##step", &shown, spec.first, std::max(spec.first, spec.last), ""))
    Go(shown, spec);
  MarkLastItem(marks, (spec.marks + "slider").c_str());
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  MarkLastItem(marks, (spec.marks + "slider label").c_str());
  ImGui::PopID();
  Keys(spec);
  Advance(spec);
  return playing_;
}

}  // namespace attnlab::app
