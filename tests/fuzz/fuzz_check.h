// CHECK for the libFuzzer targets: prints the failed condition (libFuzzer
// keeps the log) and traps, so the fuzzer reports the input.
#ifndef POSENC_TESTS_FUZZ_FUZZ_CHECK_H_
#define POSENC_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>

#define CHECK(cond)                                                         \
  do {                                                                      \
    if (!(cond)) {                                                          \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
                   #cond);                                                  \
      __builtin_trap();                                                     \
    }                                                                       \
  } while (0)

#endif  // POSENC_TESTS_FUZZ_FUZZ_CHECK_H_
