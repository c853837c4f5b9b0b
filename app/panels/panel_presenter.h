#pragma once
/// Presenter mode (View > Present, key P): the lesson's steps one at a time, large, each with its
/// title, the teacher's caption, an explanation with the live numbers, the formula in the layout's
/// notation and the step's heatmaps; a predict step shows its cells as "?" until revealed (R).
/// The lesson is the scenario's view.lesson, else the default for its stages (attnlab/lesson.h).
/// The Inputs beside it stay editable: every step updates live.
#include <memory>

#include "panels/panel_contents.h"

namespace attnlab::app::panel_presenter {

std::unique_ptr<PanelContents> Make();

}  // namespace attnlab::app::panel_presenter
