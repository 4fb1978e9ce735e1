# AUTOGEMM_FUZZ=ON (clang only): libFuzzer targets for every parser of outside
# data (tests/fuzz/fuzz_*.cpp), built with -fsanitize=fuzzer,address,undefined.
#
# Every target of the build gets coverage instrumentation for libFuzzer
# (-fsanitize=fuzzer-no-link) plus ASan/UBSan, so the parsers inside the
# libraries guide the fuzzer; only the fuzz executables link libFuzzer's main
# (-fsanitize=fuzzer, added in tests/fuzz/CMakeLists.txt).
#
# Without AUTOGEMM_FUZZ the same fuzz entry points are still built, with a
# small replay main, as ctest tests that run the seed corpus (label "cpu").
option(AUTOGEMM_FUZZ "Build the libFuzzer targets (needs clang)" OFF)

if(AUTOGEMM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "AUTOGEMM_FUZZ=ON needs clang (libFuzzer), e.g. "
                        "-DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14; "
                        "this build uses ${CMAKE_CXX_COMPILER_ID}.")
  endif()
  set(AUTOGEMM_FUZZ_FLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                          -fno-sanitize-recover=undefined)
  add_compile_options(${AUTOGEMM_FUZZ_FLAGS})
  # GCC (Debian) drops its default --as-needed when -fsanitize is given, and
  # CMake's CUDA::nvrtc drags in the libcuda stub: without --as-needed every
  # binary would need libcuda.so.1 at load time, which a machine without a GPU
  # driver lacks (the library itself loads the driver with dlopen).
  add_link_options(-fsanitize=address,undefined -Wl,--as-needed)
  message(STATUS "autogemm: libFuzzer targets enabled (with ASan + UBSan)")
endif()
