#include "session/user_dirs.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace attnlab::app {
namespace {

namespace fs = std::filesystem;

const char* Env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// $xdg_var/attnlab, or $HOME/fallback/attnlab; created so callers can write straight away.
std::string XdgDir(const char* xdg_var, const char* home_fallback) {
  fs::path dir;
  if (const char* xdg = Env(xdg_var))
    dir = fs::path(xdg) / "attnlab";
  else if (const char* home = Env("HOME"))
    dir = fs::path(home) / home_fallback / "attnlab";
  else
    return {};
  std::error_code ec;
  fs::create_directories(dir, ec);
  return ec ? std::string() : dir.string();
}

}  // namespace

std::string ConfigDir() { return XdgDir("XDG_CONFIG_HOME", ".config"); }
std::string StateDir() { return XdgDir("XDG_STATE_HOME", ".local/state"); }

std::string HomeDir() {
  const char* home = Env("HOME");
  return home ? home : ".";
}

std::string PicturesDir() {
  if (const char* pictures = Env("XDG_PICTURES_DIR")) return pictures;
  std::error_code ec;
  const fs::path p = fs::path(HomeDir()) / "Pictures";
  return fs::is_directory(p, ec) ? p.string() : HomeDir();
}

}  // namespace attnlab::app
