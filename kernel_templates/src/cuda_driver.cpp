#include "autogemm/cuda_driver.h"

#include <dlfcn.h>

#include <mutex>

namespace autogemm {
namespace {

#define AUTOGEMM_STR2(x) #x
#define AUTOGEMM_STR(x) AUTOGEMM_STR2(x)

struct LoadedDriver {
  DriverApi api;
  bool ok = false;
  std::string why;
};

LoadedDriver load_driver() {
  LoadedDriver d;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    d.why = "no CUDA driver (libcuda.so.1 could not be loaded)";
    return d;
  }
  // The handle is kept for the life of the process: unloading the driver
  // while modules or contexts may still exist is never safe.
#define AUTOGEMM_DRIVER_FN(name)                                                 \
  d.api.name = reinterpret_cast<decltype(d.api.name)>(dlsym(lib, AUTOGEMM_STR(name))); \
  if (!d.api.name) {                                                             \
    d.why = std::string("CUDA driver lacks ") + AUTOGEMM_STR(name);              \
    return d;                                                                    \
  }
#include "autogemm/cuda_driver_functions.inc"
#undef AUTOGEMM_DRIVER_FN
  CUresult r = d.api.cuInit(0);
  if (r != CUDA_SUCCESS) {
    const char* name = nullptr;
    d.api.cuGetErrorName(r, &name);
    d.why = std::string("cuInit failed: ") + (name ? name : "unknown error");
    return d;
  }
  d.ok = true;
  return d;
}

const LoadedDriver& loaded() {
  static const LoadedDriver d = load_driver();
  return d;
}

}  // namespace

const DriverApi* driver_api(std::string* why) {
  const LoadedDriver& d = loaded();
  if (!d.ok) {
    if (why) *why = d.why;
    return nullptr;
  }
  return &d.api;
}

const DriverApi& driver() {
  std::string why;
  const DriverApi* api = driver_api(&why);
  if (!api) throw CudaError(CUDA_ERROR_NO_DEVICE, why);
  return *api;
}

bool gpu_available(std::string* why) {
  const DriverApi* api = driver_api(why);
  if (!api) return false;
  int count = 0;
  if (api->cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    if (why) *why = "the CUDA driver reports no GPU";
    return false;
  }
  return true;
}

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  if (const DriverApi* api = driver_api()) {
    api->cuGetErrorName(r, &name);
    api->cuGetErrorString(r, &text);
  }
  throw CudaError(r, std::string(what) + " failed: " + (name ? name : "CUDA error") + " (" +
                         (text ? text : "no description") + ")");
}

Module Module::load(const void* image) {
  Module m;
  AUTOGEMM_CU(cuModuleLoadData(&m.mod_, image));
  return m;
}

Module::~Module() {
  if (mod_) driver().cuModuleUnload(mod_);
}

Module& Module::operator=(Module&& o) noexcept {
  if (this != &o) {
    if (mod_) driver().cuModuleUnload(mod_);
    mod_ = std::exchange(o.mod_, nullptr);
  }
  return *this;
}

CUfunction Module::function(const char* name) const {
  CUfunction f = nullptr;
  AUTOGEMM_CU(cuModuleGetFunction(&f, mod_, name));
  return f;
}

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  if (bytes) AUTOGEMM_CU(cuMemAlloc(&ptr_, bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) driver().cuMemFree(ptr_);
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) driver().cuMemFree(ptr_);
    ptr_ = std::exchange(o.ptr_, 0);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

Stream::Stream() { AUTOGEMM_CU(cuStreamCreate(&s_, CU_STREAM_NON_BLOCKING)); }
Stream::~Stream() {
  if (s_) driver().cuStreamDestroy(s_);
}
void Stream::synchronize() const { AUTOGEMM_CU(cuStreamSynchronize(s_)); }

Event::Event() { AUTOGEMM_CU(cuEventCreate(&e_, CU_EVENT_DEFAULT)); }
Event::~Event() {
  if (e_) driver().cuEventDestroy(e_);
}
void Event::record(CUstream s) const { AUTOGEMM_CU(cuEventRecord(e_, s)); }
float Event::elapsed_since(const Event& start) const {
  float ms = 0;
  AUTOGEMM_CU(cuEventElapsedTime(&ms, start.e_, e_));
  return ms;
}

ScopedPrimaryContext::ScopedPrimaryContext(int ordinal) {
  AUTOGEMM_CU(cuDeviceGet(&dev_, ordinal));
  AUTOGEMM_CU(cuCtxGetCurrent(&previous_));
  AUTOGEMM_CU(cuDevicePrimaryCtxRetain(&ctx_, dev_));
  try {
    AUTOGEMM_CU(cuCtxSetCurrent(ctx_));
  } catch (...) {
    driver().cuDevicePrimaryCtxRelease(dev_);
    throw;
  }
}

ScopedPrimaryContext::~ScopedPrimaryContext() {
  const DriverApi& d = driver();
  d.cuCtxSetCurrent(previous_);
  d.cuDevicePrimaryCtxRelease(dev_);
}

}  // namespace autogemm
