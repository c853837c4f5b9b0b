# FindGLFW: GLFW 3 (Debian's libglfw3-dev). Uses its CMake package when present, pkg-config
# otherwise. Defines GLFW::GLFW.
include_guard(GLOBAL)  # targets below are GLOBAL, so one definition serves every directory
include(FindPackageHandleStandardArgs)

find_package(glfw3 3.3 QUIET CONFIG)
if(TARGET glfw)
  set(GLFW_VERSION ${glfw3_VERSION})
  find_package_handle_standard_args(GLFW REQUIRED_VARS glfw3_DIR VERSION_VAR GLFW_VERSION)
  if(NOT TARGET GLFW::GLFW)
    add_library(GLFW::GLFW INTERFACE IMPORTED GLOBAL)
    set_target_properties(GLFW::GLFW PROPERTIES INTERFACE_LINK_LIBRARIES glfw)
  endif()
  return()
endif()

find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_GLFW QUIET glfw3)
endif()
find_path(GLFW_INCLUDE_DIR GLFW/glfw3.h HINTS ${PC_GLFW_INCLUDE_DIRS})
find_library(GLFW_LIBRARY NAMES glfw glfw3 HINTS ${PC_GLFW_LIBRARY_DIRS})
set(GLFW_VERSION ${PC_GLFW_VERSION})
find_package_handle_standard_args(GLFW REQUIRED_VARS GLFW_LIBRARY GLFW_INCLUDE_DIR
  VERSION_VAR GLFW_VERSION)
if(GLFW_FOUND AND NOT TARGET GLFW::GLFW)
  add_library(GLFW::GLFW UNKNOWN IMPORTED GLOBAL)
  set_target_properties(GLFW::GLFW PROPERTIES
    IMPORTED_LOCATION ${GLFW_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${GLFW_INCLUDE_DIR})
endif()
mark_as_advanced(GLFW_INCLUDE_DIR GLFW_LIBRARY)
