// Which sanitizer a test binary was built with, for the few tests whose subject the sanitizer
// itself takes over (SIGSEGV, the address-space limit).
#pragma once

// GCC says -fsanitize=address by __SANITIZE_ADDRESS__; clang (16 at least) only by __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define MOIRAI_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MOIRAI_TEST_ASAN 1
#endif
#endif
