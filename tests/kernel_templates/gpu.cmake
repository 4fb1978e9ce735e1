add_gpu_test(test_gpu_kernels SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_kernels.cpp LIBS autogemm_tuner)
