// sanitizer_cases: a small program for scripts/compute_sanitizer.sh (issue 4,
// item 8). Runs the kernels autogemm launches by default through the C API,
// each on a small problem, and checks every product against a host FP64
// product:
//   * the built-in default tiled configs (empty cache): small and large
//     problem class, aligned (vec=4) and unaligned (vec=1), row- and
//     column-major, all transpose pairs among the cases;
//   * the generic kernel and split-K (both reduction modes), dispatched as
//     exact winners from a temporary cache this program writes.
// beta = 0 with C left uninitialized (cuMemAlloc): initcheck then also proves
// that C is never read when beta == 0. Exit status: 0 all correct, 1 wrong or
// failed, 77 no GPU.
//
//   sanitizer_cases [--quick]      (--quick: the default configs only)
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "autogemm/autogemm.h"
#include "autogemm/cuda_driver.h"
#include "autogemm/device_info.h"
#include "autogemm/kernel_config.h"
#include "autogemm/kernel_template.h"
#include "autogemm/tuning_cache.h"

using namespace autogemm;

namespace {

struct Case {
  const char* what;
  autogemm_layout layout;
  bool ta, tb;
  int m, n, k;
  float alpha, beta;
};

int lead_a(const Case& c) { return c.layout == AUTOGEMM_ROW_MAJOR ? (c.ta ? c.m : c.k) : (c.ta ? c.k : c.m); }
int lead_b(const Case& c) { return c.layout == AUTOGEMM_ROW_MAJOR ? (c.tb ? c.k : c.n) : (c.tb ? c.n : c.k); }
int lead_c(const Case& c) { return c.layout == AUTOGEMM_ROW_MAJOR ? c.n : c.m; }
size_t elems_a(const Case& c) { return size_t(lead_a(c)) * size_t(c.layout == AUTOGEMM_ROW_MAJOR ? (c.ta ? c.k : c.m) : (c.ta ? c.m : c.k)); }
size_t elems_b(const Case& c) { return size_t(lead_b(c)) * size_t(c.layout == AUTOGEMM_ROW_MAJOR ? (c.tb ? c.n : c.k) : (c.tb ? c.k : c.n)); }

// Element (i, j) of op(X) for an M x K (or K x N) operand as the call sees it.
double op_elem(const std::vector<float>& x, bool row, bool t, int ld, int i, int j) {
  // row-major: untransposed X(i, j) at i*ld + j, transposed at j*ld + i; column-major the other way.
  const bool first = row != t;
  return first ? x[size_t(i) * ld + j] : x[size_t(j) * ld + i];
}

float rnd(std::mt19937& g) {
  const float u = std::uniform_real_distribution<float>(0.25f, 1.0f)(g);
  return (g() & 1) ? -u : u;
}

bool run_case(const Case& c, CUstream s, const char* expect_prefix) {
  std::mt19937 g(c.m * 131 + c.n * 17 + c.k);
  std::vector<float> a(elems_a(c)), b(elems_b(c)), out(size_t(c.m) * c.n);
  for (float& v : a) v = rnd(g);
  for (float& v : b) v = rnd(g);
  DeviceBuffer da(a.size() * 4), db(b.size() * 4), dc(out.size() * 4);  // C left uninitialized
  AUTOGEMM_CU(cuMemcpyHtoD(da.get(), a.data(), a.size() * 4));
  AUTOGEMM_CU(cuMemcpyHtoD(db.get(), b.data(), b.size() * 4));
  char config[256] = "";
  autogemm_describe(c.layout, c.ta ? AUTOGEMM_TRANS : AUTOGEMM_NO_TRANS, c.tb ? AUTOGEMM_TRANS : AUTOGEMM_NO_TRANS,
                    c.m, c.n, c.k, da.as<float>(), lead_a(c), db.as<float>(), lead_b(c), dc.as<float>(), lead_c(c),
                    config, sizeof config);
  const autogemm_status st =
      autogemm_sgemm(c.layout, c.ta ? AUTOGEMM_TRANS : AUTOGEMM_NO_TRANS, c.tb ? AUTOGEMM_TRANS : AUTOGEMM_NO_TRANS,
                     c.m, c.n, c.k, c.alpha, da.as<float>(), lead_a(c), db.as<float>(), lead_b(c), c.beta,
                     dc.as<float>(), lead_c(c), s);
  if (st != AUTOGEMM_SUCCESS) {
    std::printf("case %-34s FAILED: %s\n", c.what, autogemm_status_string(st));
    return false;
  }
  AUTOGEMM_CU(cuStreamSynchronize(s));
  AUTOGEMM_CU(cuMemcpyDtoH(out.data(), dc.get(), out.size() * 4));
  const bool row = c.layout == AUTOGEMM_ROW_MAJOR;
  long bad = 0;
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      double ref = 0, mag = 0;
      for (int p = 0; p < c.k; ++p) {
        const double t = op_elem(a, row, c.ta, lead_a(c), i, p) * op_elem(b, row, c.tb, lead_b(c), p, j);
        ref += t;
        mag += std::fabs(t);
      }
      ref *= c.alpha;
      const float v = row ? out[size_t(i) * c.n + j] : out[size_t(j) * c.m + i];
      const double bound = (double(c.k) + 2) * 5.9604644775390625e-08 * std::fabs(c.alpha) * mag + 1e-30;
      if (!(std::fabs(double(v) - ref) <= bound)) ++bad;
    }
  const bool kernel_ok = expect_prefix == nullptr || std::strstr(config, expect_prefix) != nullptr;
  std::printf("case %-34s %s  kernel: %s%s\n", c.what, bad ? "WRONG" : "correct", config,
              kernel_ok ? "" : "  (not the expected kernel)");
  return bad == 0 && kernel_ok;
}

