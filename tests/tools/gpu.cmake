add_gpu_test(test_gpu_tune_dispatch SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_tune_dispatch.cpp LIBS autogemm_core autogemm_tuner)
# Paths relative to the test binary, so the build folder can be copied elsewhere (the GPU machine).
file(RELATIVE_PATH tools_rel ${CMAKE_CURRENT_BINARY_DIR} ${PROJECT_BINARY_DIR}/tools)
target_compile_definitions(test_gpu_tune_dispatch PRIVATE TOOLS_REL="${tools_rel}")
add_dependencies(test_gpu_tune_dispatch gemm_tune sgemm_example)
# Crash safety of gemm_tune: SIGKILLed at random points, the file stays sound,
# finished shapes stay, a rerun resumes (issue 4, item 3).
add_gpu_test(test_gpu_tune_crash SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_tune_crash.cpp
             LIBS autogemm_core autogemm_templates autogemm_cache autogemm_tuner)
target_compile_definitions(test_gpu_tune_crash PRIVATE TOOLS_REL="${tools_rel}")
add_dependencies(test_gpu_tune_crash gemm_tune)
# 4 gemm_tune processes and 8 autogemm_sgemm threads on one cache file (issue 4, item 4).
add_gpu_test(test_gpu_concurrency SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_concurrency.cpp
             LIBS autogemm autogemm_core autogemm_templates autogemm_cache autogemm_tuner)
target_compile_definitions(test_gpu_concurrency PRIVATE TOOLS_REL="${tools_rel}")
add_dependencies(test_gpu_concurrency gemm_tune)
# Online tuning (AUTOGEMM_TUNE=1): gemm_tune started by the library (issue 11).
add_gpu_test(test_gpu_online SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_online.cpp LIBS autogemm autogemm_tuner)
target_compile_definitions(test_gpu_online PRIVATE TOOLS_REL="${tools_rel}")
add_dependencies(test_gpu_online gemm_tune autogemm_worker)
