add_gpu_test(test_gpu_sgemm SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_sgemm.cpp LIBS autogemm autogemm_tuner)
# Matrices of more than 2^31 elements through the C API (issue 4, item 1).
add_gpu_test(test_gpu_large SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_large.cpp LIBS autogemm autogemm_tuner)
