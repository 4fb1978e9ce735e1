// A stand-in for libcublas and libcublasLt with the same C names: handles
// and descriptors keep the modes and attributes set on them, GEMM entry
// points record their call (name and arguments) instead of computing. The
// drop-in's CPU tests link it where the real cuBLAS would be, so every
// routing decision, and what reaches "cuBLAS", is checked without a GPU.
#include "cublas_standin.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

struct Handle {
  cudaStream_t stream = nullptr;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  cublasPointerMode_t pointer = CUBLAS_POINTER_MODE_HOST;
  void* workspace = nullptr;
};

/// An Lt descriptor or layout: attribute number -> its bytes.
struct Attributes {
  std::map<int, std::vector<char>> values;
  template <class T>
  void set(int attr, T v) {
    values[attr].assign(reinterpret_cast<const char*>(&v), reinterpret_cast<const char*>(&v) + sizeof v);
  }
  cublasStatus_t get(int attr, void* buf, size_t size, size_t* written) const {
    const auto it = values.find(attr);
    if (it == values.end()) {  // cuBLASLt's defaults are zeros, a count of 1 and the default epilogue
      if (size > 8) return CUBLAS_STATUS_INVALID_VALUE;
      std::memset(buf, 0, size);
      if (written) *written = size;
      return CUBLAS_STATUS_SUCCESS;
    }
    if (size != it->second.size()) return CUBLAS_STATUS_INVALID_VALUE;
    std::memcpy(buf, it->second.data(), size);
    if (written) *written = size;
    return CUBLAS_STATUS_SUCCESS;
  }
};

StandinCall g_last;
int g_calls = 0;

