#include "autogemm/nvrtc_compiler.h"

#include "autogemm/embedded_sources.h"

#include <nvrtc.h>

#include <chrono>
#include <memory>

namespace autogemm {
namespace {

void nvrtc_check(nvrtcResult r, const char* what, const std::string& log = {}) {
  if (r != NVRTC_SUCCESS)
    throw CompileError(std::string(what) + " failed: " + nvrtcGetErrorString(r), log);
}

struct ProgramDeleter {
  void operator()(nvrtcProgram* p) const {
    nvrtcDestroyProgram(p);
    delete p;
  }
};

}  // namespace

CompileResult Compiler::compile(const std::string& source, const std::string& name,
                                const std::string& arch, const std::vector<std::string>& options) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<nvrtcProgram, ProgramDeleter> prog(new nvrtcProgram(nullptr));
  // The shared device headers, by name from the build's embedding: no
  // include path, nothing read from disk.
  std::vector<const char*> header_texts, header_names;
  for (const EmbeddedSource& h : embedded_headers()) {
    header_texts.push_back(h.source);
    header_names.push_back(h.file);
  }
  nvrtc_check(nvrtcCreateProgram(prog.get(), source.c_str(), name.c_str(), int(header_texts.size()),
                                 header_texts.data(), header_names.data()),
              "nvrtcCreateProgram");
  // No fast-math: the kernels rely on IEEE FP32 (FMA contraction is on by
  // default and is what they want); NVRTC optimizes by default (no -O3).
  std::vector<std::string> opts = {"--gpu-architecture=" + arch, "--std=c++17", "-default-device"};
  opts.insert(opts.end(), options.begin(), options.end());
  std::vector<const char*> argv;
  for (const auto& o : opts) argv.push_back(o.c_str());
  const nvrtcResult r = nvrtcCompileProgram(*prog, int(argv.size()), argv.data());
  size_t log_size = 0;
  nvrtcGetProgramLogSize(*prog, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 1) nvrtcGetProgramLog(*prog, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  nvrtc_check(r, ("nvrtcCompileProgram(" + name + ")").c_str(), log);
  size_t size = 0;
  nvrtc_check(nvrtcGetCUBINSize(*prog, &size), "nvrtcGetCUBINSize", log);
  CompileResult out;
  out.cubin.resize(size);
  nvrtc_check(nvrtcGetCUBIN(*prog, out.cubin.data()), "nvrtcGetCUBIN", log);
  out.log = std::move(log);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

int Compiler::version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return 0;
  return major * 1000 + minor * 10;
}

}  // namespace autogemm
