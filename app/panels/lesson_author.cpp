#include "panels/lesson_author.h"

#include <imgui.h>

#include <algorithm>
#include <utility>

#include "attnlab/numbering.h"
#include "widgets/control_marks.h"

namespace attnlab::app {
namespace {

namespace lesson = attnlab::lesson;

constexpr const char* kLessonSource = "lesson";

// The lesson, edited, back into the scenario: one undo step.
void Commit(AppState& state, const lesson::Lesson& edited) {
  state.document.ApplyEdit(kLessonSource, [&edited](attnlab::Scenario& s) { lesson::set_lesson(s, edited); });
}

int ResizeCallback(ImGuiInputTextCallbackData* data) {
  auto* text = static_cast<std::string*>(data->UserData);
  text->resize(std::size_t(data->BufTextLen));
  data->Buf = text->data();
  return 0;
}

bool InputMultiline(const char* label, std::string* text, float height) {
  if (text->capacity() < 64) text->reserve(64);
  return ImGui::InputTextMultiline(label, text->data(), text->capacity() + 1, ImVec2(-1, height),
                                   ImGuiInputTextFlags_CallbackResize, ResizeCallback, text);
}

}  // namespace

void LessonAuthor::LoadCaption(const lesson::Step& step, int index, std::uint64_t version) {
  if (caption_step_ == index && caption_version_ == version) return;
  caption_ = step.caption;
  caption_step_ = index;
  caption_version_ = version;
}

void LessonAuthor::DrawStepControls(AppState& state, const lesson::Lesson& current, int index) {
  lesson::Lesson edited = current;
  lesson::Step& step = edited.steps[std::size_t(index)];
  if (!ImGui::IsAnyItemActive()) LoadCaption(step, index, state.document.Version());
  ImGui::TextUnformatted("Caption (shown above the explanation)");
  InputMultiline("##caption", &caption_, ImGui::GetTextLineHeight() * 3.5f);
  if (ImGui::IsItemDeactivatedAfterEdit()) {
    step.caption = caption_.substr(0, 2000);
    Commit(state, edited);
  }
  if (ImGui::Checkbox("Ask the class to predict this step first", &step.predict)) Commit(state, edited);
  const int heads = state.document.HeadCount();
  if (attnlab::per_head(step.kind) && heads > 1) {
    const std::string preview =
        step.head < 0 ? "the selected head" : attnlab::head_label(step.head);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
    if (ImGui::BeginCombo("Head", preview.c_str())) {
      for (int h = -1; h < heads; ++h)
        if (ImGui::Selectable(h < 0 ? "the selected head" : attnlab::head_label(h).c_str(),
                              h == step.head)) {
          step.head = h;
          Commit(state, edited);
        }
      ImGui::EndCombo();
    }
  }
  ImGui::Checkbox("Click cells to highlight them", &highlighting_);
  if (!step.highlight.empty()) {
    ImGui::SameLine();
    if (ImGui::SmallButton("Clear highlights")) {
      step.highlight.clear();
      Commit(state, edited);
    }
  }
}

void LessonAuthor::DrawStepList(AppState& state, const lesson::Lesson& current, int index) {
  lesson::Lesson edited = current;
  auto& steps = edited.steps;
  const std::size_t i = std::size_t(index);
  if (ImGui::Button("Earlier") && i > 0) {
    std::swap(steps[i], steps[i - 1]);
    Commit(state, edited);
    state.ui.presenter_step = index - 1;
  }
  ImGui::SameLine();
  if (ImGui::Button("Later") && i + 1 < steps.size()) {
    std::swap(steps[i], steps[i + 1]);
    Commit(state, edited);
    state.ui.presenter_step = index + 1;
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(steps.size() <= 1);
  if (ImGui::Button("Remove this step")) {
    steps.erase(steps.begin() + index);
    Commit(state, edited);
  }
  ImGui::EndDisabled();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  const std::vector<StageId> kinds = attnlab::lesson_stages();  // the format's order
  std::vector<const char*> names;
  for (StageId k : kinds) names.push_back(attnlab::stage_name(k));
  ImGui::Combo("##kind", &new_kind_, names.data(), int(names.size()));
  ImGui::SameLine();
  if (ImGui::Button("Add after this step") && steps.size() < 200) {
    lesson::Step added;
    added.kind = kinds[std::size_t(new_kind_)];
    steps.insert(steps.begin() + index + 1, std::move(added));
    Commit(state, edited);
    state.ui.presenter_step = index + 1;
  }
  if (ImGui::Button("Back to the default lesson"))
    state.document.ApplyEdit(kLessonSource, [](attnlab::Scenario& s) { lesson::clear_lesson(s); });
}

void LessonAuthor::Draw(AppState& state, const lesson::Lesson& lesson, int index) {
  const bool open = ImGui::CollapsingHeader("Author this lesson (saved with the file)");
  MarkLastItem(state.on_control, "lesson author");
  if (!open) {
    highlighting_ = false;
    return;
  }
  DrawStepControls(state, lesson, index);
  ImGui::Spacing();
  DrawStepList(state, lesson, index);
}

void LessonAuthor::ToggleHighlight(AppState& state, lesson::Lesson edited, int index, int row, int col) {
  auto& cells = edited.steps[std::size_t(index)].highlight;
  const auto it = std::find_if(cells.begin(), cells.end(),
                               [row, col](const lesson::Cell& c) { return c.row == row && c.col == col; });
  if (it == cells.end())
    cells.push_back({row, col});
  else
    cells.erase(it);
  Commit(state, edited);
}

}  // namespace attnlab::app
