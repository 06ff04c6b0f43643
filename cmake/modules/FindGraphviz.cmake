# FindGraphviz: Graphviz's cgraph (graphs, on its cdt containers) and gvc (layout and rendering) libraries through
# pkg-config. Defines the imported targets Graphviz::cgraph and Graphviz::gvc and
# Graphviz_FOUND / Graphviz_VERSION. Installed with Moirai's CMake package, whose static
# post-processor links them.
include(FindPackageHandleStandardArgs)
find_package(PkgConfig QUIET)
set(Graphviz_VERSION "")
if(PkgConfig_FOUND)
  pkg_check_modules(PC_Graphviz_cgraph QUIET libcgraph)
  pkg_check_modules(PC_Graphviz_gvc QUIET libgvc)
  set(Graphviz_VERSION ${PC_Graphviz_gvc_VERSION})
endif()
find_path(Graphviz_INCLUDE_DIR graphviz/gvc.h HINTS ${PC_Graphviz_gvc_INCLUDEDIR})
find_library(Graphviz_cgraph_LIBRARY NAMES cgraph HINTS ${PC_Graphviz_cgraph_LIBRARY_DIRS})
find_library(Graphviz_gvc_LIBRARY NAMES gvc HINTS ${PC_Graphviz_gvc_LIBRARY_DIRS})
find_library(Graphviz_cdt_LIBRARY NAMES cdt HINTS ${PC_Graphviz_cgraph_LIBRARY_DIRS})
find_package_handle_standard_args(Graphviz
  REQUIRED_VARS Graphviz_gvc_LIBRARY Graphviz_cgraph_LIBRARY Graphviz_cdt_LIBRARY Graphviz_INCLUDE_DIR
  VERSION_VAR Graphviz_VERSION)
if(Graphviz_FOUND)
  # Graphviz's headers are included as <graphviz/gvc.h>; its own headers include their
  # siblings without the prefix, so both directories are on the path.
  set(Graphviz_INCLUDE_DIRS "${Graphviz_INCLUDE_DIR}" "${Graphviz_INCLUDE_DIR}/graphviz")
  if(NOT TARGET Graphviz::cgraph)
    add_library(Graphviz::cgraph UNKNOWN IMPORTED)
    set_target_properties(Graphviz::cgraph PROPERTIES IMPORTED_LOCATION "${Graphviz_cgraph_LIBRARY}"
                          INTERFACE_INCLUDE_DIRECTORIES "${Graphviz_INCLUDE_DIRS}"
                          INTERFACE_LINK_LIBRARIES "${Graphviz_cdt_LIBRARY}")
  endif()
  if(NOT TARGET Graphviz::gvc)
    add_library(Graphviz::gvc UNKNOWN IMPORTED)
    set_target_properties(Graphviz::gvc PROPERTIES IMPORTED_LOCATION "${Graphviz_gvc_LIBRARY}"
                          INTERFACE_INCLUDE_DIRECTORIES "${Graphviz_INCLUDE_DIRS}"
                          INTERFACE_LINK_LIBRARIES Graphviz::cgraph)
  endif()
endif()
mark_as_advanced(Graphviz_INCLUDE_DIR Graphviz_cgraph_LIBRARY Graphviz_gvc_LIBRARY Graphviz_cdt_LIBRARY)
