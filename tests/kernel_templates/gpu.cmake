add_gpu_test(test_gpu_kernels SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_kernels.cpp LIBS autogemm_tuner)
# The tf32x3 family's accuracy: plain TF32 rejected, special values as FP32.
add_gpu_test(test_gpu_tf32x3 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_tf32x3.cpp LIBS autogemm_tuner)
