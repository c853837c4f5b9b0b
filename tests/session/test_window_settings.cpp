// session/window_settings.h: what the window remembers survives a round trip, and a damaged or
// hand-edited file never stops the window: bad values are dropped one by one, the rest is kept.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "session_test_support.h"
#include "session/window_settings.h"

namespace test_window_settings {

namespace {

using attnlab::app::LoadWindowSettings;
using attnlab::app::SaveWindowSettings;
using attnlab::app::WindowSettings;
namespace fs = std::filesystem;

void Write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

TEST(WindowSettings, RoundTrip) {
  const fs::path dir = attnlab::app::testing::MakeTempDir();
  WindowSettings s;
  s.zoom = 1.25f;
  s.lecture_scale = 2.0f;
  s.shares = {{"normal/left", 0.3f}, {"compact/left/Heads", 0.2f}};
  s.open_panels = {{"Mask", false}, {"Help", true}};
  std::string error;
  const fs::path path = dir / "sub" / "settings.json";  // the directory is made
  ASSERT_TRUE(SaveWindowSettings(path.string(), s, &error)) << error;
  EXPECT_EQ(LoadWindowSettings(path.string()), s);
  fs::remove_all(dir);
}

TEST(WindowSettings, MissingFileGivesTheDefaults) {
  EXPECT_EQ(LoadWindowSettings("/nonexistent/attnlab/settings.json"), WindowSettings());
  EXPECT_EQ(LoadWindowSettings(""), WindowSettings());
}

TEST(WindowSettings, BadValuesAreDroppedOneByOne) {
  const fs::path dir = attnlab::app::testing::MakeTempDir();
  const fs::path path = dir / "settings.json";
  Write(path, R"({"zoom": 99, "lecture_scale": 1.5, "shares": {"normal/left": -1, "normal/right": 0.4,
                 "x": "wide"}, "open_panels": {"Mask": "yes", "Help": false}})");
  testing::internal::CaptureStderr();
  const WindowSettings s = LoadWindowSettings(path.string());
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(s.zoom, 1.0f);
  EXPECT_EQ(s.lecture_scale, 1.5f);
  EXPECT_EQ(s.shares, (std::map<std::string, float>{{"normal/right", 0.4f}}));
  EXPECT_EQ(s.open_panels, (std::map<std::string, bool>{{"Help", false}}));
  for (const char* field : {"zoom:", "shares.normal/left:", "shares.x:", "open_panels.Mask:"})
    EXPECT_NE(err.find(field), std::string::npos) << field << " not named in: " << err;
  fs::remove_all(dir);
}

TEST(WindowSettings, NotJsonIsIgnoredWhole) {
  const fs::path dir = attnlab::app::testing::MakeTempDir();
  for (const char* text : {"{\"zoom\": ", "[1, 2]", "\xff\xfe"}) {
    Write(dir / "settings.json", text);
    testing::internal::CaptureStderr();
    EXPECT_EQ(LoadWindowSettings((dir / "settings.json").string()), WindowSettings()) << text;
    EXPECT_NE(testing::internal::GetCapturedStderr().find("ignoring the file"), std::string::npos);
  }
  fs::remove_all(dir);
}

}  // namespace

}  // namespace test_window_settings
