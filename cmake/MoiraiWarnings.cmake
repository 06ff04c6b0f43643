# Warning and sanitizer flags shared by every Moirai target.
add_library(moirai_build_flags INTERFACE)
target_compile_options(moirai_build_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
if(MOIRAI_WERROR)
  target_compile_options(moirai_build_flags INTERFACE -Werror)
endif()
if(MOIRAI_SANITIZE)
  # The fiber switches tell ASan about VP stacks (proto_runtime/src/sanitizer_fiber.h).
  set(moirai_sanitize_flags -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_compile_options(-O1)  # Debug alone (-O0) makes the sanitized suite needlessly slow
  add_compile_options(${moirai_sanitize_flags})
  add_link_options(${moirai_sanitize_flags})
endif()
# Call sites are recorded from std::source_location: relative to the source tree, traces name
# `apps/matmul/matmul.cpp:218` wherever the tree was built, and leak no build path.
target_compile_options(moirai_build_flags INTERFACE "-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=")
