# AUTOGEMM_SANITIZE=ON: AddressSanitizer + UndefinedBehaviorSanitizer for every
# target of the build (libraries, tools, tests). Works with g++ and clang.
# Any UB report is fatal (-fno-sanitize-recover), so a test that trips one fails.
#
# Run the tests with the options of scripts/reliability_ci.sh, e.g.
#   ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
#   LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp \
#   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest
# (see docs/RELIABILITY-fuzz-sanitizers.md for why the suppression file exists).
option(AUTOGEMM_SANITIZE "Build everything with -fsanitize=address,undefined" OFF)

if(AUTOGEMM_SANITIZE)
  set(AUTOGEMM_SANITIZER_FLAGS
      -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_compile_options(${AUTOGEMM_SANITIZER_FLAGS})
  # GCC (Debian) drops its default --as-needed when -fsanitize is given, and
  # CMake's CUDA::nvrtc drags in the libcuda stub: without --as-needed every
  # binary would need libcuda.so.1 at load time, which a machine without a GPU
  # driver lacks (the library itself loads the driver with dlopen).
  add_link_options(-fsanitize=address,undefined -Wl,--as-needed)
  message(STATUS "autogemm: AddressSanitizer + UndefinedBehaviorSanitizer enabled")
endif()
