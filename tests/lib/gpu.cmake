add_gpu_test(test_gpu_sgemm SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_sgemm.cpp LIBS autogemm autogemm_tuner)
# Matrices of more than 2^31 elements through the C API (issue 4, item 1).
add_gpu_test(test_gpu_large SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_large.cpp LIBS autogemm autogemm_tuner)
# The cuBLAS drop-in against the real cuBLAS (linked after it), on a GPU.
add_gpu_test(test_gpu_cublas SOURCES ${CMAKE_CURRENT_LIST_DIR}/cublas/test_gpu_cublas.cpp
  LIBS autogemm_cublas CUDA::cublas CUDA::cublasLt CUDA::cudart autogemm_core)
target_include_directories(test_gpu_cublas PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cublas ${PROJECT_SOURCE_DIR}/lib/include)
# The BLAS drop-in's sgemm_ routed to autogemm, on a GPU (its code linked in, for its counters).
add_gpu_test(test_gpu_blas SOURCES ${CMAKE_CURRENT_LIST_DIR}/blas/test_gpu_blas.cpp LIBS autogemm_blas_objects)
target_include_directories(test_gpu_blas PRIVATE ${CMAKE_CURRENT_LIST_DIR}/blas)
