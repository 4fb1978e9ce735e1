// The CUDA driver API, loaded at run time, with RAII owners.
//
// Why dlopen instead of linking libcuda: autogemm is linked into other
// people's programs, and machines without a GPU (CI, build hosts) have no
// libcuda.so.1. Loading it on first use lets every binary start everywhere and
// report "no CUDA driver" as a status instead of failing at load time.
//
// Every driver call goes through check(): a failing CUresult becomes a
// CudaError exception inside the C++ layers; the C API turns it into a status.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace autogemm {

/// A failing driver call; code() is the CUresult.
class CudaError : public std::runtime_error {
 public:
  CudaError(CUresult code, const std::string& what) : std::runtime_error(what), code_(code) {}
  CUresult code() const { return code_; }

 private:
  CUresult code_;
};

/// Function table of the driver entry points autogemm uses.
struct DriverApi {
#define AUTOGEMM_DRIVER_FN(name) decltype(&::name) name = nullptr;
#include "autogemm/cuda_driver_functions.inc"
#undef AUTOGEMM_DRIVER_FN
};

/// Loads libcuda.so.1 and calls cuInit(0) once per process. Returns nullptr
/// (and fills *why) when there is no usable driver; never throws.
const DriverApi* driver_api(std::string* why = nullptr);

/// The driver table, or throws CudaError(CUDA_ERROR_NO_DEVICE, reason).
const DriverApi& driver();

/// True when a driver is loaded and at least one device is present.
bool gpu_available(std::string* why = nullptr);

/// The one error-checking function: throws CudaError naming the call.
void check(CUresult r, const char* what);
#define AUTOGEMM_CU(call) ::autogemm::check(::autogemm::driver().call, #call)

/// Owns a loaded module.
class Module {
 public:
  Module() = default;
  /// Loads a cubin image already in memory.
  static Module load(const void* image);
  ~Module();
  Module(Module&& o) noexcept : mod_(std::exchange(o.mod_, nullptr)) {}
  Module& operator=(Module&& o) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  CUfunction function(const char* name) const;
  CUmodule get() const { return mod_; }

 private:
  CUmodule mod_ = nullptr;
};

/// Owns a device allocation.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, 0)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  CUdeviceptr get() const { return ptr_; }
  template <typename T>
  T* as() const { return reinterpret_cast<T*>(ptr_); }
  size_t bytes() const { return bytes_; }

 private:
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
};

/// Owns a stream (non-blocking with respect to the legacy stream).
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  CUstream get() const { return s_; }
  void synchronize() const;

 private:
  CUstream s_ = nullptr;
};

/// Owns an event used for timing.
class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  CUevent get() const { return e_; }
  void record(CUstream s) const;
  /// Milliseconds from `start` to this event (both must have completed).
  float elapsed_since(const Event& start) const;

 private:
  CUevent e_ = nullptr;
};

/// Retains the primary context of a device and makes it current on the
/// calling thread for the object's lifetime (restoring the previous one).
class ScopedPrimaryContext {
 public:
  explicit ScopedPrimaryContext(int ordinal);
  ~ScopedPrimaryContext();
  ScopedPrimaryContext(const ScopedPrimaryContext&) = delete;
  ScopedPrimaryContext& operator=(const ScopedPrimaryContext&) = delete;
  CUcontext get() const { return ctx_; }
  CUdevice device() const { return dev_; }

 private:
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  CUcontext previous_ = nullptr;
};

}  // namespace autogemm
