#include "gpu_sgemm.h"

#include <climits>
#include <memory>
#include <mutex>
#include <vector>

#include "autogemm/autogemm.h"
#include "autogemm/cuda_driver.h"

namespace autogemm::blas {
namespace {

/// Start of each operand in a slot's buffer (cuMemAlloc's own alignment).
constexpr size_t kOperandAlign = 256;
/// Buffers grow in whole steps, so that a run of slightly growing calls
/// does not reallocate every time.
constexpr size_t kGrowStep = size_t(2) << 20;

/// Device 0's primary context, retained once and never released: releasing
/// it at exit could run after the driver is gone, and leaking it is harmless.
struct Gpu {
  CUcontext ctx = nullptr;
  std::string why;  ///< why there is none
};

const Gpu& gpu() {
  static const Gpu g = [] {
    Gpu r;
    if (!gpu_available(&r.why)) return r;
    try {
      CUdevice dev = 0;
      AUTOGEMM_CU(cuDeviceGet(&dev, 0));
      AUTOGEMM_CU(cuDevicePrimaryCtxRetain(&r.ctx, dev));
    } catch (const std::exception& e) {
      r.ctx = nullptr, r.why = e.what();
    }
    return r;
  }();
  return g;
}

/// Makes `ctx` current on this thread for a scope, then the caller's again.
class CurrentContext {
 public:
  explicit CurrentContext(CUcontext ctx) {
    AUTOGEMM_CU(cuCtxGetCurrent(&previous_));
    if (previous_ == ctx) return;
    AUTOGEMM_CU(cuCtxSetCurrent(ctx));
    switched_ = true;
  }
  ~CurrentContext() {
    if (switched_) driver().cuCtxSetCurrent(previous_);
  }
  CurrentContext(const CurrentContext&) = delete;
  CurrentContext& operator=(const CurrentContext&) = delete;

 private:
  CUcontext previous_ = nullptr;
  bool switched_ = false;
};

/// One call's device memory and stream. A thread takes a free slot for a
/// call and gives it back after, so concurrent calls never share buffers
/// and there are never more slots than threads calling at once.
struct Slot {
  CUstream stream = nullptr;
  CUdeviceptr base = 0;
  size_t bytes = 0;
};

/// The free slots. Never destroyed, and no slot is ever freed: a static
/// destructor would call the driver at exit, perhaps after it is gone.
struct Pool {
  std::mutex mu;
  std::vector<Slot*> free;
  size_t slots = 0;  ///< made so far; `free` has room for all of them
};

Pool& pool() {
  static Pool* p = new Pool();
  return *p;
}

class Lease {
 public:
  Lease() {
    {
      std::lock_guard<std::mutex> lock(pool().mu);
      if (!pool().free.empty()) slot_ = pool().free.back(), pool().free.pop_back();
    }
    if (slot_) return;
    auto fresh = std::make_unique<Slot>();
    AUTOGEMM_CU(cuStreamCreate(&fresh->stream, CU_STREAM_NON_BLOCKING));
    std::lock_guard<std::mutex> lock(pool().mu);
    pool().free.reserve(pool().slots + 1);  // so that giving a slot back never allocates
    ++pool().slots;
    slot_ = fresh.release();
  }
  ~Lease() {
    std::lock_guard<std::mutex> lock(pool().mu);
    pool().free.push_back(slot_);
  }
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  Slot& operator*() const { return *slot_; }

