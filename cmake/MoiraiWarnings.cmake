# Warning and sanitizer flags shared by every Moirai target.
add_library(moirai_build_flags INTERFACE)
target_compile_options(moirai_build_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
if(MOIRAI_WERROR)
  target_compile_options(moirai_build_flags INTERFACE -Werror)
endif()
if(MOIRAI_SANITIZE)
  # The fiber switches tell ASan about VP stacks (proto_runtime/src/sanitizer_fiber.h).
  set(moirai_sanitize_flags -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    # clang's ASan keeps locals in fake frames to catch use after return (on by default since
    # LLVM 15; GCC's is off). A VP's last frames run after its fiber has told ASan it ends (the
    # return into Boost.Context's entry), when its fake frames are gone.
    list(APPEND moirai_sanitize_flags -fsanitize-address-use-after-return=never)
  endif()
  add_compile_options(-O1)  # Debug alone (-O0) makes the sanitized suite needlessly slow
  add_compile_options(${moirai_sanitize_flags})
  add_link_options(${moirai_sanitize_flags})
endif()
# Call sites are recorded from std::source_location: relative to the source tree, traces name
# `apps/matmul/matmul.cpp:218` wherever the tree was built, and leak no build path.
target_compile_options(moirai_build_flags INTERFACE "-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=")