cublasStatus_t record(const char* name, int m, int n, int k, const void* c) {
  g_last = StandinCall{name, m, n, k, c};
  ++g_calls;
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

StandinCall standin_last_call(void) { return g_last; }
int standin_call_count(void) { return g_calls; }

cublasStatus_t cublasCreate_v2(cublasHandle_t* h) {
  *h = reinterpret_cast<cublasHandle_t>(new Handle());
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDestroy_v2(cublasHandle_t h) {
  delete reinterpret_cast<Handle*>(h);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t h, void* workspace, size_t bytes) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  reinterpret_cast<Handle*>(h)->workspace = bytes ? workspace : nullptr;
  return CUBLAS_STATUS_SUCCESS;
}
void* standin_workspace(cublasHandle_t h) { return reinterpret_cast<Handle*>(h)->workspace; }
cublasStatus_t cublasSetStream_v2(cublasHandle_t h, cudaStream_t s) {
  reinterpret_cast<Handle*>(h)->stream = s;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetStream_v2(cublasHandle_t h, cudaStream_t* s) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  *s = reinterpret_cast<Handle*>(h)->stream;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t m) {
  reinterpret_cast<Handle*>(h)->math = m;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t* m) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  *m = reinterpret_cast<Handle*>(h)->math;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t h, cublasPointerMode_t p) {
  reinterpret_cast<Handle*>(h)->pointer = p;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t h, cublasPointerMode_t* p) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  *p = reinterpret_cast<Handle*>(h)->pointer;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemm_v2(cublasHandle_t, cublasOperation_t, cublasOperation_t, int m, int n, int k, const float*,
                              const float*, int, const float*, int, const float*, float* C, int) {
  return record("cublasSgemm_v2", m, n, k, C);
}
cublasStatus_t cublasSgemm_v2_64(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t m, int64_t n,
                                 int64_t k, const float*, const float*, int64_t, const float*, int64_t, const float*,
                                 float* C, int64_t) {
  return record("cublasSgemm_v2_64", int(m), int(n), int(k), C);
}
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t, cublasOperation_t, cublasOperation_t, int m, int n, int k,
                                         const float*, const float*, int, long long, const float*, int, long long,
                                         const float*, float* C, int, long long, int) {
  return record("cublasSgemmStridedBatched", m, n, k, C);
}
cublasStatus_t cublasSgemmStridedBatched_64(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t m,
                                            int64_t n, int64_t k, const float*, const float*, int64_t, long long,
                                            const float*, int64_t, long long, const float*, float* C, int64_t,
                                            long long, int64_t) {
  return record("cublasSgemmStridedBatched_64", int(m), int(n), int(k), C);
}
cublasStatus_t cublasGemmEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int m, int n, int k, const void*,
                            const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void* C,
                            cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) {
  return record("cublasGemmEx", m, n, k, C);
}
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, int m, int n, int k,
                                          const void*, const void*, cudaDataType, int, long long, const void*,
                                          cudaDataType, int, long long, const void*, void* C, cudaDataType, int,
                                          long long, int, cublasComputeType_t, cublasGemmAlgo_t) {
  return record("cublasGemmStridedBatchedEx", m, n, k, C);
}
cublasStatus_t cublasSgemmBatched(cublasHandle_t, cublasOperation_t, cublasOperation_t, int m, int n, int k,
                                  const float*, const float* const[], int, const float* const[], int, const float*,
                                  float* const C[], int, int) {
  return record("cublasSgemmBatched", m, n, k, C);
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* d, cublasComputeType_t compute, cudaDataType_t scale) {
  auto* a = new Attributes();
  a->set<int32_t>(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, compute);
  a->set<int32_t>(CUBLASLT_MATMUL_DESC_SCALE_TYPE, scale);
  a->set<uint32_t>(CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_DEFAULT);
  *d = reinterpret_cast<cublasLtMatmulDesc_t>(a);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d) {
  delete reinterpret_cast<Attributes*>(d);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr,
                                              const void* buf, size_t size) {
  auto& v = reinterpret_cast<Attributes*>(d)->values[int(attr)];
  v.assign(static_cast<const char*>(buf), static_cast<const char*>(buf) + size);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr, void* buf,
                                              size_t size, size_t* written) {
  return reinterpret_cast<Attributes*>(d)->get(int(attr), buf, size, written);
}
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* l, cudaDataType type, uint64_t rows, uint64_t cols,
                                          int64_t ld) {
  auto* a = new Attributes();
  a->set<uint32_t>(CUBLASLT_MATRIX_LAYOUT_TYPE, uint32_t(type));
  a->set<uint64_t>(CUBLASLT_MATRIX_LAYOUT_ROWS, rows);
  a->set<uint64_t>(CUBLASLT_MATRIX_LAYOUT_COLS, cols);
  a->set<int64_t>(CUBLASLT_MATRIX_LAYOUT_LD, ld);
  a->set<int32_t>(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, 1);
  *l = reinterpret_cast<cublasLtMatrixLayout_t>(a);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l) {
  delete reinterpret_cast<Attributes*>(l);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t attr,
                                                const void* buf, size_t size) {
  auto& v = reinterpret_cast<Attributes*>(l)->values[int(attr)];
  v.assign(static_cast<const char*>(buf), static_cast<const char*>(buf) + size);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t attr,
                                                void* buf, size_t size, size_t* written) {
  return reinterpret_cast<Attributes*>(l)->get(int(attr), buf, size, written);
}
cublasStatus_t cublasLtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t, const void*, const void*, cublasLtMatrixLayout_t,
                              const void*, cublasLtMatrixLayout_t, const void*, const void*, cublasLtMatrixLayout_t,
                              void* D, cublasLtMatrixLayout_t dl, const cublasLtMatmulAlgo_t*, void*, size_t,
                              cudaStream_t) {
  uint64_t rows = 0, cols = 0;
  cublasLtMatrixLayoutGetAttribute(dl, CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, sizeof rows, nullptr);
  cublasLtMatrixLayoutGetAttribute(dl, CUBLASLT_MATRIX_LAYOUT_COLS, &cols, sizeof cols, nullptr);
  return record("cublasLtMatmul", int(rows), int(cols), 0, D);
}

/// cuBLAS's own use of cuBLASLt: an FP32 product it hands to cublasLtMatmul
/// (through the dynamic symbol, as libcublas does), which the drop-in must
/// pass through untouched.
int standin_lt_from_inside(void* d) {
  cublasLtMatmulDesc_t desc;
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatrixLayout_t l;
  cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 8, 8, 8);
  const float one = 1, zero = 0;
  const cublasStatus_t st = cublasLtMatmul(nullptr, desc, &one, d, l, d, l, &zero, d, l, d, l, nullptr, nullptr, 0, nullptr);
  cublasLtMatrixLayoutDestroy(l);
  cublasLtMatmulDescDestroy(desc);
  return int(st);
}

}  // extern "C"
