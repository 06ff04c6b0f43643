# The install rules: `cmake --install BUILD --prefix P` puts the public headers, the libraries
# (Moirai::<name>, exported), the OpenMP tool libmoirai_ompt.so, the MPI tool libmoirai_mpi.so, the `moirai` and
# `moirai-calibrate` tools (when the tools are built) and libomp's per-task probe moirai-omp-task-cost,
# the CMake package (find_package(Moirai 0.2)) with the Find modules it needs, and moirai.pc
# for pkg-config users into P, laid out by GNUInstallDirs.
include(CMakePackageConfigHelpers)
set(moirai_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Moirai)

get_property(moirai_include_dirs GLOBAL PROPERTY MOIRAI_PUBLIC_INCLUDE_DIRS)
list(REMOVE_DUPLICATES moirai_include_dirs)
foreach(dir IN LISTS moirai_include_dirs)
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT Moirai_Development
          FILES_MATCHING PATTERN "*.h")
endforeach()

get_property(moirai_targets GLOBAL PROPERTY MOIRAI_PUBLIC_TARGETS)
install(TARGETS ${moirai_targets} EXPORT MoiraiTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Moirai_Development
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Moirai_Runtime
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Moirai_Runtime)
install(EXPORT MoiraiTargets NAMESPACE Moirai:: DESTINATION ${moirai_cmake_dir}
        COMPONENT Moirai_Development)

foreach(tool moirai_cli moirai-calibrate)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Moirai_Runtime)
  endif()
endforeach()
# libomp's cost per task (built by clang++-16 when libomp is here): beside `moirai` and
# moirai-calibrate, which run it.
if(TARGET moirai-omp-task-cost)
  get_target_property(moirai_task_cost_probe moirai-omp-task-cost MOIRAI_OMP_APP)
  install(PROGRAMS ${moirai_task_cost_probe} DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Moirai_Runtime)
endif()

# The OpenMP tool is a module libomp loads (OMP_TOOL_LIBRARIES), linked by no one: it is installed
# beside the libraries, where the installed `moirai record` looks for it, and the package names its
# path (MOIRAI_OMPT_LIBRARY, the imported target Moirai::ompt_tool) rather than exporting it.
install(TARGETS moirai_ompt LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Moirai_Runtime)
# The MPI tool likewise (each rank preloads it; `moirai record -- mpirun ...` looks for it there):
# Open MPI's build and, when MPICH is here, MPICH's.
foreach(mpi_tool moirai_mpi moirai_mpi_mpich)
  if(TARGET ${mpi_tool})
    install(TARGETS ${mpi_tool} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Moirai_Runtime)
  endif()
endforeach()
set(MOIRAI_OMPT_INSTALL_PATH ${CMAKE_INSTALL_LIBDIR}/${CMAKE_SHARED_LIBRARY_PREFIX}moirai_ompt${CMAKE_SHARED_LIBRARY_SUFFIX})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/MoiraiConfig.cmake.in
  ${PROJECT_BINARY_DIR}/MoiraiConfig.cmake INSTALL_DESTINATION ${moirai_cmake_dir}
  PATH_VARS MOIRAI_OMPT_INSTALL_PATH)
# 0.x: a minor version may change the API, so 0.2 accepts only 0.2.*.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/MoiraiConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/MoiraiConfig.cmake ${PROJECT_BINARY_DIR}/MoiraiConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/modules/Findhwloc.cmake
              ${CMAKE_CURRENT_LIST_DIR}/modules/FindPAPI.cmake
              ${CMAKE_CURRENT_LIST_DIR}/modules/FindGraphviz.cmake
              ${CMAKE_CURRENT_LIST_DIR}/modules/FindOTF2.cmake
              ${CMAKE_CURRENT_LIST_DIR}/modules/MoiraiFindLibrary.cmake
        DESTINATION ${moirai_cmake_dir} COMPONENT Moirai_Development)

# moirai.pc: static libraries need their dependencies on every link, shared ones only their own.
if(BUILD_SHARED_LIBS)
  set(MOIRAI_PC_REQUIRES "")
  set(MOIRAI_PC_REQUIRES_PRIVATE "hwloc papi libcgraph libgvc zlib otf2 sqlite3")
  set(MOIRAI_PC_LIBS_PRIVATE "-lboost_context -pthread")
  set(MOIRAI_PC_LIBS_DEPS "")
else()
  set(MOIRAI_PC_REQUIRES "hwloc papi libcgraph libgvc zlib otf2 sqlite3")
  set(MOIRAI_PC_REQUIRES_PRIVATE "")
  set(MOIRAI_PC_LIBS_PRIVATE "")
  set(MOIRAI_PC_LIBS_DEPS "-lboost_context -pthread")
endif()
file(RELATIVE_PATH MOIRAI_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_CURRENT_LIST_DIR}/moirai.pc.in ${PROJECT_BINARY_DIR}/moirai.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/moirai.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT Moirai_Development)
