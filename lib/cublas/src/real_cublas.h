// The real cuBLAS and cuBLASLt behind the drop-in, found at run time.
//
// The drop-in's own definitions of cuBLAS's names shadow the real ones, so
// the real entry points are looked up past it: the next object in the
// global lookup order (linked after it, or LD_PRELOADed before a program
// that links cuBLAS); else a copy already loaded privately (PyTorch opens
// cuBLAS as a dependency of a module it dlopens with RTLD_LOCAL), found among
// the loaded objects by file name; else $AUTOGEMM_REAL_CUBLAS /
// $AUTOGEMM_REAL_CUBLASLT, else the library by its SONAME. Nothing links
// cuBLAS at build time.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

namespace autogemm::cublas {

// cublasGemmEx and cublasGemmStridedBatchedEx have C++ overloads (a legacy
// cudaDataType compute type); these are the C entry points.
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                    const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                    cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
using GemmStridedBatchedExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                                  const void*, const void*, cudaDataType, int, long long, const void*,
                                                  cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                                  long long, int, cublasComputeType_t, cublasGemmAlgo_t);

struct RealCublas {
  decltype(&::cublasSgemm_v2) Sgemm = nullptr;
  decltype(&::cublasSgemm_v2_64) Sgemm64 = nullptr;
  decltype(&::cublasSgemmStridedBatched) SgemmStridedBatched = nullptr;
  decltype(&::cublasSgemmStridedBatched_64) SgemmStridedBatched64 = nullptr;
  GemmExFn GemmEx = nullptr;
  decltype(&::cublasGemmEx_64) GemmEx64 = nullptr;
  GemmStridedBatchedExFn GemmStridedBatchedEx = nullptr;
  decltype(&::cublasGemmStridedBatchedEx_64) GemmStridedBatchedEx64 = nullptr;
  decltype(&::cublasSgemmBatched) SgemmBatched = nullptr;
  decltype(&::cublasGetStream_v2) GetStream = nullptr;
  decltype(&::cublasGetMathMode) GetMathMode = nullptr;
  decltype(&::cublasGetPointerMode_v2) GetPointerMode = nullptr;
  decltype(&::cublasSetWorkspace_v2) SetWorkspace = nullptr;
  decltype(&::cublasDestroy_v2) Destroy = nullptr;
};

struct RealCublasLt {
  decltype(&::cublasLtMatmul) Matmul = nullptr;
  decltype(&::cublasLtMatmulDescGetAttribute) DescGetAttribute = nullptr;
  decltype(&::cublasLtMatrixLayoutGetAttribute) LayoutGetAttribute = nullptr;
};

/// The real libraries' entry points, looked up once; a library not found
/// leaves its pointers null (logged once), and its calls return
/// CUBLAS_STATUS_NOT_INITIALIZED.
const RealCublas& real_cublas();
const RealCublasLt& real_cublaslt();

/// True when `address` lies in a loaded libcublas (cuBLAS calling
/// cublasLtMatmul for its own work: such calls are never routed).
bool inside_real_cublas(const void* address);

/// Set while the calling thread is inside a call to the real library, so a
/// call cuBLAS makes back into an interposed name goes straight through.
class InRealCublas {
 public:
  InRealCublas() { ++depth_; }
  ~InRealCublas() { --depth_; }
  InRealCublas(const InRealCublas&) = delete;
  InRealCublas& operator=(const InRealCublas&) = delete;
  static bool active() { return depth_ > 0; }

 private:
  static thread_local int depth_;
};

}  // namespace autogemm::cublas
