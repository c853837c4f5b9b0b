# FindStb: Debian's libstb-dev (headers in /usr/include/stb, implementations inside libstb.so,
# so nobody defines STB_*_IMPLEMENTATION). Defines Stb::Stb.
include_guard(GLOBAL)  # targets below are GLOBAL, so one definition serves every directory
include(FindPackageHandleStandardArgs)

find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_STB QUIET stb)
endif()

find_path(Stb_INCLUDE_DIR stb_image_write.h HINTS ${PC_STB_INCLUDE_DIRS} PATH_SUFFIXES stb)
find_library(Stb_LIBRARY NAMES stb HINTS ${PC_STB_LIBRARY_DIRS})

find_package_handle_standard_args(Stb REQUIRED_VARS Stb_LIBRARY Stb_INCLUDE_DIR)

if(Stb_FOUND AND NOT TARGET Stb::Stb)
  add_library(Stb::Stb UNKNOWN IMPORTED GLOBAL)
  set_target_properties(Stb::Stb PROPERTIES
    IMPORTED_LOCATION ${Stb_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${Stb_INCLUDE_DIR})
endif()
mark_as_advanced(Stb_INCLUDE_DIR Stb_LIBRARY)
