add_gpu_test(test_gpu_sgemm SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_sgemm.cpp LIBS autogemm autogemm_tuner)
