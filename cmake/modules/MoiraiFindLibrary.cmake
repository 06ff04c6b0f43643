# moirai_find_library(<Package> <pkg-config module> <header> <library> <imported target>): the
# body of a Find module for one C library, found where pkg-config says (or on the default
# paths). Sets <Package>_FOUND and <Package>_VERSION and defines the imported target. The Find
# modules of this folder use it, in Moirai's build and in its installed CMake package alike.
include(FindPackageHandleStandardArgs)
macro(moirai_find_library package module header library target)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(PC_${package} QUIET ${module})
  endif()
  find_path(${package}_INCLUDE_DIR ${header} HINTS ${PC_${package}_INCLUDE_DIRS})
  find_library(${package}_LIBRARY NAMES ${library} HINTS ${PC_${package}_LIBRARY_DIRS})
  set(${package}_VERSION ${PC_${package}_VERSION})
  find_package_handle_standard_args(${package} REQUIRED_VARS ${package}_LIBRARY ${package}_INCLUDE_DIR
                                    VERSION_VAR ${package}_VERSION)
  if(${package}_FOUND AND NOT TARGET ${target})
    add_library(${target} UNKNOWN IMPORTED)
    set_target_properties(${target} PROPERTIES IMPORTED_LOCATION "${${package}_LIBRARY}"
                          INTERFACE_INCLUDE_DIRECTORIES "${${package}_INCLUDE_DIR}")
  endif()
  mark_as_advanced(${package}_INCLUDE_DIR ${package}_LIBRARY)
endmacro()
