# FindOpenBLAS: Debian's OpenBLAS (libopenblas-dev, any of its pthread/openmp/serial variants).
# Defines OpenBLAS_FOUND and the imported target OpenBLAS::OpenBLAS (library + cblas.h).
include_guard(GLOBAL)
include(FindPackageHandleStandardArgs)

find_library(OpenBLAS_LIBRARY NAMES openblas)
find_path(OpenBLAS_INCLUDE_DIR cblas.h
  PATH_SUFFIXES openblas-pthread openblas-openmp openblas-serial openblas
  HINTS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE})
find_package_handle_standard_args(OpenBLAS REQUIRED_VARS OpenBLAS_LIBRARY OpenBLAS_INCLUDE_DIR)

if(OpenBLAS_FOUND AND NOT TARGET OpenBLAS::OpenBLAS)
  add_library(OpenBLAS::OpenBLAS UNKNOWN IMPORTED)
  set_target_properties(OpenBLAS::OpenBLAS PROPERTIES
    IMPORTED_LOCATION "${OpenBLAS_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${OpenBLAS_INCLUDE_DIR}")
endif()
mark_as_advanced(OpenBLAS_LIBRARY OpenBLAS_INCLUDE_DIR)
