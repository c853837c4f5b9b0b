#pragma once
/// Authoring a lesson in the presenter: the step's caption, whether it asks for a prediction,
/// its head, the cells it highlights (click them), and adding, removing and moving steps. Every
/// change writes the lesson into the scenario (view.lesson) as one undoable edit, so it is saved
/// with the file.
#include <cstdint>
#include <string>

#include "attnlab/lesson.h"
#include "panels/app_state.h"

namespace attnlab::app {

class LessonAuthor {
 public:
  /// The controls for step `index` of `lesson` (the one presented), in a collapsing section.
  void Draw(AppState& state, const attnlab::lesson::Lesson& lesson, int index);
  /// Clicks on the step's cells toggle their highlight.
  bool Highlighting() const { return highlighting_; }
  void ToggleHighlight(AppState& state, attnlab::lesson::Lesson lesson, int index, int row, int col);

 private:
  void LoadCaption(const attnlab::lesson::Step& step, int index, std::uint64_t version);
  void DrawStepControls(AppState& state, const attnlab::lesson::Lesson& lesson, int index);
  void DrawStepList(AppState& state, const attnlab::lesson::Lesson& lesson, int index);

  std::string caption_;  ///< being typed; written back when the field loses focus
  int caption_step_ = -1;
  std::uint64_t caption_version_ = 0;
  bool highlighting_ = false;
  int new_kind_ = 0;  ///< the stage "Add a step" adds
};

}  // namespace attnlab::app
