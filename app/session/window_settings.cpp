#include "session/window_settings.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>

#include "attnlab/scenario_io.h"

namespace attnlab::app {
namespace {

constexpr std::size_t kMaxSettingsBytes = 1 << 20;  // the window settings, a few KB

void Ignore(const std::string& path, const std::string& what) {
  std::fprintf(stderr, "attnlab: %s: ignoring %s\n", path.c_str(), what.c_str());
}

// A number within [lo, hi] at `key`, else `fallback` (and a line on stderr when it was there).
float Number(const nlohmann::json& doc, const char* key, float lo, float hi, float fallback,
             const std::string& path) {
  if (!doc.contains(key)) return fallback;
  const nlohmann::json& v = doc[key];
  if (v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= lo && v.get<double>() <= hi)
    return v.get<float>();
  Ignore(path, std::string(key) + ": expected a number from " + std::to_string(lo).substr(0, 4) +
                   " to " + std::to_string(hi).substr(0, 4));
  return fallback;
}

void ReadShares(const nlohmann::json& doc, const std::string& path, WindowSettings* s) {
  if (!doc.contains("shares")) return;
  if (!doc["shares"].is_object()) return Ignore(path, "shares: expected an object");
  for (const auto& [key, v] : doc["shares"].items()) {
    if (v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0 && v.get<double>() <= 100)
      s->shares[key] = v.get<float>();
    else
      Ignore(path, "shares." + key + ": expected a number above 0");
  }
}

void ReadOpenPanels(const nlohmann::json& doc, const std::string& path, WindowSettings* s) {
  if (!doc.contains("open_panels")) return;
  if (!doc["open_panels"].is_object()) return Ignore(path, "open_panels: expected an object");
  for (const auto& [name, v] : doc["open_panels"].items()) {
    if (v.is_boolean())
      s->open_panels[name] = v.get<bool>();
    else
      Ignore(path, "open_panels." + name + ": expected true or false");
  }
}

}  // namespace

WindowSettings LoadWindowSettings(const std::string& path) {
  WindowSettings s;
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) return s;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(attnlab::read_text_file(path, kMaxSettingsBytes));
  } catch (const std::exception& e) {
    Ignore(path, std::string("the file: ") + e.what());
    return s;
  }
  if (!doc.is_object()) {
    Ignore(path, "the file: expected a JSON object");
    return s;
  }
  s.zoom = Number(doc, "zoom", 0.5f, 4.0f, s.zoom, path);
  s.lecture_scale = Number(doc, "lecture_scale", 0.0f, 4.0f, s.lecture_scale, path);
  ReadShares(doc, path, &s);
  ReadOpenPanels(doc, path, &s);
  return s;
}

bool SaveWindowSettings(const std::string& path, const WindowSettings& s, std::string* error) {
  nlohmann::json doc = {{"zoom", s.zoom}, {"lecture_scale", s.lecture_scale}};
  doc["shares"] = nlohmann::json::object();
  for (const auto& [key, share] : s.shares) doc["shares"][key] = share;
  doc["open_panels"] = nlohmann::json::object();
  for (const auto& [name, open] : s.open_panels) doc["open_panels"][name] = open;
  try {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    attnlab::write_file_atomically(path, doc.dump(1) + "\n");
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
  return true;
}

}  // namespace attnlab::app
