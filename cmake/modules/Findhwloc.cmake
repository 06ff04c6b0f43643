# Findhwloc: the hwloc library (topology and thread binding). Defines the imported target
# hwloc::hwloc and hwloc_FOUND / hwloc_VERSION. Installed with Moirai's CMake package, whose
# static libraries link it.
include(${CMAKE_CURRENT_LIST_DIR}/MoiraiFindLibrary.cmake)
moirai_find_library(hwloc hwloc hwloc.h hwloc hwloc::hwloc)
