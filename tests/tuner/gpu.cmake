# GPU tests of the tuner (label gpu; skip without a GPU): faulting candidates
# injected from tests/tuner/broken_kernels.cu run in autogemm_worker.
add_gpu_test(test_gpu_worker SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_worker.cpp LIBS autogemm_tuner)
target_include_directories(test_gpu_worker PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/tuner)
target_compile_definitions(test_gpu_worker PRIVATE AUTOGEMM_TEST_WORKER="$<TARGET_FILE:autogemm_worker>")
add_dependencies(test_gpu_worker autogemm_worker)
# Rotating timing on real operand copies.
add_gpu_test(test_gpu_benchmark SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_benchmark.cpp LIBS autogemm_tuner)
