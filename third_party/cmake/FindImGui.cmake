# FindImGui: Dear ImGui from Debian's libimgui-dev (static libimgui.a, which also holds the
# platform and renderer backends). Defines ImGui::ImGui. Prefers pkg-config, falls back to a search.
include_guard(GLOBAL)  # targets below are GLOBAL, so one definition serves every directory
include(FindPackageHandleStandardArgs)

find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_IMGUI QUIET imgui)
endif()

find_path(ImGui_INCLUDE_DIR imgui.h HINTS ${PC_IMGUI_INCLUDE_DIRS} PATH_SUFFIXES imgui)
find_path(ImGui_BACKENDS_DIR imgui_impl_glfw.h
  HINTS ${ImGui_INCLUDE_DIR}/backends ${PC_IMGUI_INCLUDE_DIRS}
  PATH_SUFFIXES imgui/backends)
find_library(ImGui_LIBRARY NAMES imgui HINTS ${PC_IMGUI_LIBRARY_DIRS})
set(ImGui_VERSION ${PC_IMGUI_VERSION})

find_package_handle_standard_args(ImGui
  REQUIRED_VARS ImGui_LIBRARY ImGui_INCLUDE_DIR ImGui_BACKENDS_DIR
  VERSION_VAR ImGui_VERSION)

if(ImGui_FOUND AND NOT TARGET ImGui::ImGui)
  # Debian builds imgui against the system stb (its pkg-config file requires `stb`).
  find_package(Stb REQUIRED)
  add_library(ImGui::ImGui UNKNOWN IMPORTED GLOBAL)
  set_target_properties(ImGui::ImGui PROPERTIES
    IMPORTED_LOCATION ${ImGui_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES "${ImGui_INCLUDE_DIR};${ImGui_BACKENDS_DIR}"
    INTERFACE_LINK_LIBRARIES "Stb::Stb;m")
endif()
mark_as_advanced(ImGui_INCLUDE_DIR ImGui_BACKENDS_DIR ImGui_LIBRARY)
