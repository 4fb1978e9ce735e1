// cublasSetWorkspace_v2 and cublasDestroy_v2 in the drop-in: each goes to
// the real cuBLAS, and a workspace it accepted is remembered for its handle
// until the handle is destroyed (a new handle may reuse the address).
#pragma GCC visibility push(default)
#include <cublas_v2.h>
#pragma GCC visibility pop

#include <mutex>
#include <unordered_map>

#include "handle_workspace.h"
#include "real_cublas.h"

namespace autogemm::cublas {
namespace {

std::mutex& table_mutex() {
  static auto* mu = new std::mutex;  // never destroyed: handles die at exit too
  return *mu;
}

std::unordered_map<cublasHandle_t, LentWorkspace>& table() {
  static auto* t = new std::unordered_map<cublasHandle_t, LentWorkspace>;
  return *t;
}

}  // namespace

LentWorkspace handle_workspace(cublasHandle_t h) {
  std::lock_guard<std::mutex> lock(table_mutex());
  const auto it = table().find(h);
  return it == table().end() ? LentWorkspace{} : it->second;
}

}  // namespace autogemm::cublas

using autogemm::cublas::InRealCublas;
using autogemm::cublas::LentWorkspace;
using autogemm::cublas::real_cublas;
using autogemm::cublas::table;
using autogemm::cublas::table_mutex;

extern "C" {

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t h, void* workspace, size_t bytes) {
  const auto real = real_cublas().SetWorkspace;
  if (!real) return CUBLAS_STATUS_NOT_INITIALIZED;
  cublasStatus_t st;
  {
    const InRealCublas inside;
    st = real(h, workspace, bytes);
  }
  if (st == CUBLAS_STATUS_SUCCESS) {
    std::lock_guard<std::mutex> lock(table_mutex());
    if (workspace && bytes)
      table()[h] = LentWorkspace{workspace, bytes};
    else
      table().erase(h);
  }
  return st;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t h) {
  {
    std::lock_guard<std::mutex> lock(table_mutex());
    table().erase(h);
  }
  const auto real = real_cublas().Destroy;
  if (!real) return CUBLAS_STATUS_NOT_INITIALIZED;
  const InRealCublas inside;
  return real(h);
}

}  // extern "C"
