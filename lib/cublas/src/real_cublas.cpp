#include "real_cublas.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "autogemm/log.h"

namespace autogemm::cublas {

thread_local int InRealCublas::depth_ = 0;

namespace {

/// Call sites of cublasLtMatmul remembered (a program has a few; past this
/// many, new ones are looked up every time).
constexpr size_t kCallSitesKept = 4096;

/// The path of a loaded object whose file name starts with `prefix`
/// ("libcublas.so"), or "".
std::string find_loaded(const char* prefix) {
  struct Search {
    const char* prefix;
    std::string path;
  } search{prefix, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        const char* name = info->dlpi_name ? info->dlpi_name : "";
        const char* base = std::strrchr(name, '/');
        base = base ? base + 1 : name;
        if (std::strncmp(base, s->prefix, std::strlen(s->prefix)) != 0) return 0;
        s->path = name;
        return 1;
      },
      &search);
  return search.path;
}

/// A handle to look names up in: the next object, else a loaded copy, else
/// the environment's file, else the SONAME. nullptr when none has `probe`.
void* open_real(const char* probe, const char* prefix, const char* env, const char* soname) {
  if (dlsym(RTLD_NEXT, probe)) return RTLD_NEXT;
  const std::string loaded = find_loaded(prefix);
  std::vector<std::string> tries;
  if (!loaded.empty()) tries.push_back(loaded);
  if (const char* path = std::getenv(env); path && *path) tries.emplace_back(path);
  tries.emplace_back(soname);
  for (const std::string& t : tries)
    if (void* h = dlopen(t.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      if (dlsym(h, probe)) return h;
      dlclose(h);
    }
  log().error("autogemm cuBLAS drop-in: no real {} found (set {} to its path); its calls fail", soname, env);
  return nullptr;
}

template <class F>
void bind(void* lib, F& fn, const char* name) {
  if (lib) fn = reinterpret_cast<F>(dlsym(lib, name));
}

}  // namespace

const RealCublas& real_cublas() {
  static const RealCublas r = [] {
    RealCublas t;
    void* lib = open_real("cublasSgemm_v2", "libcublas.so", "AUTOGEMM_REAL_CUBLAS", "libcublas.so.13");
    bind(lib, t.Sgemm, "cublasSgemm_v2");
    bind(lib, t.Sgemm64, "cublasSgemm_v2_64");
    bind(lib, t.SgemmStridedBatched, "cublasSgemmStridedBatched");
    bind(lib, t.SgemmStridedBatched64, "cublasSgemmStridedBatched_64");
    bind(lib, t.GemmEx, "cublasGemmEx");
    bind(lib, t.GemmEx64, "cublasGemmEx_64");
    bind(lib, t.GemmStridedBatchedEx, "cublasGemmStridedBatchedEx");
    bind(lib, t.GemmStridedBatchedEx64, "cublasGemmStridedBatchedEx_64");
    bind(lib, t.SgemmBatched, "cublasSgemmBatched");
    bind(lib, t.GetStream, "cublasGetStream_v2");
    bind(lib, t.GetMathMode, "cublasGetMathMode");
    bind(lib, t.GetPointerMode, "cublasGetPointerMode_v2");
    bind(lib, t.SetWorkspace, "cublasSetWorkspace_v2");
    bind(lib, t.Destroy, "cublasDestroy_v2");
    return t;
  }();
  return r;
}

const RealCublasLt& real_cublaslt() {
  static const RealCublasLt r = [] {
    RealCublasLt t;
    void* lib = open_real("cublasLtMatmul", "libcublasLt.so", "AUTOGEMM_REAL_CUBLASLT", "libcublasLt.so.13");
    bind(lib, t.Matmul, "cublasLtMatmul");
    bind(lib, t.DescGetAttribute, "cublasLtMatmulDescGetAttribute");
    bind(lib, t.LayoutGetAttribute, "cublasLtMatrixLayoutGetAttribute");
    return t;
  }();
  return r;
}

bool inside_real_cublas(const void* address) {
  // The object the call came from, by file name: no lookup that would load
  // cuBLAS into a program that only uses cuBLASLt. dladdr searches that
  // object's symbols, 0.3 ms a call from libtorch_cuda (H200 host), so each
  // return address is looked up once: a program calls from a few places.
  static std::shared_mutex mu;
  static auto* seen = new std::unordered_map<const void*, bool>();  // never destroyed: calls at exit
  {
    std::shared_lock<std::shared_mutex> lock(mu);
    if (const auto it = seen->find(address); it != seen->end()) return it->second;
  }
  Dl_info info{};
  bool inside = false;
  if (dladdr(address, &info) && info.dli_fname) {
    const char* base = std::strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    inside = std::strncmp(base, "libcublas.so", 12) == 0;
  }
  std::unique_lock<std::shared_mutex> lock(mu);
  if (seen->size() < kCallSitesKept) seen->emplace(address, inside);
  return inside;
}

}  // namespace autogemm::cublas
