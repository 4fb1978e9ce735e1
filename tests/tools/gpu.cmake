add_gpu_test(test_gpu_tune_dispatch SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_tune_dispatch.cpp LIBS autogemm_core)
# Paths relative to the test binary, so the build folder can be copied elsewhere (the GPU machine).
file(RELATIVE_PATH tools_rel ${CMAKE_CURRENT_BINARY_DIR} ${PROJECT_BINARY_DIR}/tools)
target_compile_definitions(test_gpu_tune_dispatch PRIVATE TOOLS_REL="${tools_rel}")
add_dependencies(test_gpu_tune_dispatch gemm_tune sgemm_example)
