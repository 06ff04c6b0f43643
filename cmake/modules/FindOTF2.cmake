# FindOTF2: the Open Trace Format 2 library (`moirai export --format otf2`). Defines the
# imported target OTF2::OTF2 and OTF2_FOUND / OTF2_VERSION. Installed with Moirai's CMake
# package, whose static post-processor links it.
include(${CMAKE_CURRENT_LIST_DIR}/MoiraiFindLibrary.cmake)
moirai_find_library(OTF2 otf2 otf2/otf2.h open-trace-format2 OTF2::OTF2)
