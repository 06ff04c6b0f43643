# FindPAPI: the PAPI performance-counter library. Defines the imported target PAPI::PAPI and
# PAPI_FOUND / PAPI_VERSION. Installed with Moirai's CMake package, whose static trace recorder
# links it.
include(${CMAKE_CURRENT_LIST_DIR}/MoiraiFindLibrary.cmake)
moirai_find_library(PAPI papi papi.h papi PAPI::PAPI)
