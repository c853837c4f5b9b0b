// view/ui_scale.h: zoom steps, the lecture scale fitted to the window, and Ctrl+0.
#include <gtest/gtest.h>

#include "view/ui_scale.h"
#include "view/ui_state.h"

namespace test_ui_scale {

namespace {

using namespace attnlab::app;

TEST(UiScale, LectureScaleFitsTheWindowHeight) {
  EXPECT_EQ(FitLectureScale(768), 1.5f);
  EXPECT_EQ(FitLectureScale(800), 1.5f);
  EXPECT_EQ(FitLectureScale(1080), 2.0f);
  EXPECT_EQ(FitLectureScale(1440), 2.5f);
  EXPECT_EQ(FitLectureScale(2160), 2.5f);  // capped
  EXPECT_EQ(FitLectureScale(400), 1.25f);  // never below
}

TEST(UiScale, ZoomOutOfLectureModeLectureScaleInIt) {
  UiState ui;
  EXPECT_EQ(UiScale(ui, 800), 1.0f);
  Zoom(ui, 800, +1);
  EXPECT_EQ(ui.zoom, 1.1f);
  Zoom(ui, 800, +1);
  EXPECT_EQ(UiScale(ui, 800), 1.25f);
  ui.lecture_mode = true;
  EXPECT_EQ(UiScale(ui, 1080), 2.0f);  // fitted
  Zoom(ui, 1080, -1);                  // from the fitted scale, one step down
  EXPECT_EQ(ui.lecture_scale, 1.75f);
  EXPECT_EQ(ui.zoom, 1.25f);           // the zoom out of lecture mode is kept
  Zoom(ui, 1080, 0);                   // Ctrl+0: fit again
  EXPECT_EQ(UiScale(ui, 1440), 2.5f);
  ui.lecture_mode = false;
  Zoom(ui, 800, 0);
  EXPECT_EQ(UiScale(ui, 800), 1.0f);
}

TEST(UiScale, PresentingUsesLectureSizes) {
  UiState ui;
  ui.zoom = 1.1f;
  ui.presenting = true;  // out of lecture mode: the stage still gets the lecture scale
  EXPECT_EQ(UiScale(ui, 800), 1.5f);
  EXPECT_EQ(UiScale(ui, 1080), 2.0f);
  Zoom(ui, 1080, +1);  // the presenter's zoom is the lecture scale's
  EXPECT_EQ(ui.lecture_scale, 2.5f);
  EXPECT_EQ(ui.zoom, 1.1f);
  ui.presenting = false;  // back to the user's own zoom
  EXPECT_EQ(UiScale(ui, 1080), 1.1f);
}

TEST(UiScale, StepsStopAtTheEnds) {
  EXPECT_EQ(StepZoom(3.0f, +1), 3.0f);
  EXPECT_EQ(StepZoom(0.75f, -1), 0.75f);
  EXPECT_EQ(StepZoom(1.3f, -1), 1.25f);  // between steps: the nearest in that direction
  EXPECT_EQ(StepZoom(1.3f, +1), 1.5f);
}

}  // namespace

}  // namespace test_ui_scale
