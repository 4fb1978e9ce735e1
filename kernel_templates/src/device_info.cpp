#include "autogemm/device_info.h"

#include <cstdio>

#include "autogemm/cuda_driver.h"
#include "autogemm/nvrtc_compiler.h"

namespace autogemm {
namespace {

int attr(CUdevice dev, CUdevice_attribute a) {
  int v = 0;
  AUTOGEMM_CU(cuDeviceGetAttribute(&v, a, dev));
  return v;
}

}  // namespace

DeviceInfo DeviceInfo::query(CUdevice dev, int ordinal) {
  DeviceInfo d;
  d.ordinal = ordinal;
  char name[256] = {};
  AUTOGEMM_CU(cuDeviceGetName(name, sizeof(name) - 1, dev));
  d.name = name;
  CUuuid uuid{};
  AUTOGEMM_CU(cuDeviceGetUuid(&uuid, dev));
  char buf[40];
  std::string u = "GPU-";
  for (int i = 0; i < 16; ++i) {
    std::snprintf(buf, sizeof(buf), "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    u += buf;
  }
  d.uuid = u;
  d.cc_major = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  d.cc_minor = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  d.sm_count = attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  d.max_threads_per_block = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  d.max_smem_per_block_optin = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  d.max_smem_per_sm = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  d.regs_per_sm = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  d.regs_per_block = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  d.max_threads_per_sm = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  d.l2_bytes = attr(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  d.clock_khz = attr(dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  AUTOGEMM_CU(cuDeviceTotalMem(&d.total_mem, dev));
  AUTOGEMM_CU(cuDriverGetVersion(&d.driver_version));
  d.nvrtc_version = Compiler::version();
  return d;
}

DeviceInfo DeviceInfo::current() {
  CUdevice dev = 0;
  AUTOGEMM_CU(cuCtxGetDevice(&dev));
  int count = 0;
  AUTOGEMM_CU(cuDeviceGetCount(&count));
  int ordinal = 0;
  for (int i = 0; i < count; ++i) {
    CUdevice d = 0;
    AUTOGEMM_CU(cuDeviceGet(&d, i));
    if (d == dev) ordinal = i;
  }
  return query(dev, ordinal);
}

}  // namespace autogemm