 private:
  Slot* slot_ = nullptr;
};

/// At least `bytes` of device memory in the slot.
void reserve(Slot& s, size_t bytes) {
  if (s.bytes >= bytes) return;
  if (s.base) {
    AUTOGEMM_CU(cuStreamSynchronize(s.stream));  // a failed call may have left copies queued
    AUTOGEMM_CU(cuMemFree(s.base));
    s.base = 0, s.bytes = 0;
  }
  const size_t grown = (bytes + kGrowStep - 1) / kGrowStep * kGrowStep;
  AUTOGEMM_CU(cuMemAlloc(&s.base, grown));
  s.bytes = grown;
}

/// One operand on the device: `rows` x `cols` stored with leading dimension
/// `ld` (rows rounded up to a multiple of 4, so every call is of autogemm's
/// aligned class, which the fastest families need) at `offset` in the slot.
struct DeviceOperand {
  int rows = 0, cols = 0, ld = 0;
  size_t offset = 0, bytes = 0;
};

DeviceOperand operand(int rows, int cols, size_t* offset) {
  DeviceOperand d;
  d.rows = rows, d.cols = cols;
  d.ld = rows <= INT_MAX - 3 ? (rows + 3) / 4 * 4 : rows;
  d.offset = *offset;
  d.bytes = size_t(d.ld) * size_t(cols) * sizeof(float);
  *offset += (d.bytes + kOperandAlign - 1) / kOperandAlign * kOperandAlign;
  return d;
}

/// The 2-D copy of an operand between the host (leading dimension `host_ld`)
/// and the slot: the referenced rows of each column, nothing past them.
void copy(const Slot& s, const DeviceOperand& d, const float* host, int host_ld, bool to_device) {
  CUDA_MEMCPY2D c{};
  const CUdeviceptr dev = s.base + d.offset;
  const size_t host_pitch = size_t(host_ld) * sizeof(float), dev_pitch = size_t(d.ld) * sizeof(float);
  if (to_device) {
    c.srcMemoryType = CU_MEMORYTYPE_HOST, c.srcHost = host, c.srcPitch = host_pitch;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE, c.dstDevice = dev, c.dstPitch = dev_pitch;
  } else {
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE, c.srcDevice = dev, c.srcPitch = dev_pitch;
    c.dstMemoryType = CU_MEMORYTYPE_HOST, c.dstHost = const_cast<float*>(host), c.dstPitch = host_pitch;
  }
  c.WidthInBytes = size_t(d.rows) * sizeof(float);
  c.Height = size_t(d.cols);
  AUTOGEMM_CU(cuMemcpy2DAsync(&c, s.stream));
}

autogemm_transpose op(char t) { return is_transpose(t) ? AUTOGEMM_TRANS : AUTOGEMM_NO_TRANS; }

/// The call on a leased slot, current context set. C on the host is written
/// only by the last copy, after the product has finished without error.
GpuOutcome run_in_slot(const FortranSgemm& g, Slot& s, std::string* why) {
  size_t offset = 0;
  const DeviceOperand a = operand(rows_a(g), cols_a(g), &offset);
  const DeviceOperand b = operand(rows_b(g), cols_b(g), &offset);
  const DeviceOperand c = operand(g.m, g.n, &offset);
  reserve(s, offset);
  copy(s, a, g.a, g.lda, true);
  copy(s, b, g.b, g.ldb, true);
  if (g.beta != 0.f) copy(s, c, g.c, g.ldc, true);  // beta == 0 never reads C
  auto at = [&](const DeviceOperand& d) { return reinterpret_cast<float*>(s.base + d.offset); };
  const autogemm_status st = autogemm_sgemm(AUTOGEMM_COL_MAJOR, op(g.trans_a), op(g.trans_b), g.m, g.n, g.k, g.alpha,
                                            at(a), a.ld, at(b), b.ld, g.beta, at(c), c.ld, s.stream);
  if (st != AUTOGEMM_SUCCESS) {
    *why = std::string(autogemm_status_string(st)) + ": " + autogemm_last_error();
    return st == AUTOGEMM_NO_DEVICE ? GpuOutcome::NoGpu : GpuOutcome::Autogemm;
  }
  AUTOGEMM_CU(cuStreamSynchronize(s.stream));  // a fault in the product surfaces here, before C is touched
  // Only a failure of this copy itself could leave C partly written before
  // the fallback runs on it; the driver checks a copy's arguments first.
  copy(s, c, g.c, g.ldc, false);
  AUTOGEMM_CU(cuStreamSynchronize(s.stream));
  return GpuOutcome::Done;
}

}  // namespace

GpuOutcome run_on_autogemm(const FortranSgemm& g, std::string* why) {
  const Gpu& dev = gpu();
  if (!dev.ctx) {
    *why = dev.why;
    return GpuOutcome::NoGpu;
  }
  try {
    const CurrentContext current(dev.ctx);
    const Lease slot;
    return run_in_slot(g, *slot, why);
  } catch (const std::exception& e) {
    *why = e.what();
    return GpuOutcome::Cuda;
  }
}

}  // namespace autogemm::blas
