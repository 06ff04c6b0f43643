# moirai_ordinary_code_too(<target>): an optimised GCC build keeps ordinary object code next to the
# LTO code of <target> (-ffat-lto-objects), so that programs linked without LTO (the installed
# archives' users, the test suite: tests/CMakeLists.txt) can link it.
function(moirai_ordinary_code_too target)
  if(CMAKE_INTERPROCEDURAL_OPTIMIZATION AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -ffat-lto-objects)
  endif()
endfunction()

# moirai_public_library(<target> <name>): makes <target> one of the libraries Moirai installs,
# as Moirai::<name> both in the build tree (an alias, for add_subdirectory users) and in the
# installed package (the export name). It gets the layer's include/ folder (the headers
# MoiraiInstall.cmake installs), C++20 as a PUBLIC compile feature, so users compile the headers
# in the language they need, and the warning flags for its own sources only. An optimised GCC
# build keeps ordinary object code next to the LTO one (-ffat-lto-objects): the installed
# archives then link with any compiler.
function(moirai_public_library target name)
  add_library(Moirai::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    set(scope INTERFACE)
  else()
    set(scope PUBLIC)
    target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:moirai_build_flags>)
    moirai_ordinary_code_too(${target})
  endif()
  target_compile_features(${target} ${scope} cxx_std_20)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/include)
    target_include_directories(${target} ${scope} $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                               $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    set_property(GLOBAL APPEND PROPERTY MOIRAI_PUBLIC_INCLUDE_DIRS ${CMAKE_CURRENT_SOURCE_DIR}/include)
  endif()
  set_property(GLOBAL APPEND PROPERTY MOIRAI_PUBLIC_TARGETS ${target})
endfunction()

# moirai_language(<name> <source>...): a language on the proto-runtime, the library moirai_<name>
# (Moirai::<name> and moirai::<name>) of its constructs, request handlers and assigner, built
# from <source>... over the proto-runtime (docs/adding-a-language.md).
function(moirai_language name)
  add_library(moirai_${name} ${ARGN})
  add_library(moirai::${name} ALIAS moirai_${name})
  moirai_public_library(moirai_${name} ${name})
  target_link_libraries(moirai_${name} PUBLIC moirai::proto_runtime)
endfunction()