TiledParams split_k_params(int rd) {
  TiledParams t;
  t.bm = 64, t.bn = 64, t.bk = 8, t.tm = 4, t.tn = 4, t.wc = 8, t.vec = 4, t.split_k = 4, t.split_reduce = rd;
  t.swizzle = 1;
  return t;
}

KernelConfig split_k_config(int rd) { return KernelConfig(split_k_params(rd), false, false); }

// The cp.async pipeline (st) with partial unrolling: the search space's
// other load path, here with 4-byte copies (unaligned) and edges.
KernelConfig async_config(int vec, bool trans) {
  TiledParams t = split_k_params(0);
  t.split_k = 1;
  t.bk = 16, t.vec = vec, t.stages = 3, t.k_unroll = 8;
  return KernelConfig(t, trans, trans);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  std::string why;
  if (!gpu_available(&why)) {
    std::printf("sanitizer_cases: no GPU (%s), nothing to do\n", why.c_str());
    return 77;
  }
  bool ok = true;
  try {
    ScopedPrimaryContext ctx(0);
    const DeviceInfo dev = DeviceInfo::current();
    Stream stream;

    // 1. Built-in defaults: no cache file at all.
    if (autogemm_init("/nonexistent-dir/autogemm-sanitizer.db") != AUTOGEMM_SUCCESS) return 1;
    const Case defaults[] = {
        {"default small, aligned, NN", AUTOGEMM_ROW_MAJOR, false, false, 256, 256, 256, 1.0f, 0.0f},
        {"default large, aligned, NT", AUTOGEMM_ROW_MAJOR, false, true, 1024, 1024, 64, 1.0f, 0.0f},
        {"default small, unaligned, TN", AUTOGEMM_ROW_MAJOR, true, false, 255, 257, 129, -1.5f, 0.0f},
        {"default large, unaligned, TT", AUTOGEMM_ROW_MAJOR, true, true, 1027, 1025, 33, 0.5f, 0.0f},
        {"default small, column-major, NT", AUTOGEMM_COL_MAJOR, false, true, 200, 300, 100, 1.0f, 0.0f},
    };
    for (const Case& c : defaults) ok = run_case(c, stream.get(), "tiled") && ok;

    if (!quick) {
      // 2. Generic and split-K as exact winners of a temporary cache.
      char tmpl[] = "/tmp/autogemm-sanitizer-XXXXXX";
      if (!mkdtemp(tmpl)) return 1;
      const std::string db = std::string(tmpl) + "/t.db";
      struct Tuned {
        Case c;
        KernelConfig cfg;
        const char* expect;
      };
      const Tuned tuned[] = {
          {{"generic, aligned, NN", AUTOGEMM_ROW_MAJOR, false, false, 100, 96, 80, 1.0f, 0.0f},
           KernelConfig::generic(false, false), "generic"},
          {{"generic, unaligned, TT", AUTOGEMM_ROW_MAJOR, true, true, 77, 93, 61, 1.0f, 0.0f},
           KernelConfig::generic(true, true), "generic"},
          {{"split-K 4, in-kernel reduce", AUTOGEMM_ROW_MAJOR, false, false, 128, 128, 1024, 1.0f, 0.0f},
           split_k_config(0), "sk=4"},
          {{"split-K 4, reduce kernel", AUTOGEMM_ROW_MAJOR, false, false, 64, 192, 1024, 1.0f, 0.0f},
           split_k_config(1), "sk=4"},
          {{"cp.async 3 stages, aligned, NN", AUTOGEMM_ROW_MAJOR, false, false, 192, 128, 200, 1.0f, 0.0f},
           async_config(4, false), "st=3"},
          {{"cp.async 3 stages, unaligned, TT", AUTOGEMM_ROW_MAJOR, true, true, 131, 97, 75, 1.0f, 0.0f},
           async_config(1, true), "st=3"},
      };
      {
        auto cache = TuningCache::open(db, TuningCache::Mode::ReadWrite);
        for (const Tuned& t : tuned) {
          WinnerRecord w;
          // Canonical form of a row-major call; cuMemAlloc pointers are 16-byte aligned.
          const bool aligned = lead_a(t.c) % 4 == 0 && lead_b(t.c) % 4 == 0 && lead_c(t.c) % 4 == 0;
          w.shape = ShapeKey{t.c.m, t.c.n, t.c.k, t.c.ta, t.c.tb, aligned};
          w.family = t.cfg.family().name();
          w.config = t.cfg.to_string();
          w.template_hash = template_hash(t.cfg);
          w.median_ms = 1, w.gflops = 1, w.tuned_at = 1;
          if (!cache->record_winner(dev.key(), w, TuningCost{})) {
            std::printf("sanitizer_cases: the cache refused the winner %s\n", w.config.c_str());
            return 1;
          }
        }
      }
      if (autogemm_init(db.c_str()) != AUTOGEMM_SUCCESS) return 1;
      for (const Tuned& t : tuned) ok = run_case(t.c, stream.get(), t.expect) && ok;
      if (std::system(("rm -rf " + std::string(tmpl)).c_str()) != 0) std::printf("could not remove %s\n", tmpl);
    }
    autogemm_shutdown();
  } catch (const std::exception& e) {
    std::printf("sanitizer_cases: %s\n", e.what());
    return 1;
  }
  std::printf("sanitizer_cases: %s\n", ok ? "all correct" : "FAILURES");
  return ok ? 0 : 1;
}
