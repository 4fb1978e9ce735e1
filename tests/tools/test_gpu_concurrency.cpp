// GPU: many processes and threads on one tuning cache file at once (issue 4,
// item 4). Four gemm_tune processes tune different and overlapping shapes into
// one --db while this process runs 8 threads, each calling autogemm_sgemm on
// its own stream and its own matrices with the same file as its cache
// (autogemm_init). At the end: every gemm_tune exited 0, none printed
// "database is locked" / SQLITE_BUSY, every shape has a winner, the file
// passes integrity_check, and every product was correct (host FP64
// reference, random non-zero inputs, C poisoned with NaN before each call,
// relative Frobenius error <= 1e-5 and per element |c - ref| <=
// (K+2) 2^-24 |alpha| sum_k |a_ik b_kj|; NaN fails). Then, with the file
// re-read (autogemm_init again), the 8 threads run once more and the tuned
// shapes must dispatch as exact hits.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "autogemm/autogemm.h"
#include "autogemm/cuda_driver.h"
#include "autogemm/shape_spec.h"
#include "kill_child.h"
#include "tune_db.h"

namespace {

using namespace autogemm::testing;  // NOLINT: the test helpers
using autogemm::DeviceBuffer;
using autogemm::ScopedPrimaryContext;
using autogemm::Stream;

const std::string GEMM_TUNE = beside_self(TOOLS_REL, "gemm_tune");

// Shapes tuned; tuner i gets shapes i and i+1 (mod 4): each shape is tuned by
// two processes (overlap), each process has a shape no other has first.
const std::vector<std::string> kTuned = {"192x128x256", "256x192x128", "160x160x160:NT", "128x256x64:TN"};

struct GemmCase {
  bool ta = false, tb = false;
  int m = 0, n = 0, k = 0;
  std::vector<float> a, b;
  std::vector<double> ref, mag;  // FP64 product and sum |a b| per element
  DeviceBuffer da, db, dc;
  int lda() const { return ta ? m : k; }
  int ldb() const { return tb ? k : n; }
};

float rnd(std::mt19937& g) {
  const float u = std::uniform_real_distribution<float>(0.25f, 1.0f)(g);
  return (g() & 1) ? -u : u;
}

void make_case(GemmCase& c, std::mt19937& g) {
  c.a.resize(size_t(c.m) * c.k);
  c.b.resize(size_t(c.k) * c.n);
  for (float& v : c.a) v = rnd(g);
  for (float& v : c.b) v = rnd(g);
  c.ref.assign(size_t(c.m) * c.n, 0.0);
  c.mag.assign(size_t(c.m) * c.n, 0.0);
  for (int i = 0; i < c.m; ++i)
    for (int p = 0; p < c.k; ++p) {
      const double a = c.ta ? c.a[size_t(p) * c.lda() + i] : c.a[size_t(i) * c.lda() + p];
      for (int j = 0; j < c.n; ++j) {
        const double t = a * (c.tb ? c.b[size_t(j) * c.ldb() + p] : c.b[size_t(p) * c.ldb() + j]);
        c.ref[size_t(i) * c.n + j] += t;
        c.mag[size_t(i) * c.n + j] += std::fabs(t);
      }
    }
  c.da = DeviceBuffer(c.a.size() * 4);
  c.db = DeviceBuffer(c.b.size() * 4);
  c.dc = DeviceBuffer(c.ref.size() * 4);
  AUTOGEMM_CU(cuMemcpyHtoD(c.da.get(), c.a.data(), c.a.size() * 4));
  AUTOGEMM_CU(cuMemcpyHtoD(c.db.get(), c.b.data(), c.b.size() * 4));
}

// "" if C is right, else why.
std::string judge(const GemmCase& c, const std::vector<float>& out, float alpha) {
  double sq = 0, rsq = 0;
  size_t bad = 0;
  std::ostringstream first;
  for (size_t e = 0; e < out.size(); ++e) {
    const double ref = alpha * c.ref[e];
    const double d = std::fabs(double(out[e]) - ref);
    const double bound = (double(c.k) + 2) * 5.9604644775390625e-08 * std::fabs(alpha) * c.mag[e] + 1e-30;
    sq += d * d;
    rsq += ref * ref;
    if (!(d <= bound) && bad++ == 0)
      first << "C(" << e / c.n << ", " << e % c.n << ") = " << out[e] << ", FP64 " << ref << ", bound " << bound;
  }
  const double rel = std::sqrt(sq / rsq);
  if (bad == 0 && rel <= 1e-5) return "";
  std::ostringstream s;
  s << c.m << "x" << c.n << "x" << c.k << ":" << (c.ta ? 'T' : 'N') << (c.tb ? 'T' : 'N') << ": " << bad
    << " elements over their bound or NaN (first: " << first.str() << "), relative error " << rel;
  return s.str();
}

struct Shared {
  std::atomic<bool> stop{false};
  std::atomic<long> products{0};
  std::mutex mu;
  std::vector<std::string> failures;
  void fail(const std::string& why) {
    std::lock_guard<std::mutex> l(mu);
    if (failures.size() < 20) failures.push_back(why);
  }
};

// One of the 8 threads: own context binding, stream, matrices; loops over its
// cases (its own odd shape, then the tuned shapes) until told to stop, at
// least `min_rounds` times.
void worker(int t, Shared& sh, int min_rounds) {
  try {
    ScopedPrimaryContext ctx(0);
    Stream stream;
    std::mt19937 g(1000 + t);
    std::vector<std::unique_ptr<GemmCase>> cases;
    auto add = [&](int m, int n, int k, bool ta, bool tb) {
      auto c = std::make_unique<GemmCase>();
      c->m = m, c->n = n, c->k = k, c->ta = ta, c->tb = tb;
      make_case(*c, g);
      cases.push_back(std::move(c));
    };
    add(67 + 13 * t, 45 + 7 * t, 33 + 11 * t, t & 1, t & 2);  // its own, unaligned
    for (const std::string& s : kTuned) {
      autogemm::ShapeSpec spec;
      std::string why;
      if (!autogemm::parse_shape(s, &spec, &why)) throw std::runtime_error("bad shape " + s);
      add(int(spec.m), int(spec.n), int(spec.k), spec.trans_a, spec.trans_b);
    }
    const float alpha = 1.25f;
    for (int round = 0; round < min_rounds || !sh.stop.load(); ++round) {
      for (auto& cp : cases) {
        GemmCase& c = *cp;
        AUTOGEMM_CU(cuMemsetD32Async(c.dc.get(), 0x7fc00000u, c.ref.size(), stream.get()));  // NaN poison
        const autogemm_status st =
            autogemm_sgemm(AUTOGEMM_ROW_MAJOR, c.ta ? AUTOGEMM_TRANS : AUTOGEMM_NO_TRANS,
                           c.tb ? AUTOGEMM_TRANS : AUTOGEMM_NO_TRANS, c.m, c.n, c.k, alpha, c.da.as<float>(),
                           c.lda(), c.db.as<float>(), c.ldb(), 0.0f, c.dc.as<float>(), c.n, stream.get());
        if (st != AUTOGEMM_SUCCESS) {
          sh.fail("thread " + std::to_string(t) + ": autogemm_sgemm: " + autogemm_status_string(st));
          return;
        }
        stream.synchronize();
        std::vector<float> out(c.ref.size());
        AUTOGEMM_CU(cuMemcpyDtoH(out.data(), c.dc.get(), out.size() * 4));
        const std::string why = judge(c, out, alpha);
        if (!why.empty()) sh.fail("thread " + std::to_string(t) + " round " + std::to_string(round) + ": " + why);
        sh.products.fetch_add(1);
      }
    }
  } catch (const std::exception& e) {
    sh.fail("thread " + std::to_string(t) + ": " + e.what());
  }
}

void run_threads(Shared& sh, int min_rounds, const std::function<void()>& while_running) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) threads.emplace_back(worker, t, std::ref(sh), min_rounds);
  while_running();
  sh.stop = true;
  for (std::thread& th : threads) th.join();
}

TEST(GpuConcurrency, FourTunersAndEightThreadsShareOneCacheFile) {
  std::string why;
  if (!autogemm::gpu_available(&why)) GTEST_SKIP() << "no GPU on this machine: " << why;
  ASSERT_EQ(access(GEMM_TUNE.c_str(), X_OK), 0) << "gemm_tune not found at " << GEMM_TUNE;
  char tmpl[] = "/tmp/autogemm-concurrency-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl, db = dir + "/tuning.db";
  ScopedPrimaryContext main_ctx(0);
  ASSERT_EQ(autogemm_init(db.c_str()), AUTOGEMM_SUCCESS) << "a missing cache file is fine (defaults)";

  // Phase 1: 4 tuners and 8 threads at once.
  std::vector<std::unique_ptr<Child>> tuners;
  for (int i = 0; i < 4; ++i) {
    std::vector<std::string> argv = {GEMM_TUNE, "--device", "0", "--db", db, "--budget", "3", "--seed",
                                     std::to_string(i + 1)};
    for (int j : {i, (i + 1) % 4}) argv.insert(argv.end(), {"--shape", kTuned[j]});
    tuners.push_back(std::make_unique<Child>(argv));
  }
  Shared sh;
  std::vector<ChildRun> runs(4);
  run_threads(sh, 3, [&] {
    // One reader per tuner, so no tuner blocks on a full pipe; kill after 10 min.
    std::vector<std::thread> readers;
    for (int i = 0; i < 4; ++i) readers.emplace_back([&, i] { runs[i] = tuners[i]->run(600); });
    for (std::thread& r : readers) r.join();
  });
  const long phase1 = sh.products.load();
  for (int i = 0; i < 4; ++i) {
    const std::string text = runs[i].out + runs[i].err;
    EXPECT_FALSE(runs[i].killed) << "gemm_tune " << i << " still running after 10 minutes:\n" << text;
    EXPECT_EQ(runs[i].exit_status, 0) << "gemm_tune " << i << ":\n" << text;
    EXPECT_EQ(text.find("database is locked"), std::string::npos) << "gemm_tune " << i << ":\n" << text;
    EXPECT_EQ(text.find("SQLITE_BUSY"), std::string::npos) << "gemm_tune " << i << ":\n" << text;
  }
  for (const std::string& f : sh.failures) ADD_FAILURE() << "during tuning: " << f;

  const TuneDbState st = read_tune_db(db, kTuned);
  ASSERT_TRUE(st.opened) << st.open_error;
  EXPECT_EQ(st.integrity, "ok");
  for (const std::string& s : kTuned)
    EXPECT_EQ(st.winners.count(canonical_shape(s)), 1u) << canonical_shape(s) << " has no winner";

  // Phase 2: the library re-reads the file; tuned shapes are exact hits.
  ASSERT_EQ(autogemm_init(db.c_str()), AUTOGEMM_SUCCESS);
  autogemm_stats before{}, after{};
  autogemm_get_stats(&before);
  Shared sh2;
  run_threads(sh2, 2, [] {});
  autogemm_get_stats(&after);
  for (const std::string& f : sh2.failures) ADD_FAILURE() << "after tuning: " << f;
  // Each thread: 2 rounds x 4 tuned shapes.
  EXPECT_GE(after.exact_hits - before.exact_hits, 8u * 2 * 4) << "tuned shapes did not dispatch from the cache";
  std::printf("[ concur   ] %ld products checked during tuning, %ld after; exact hits %llu\n", phase1,
              sh2.products.load(), after.exact_hits - before.exact_hits);
  if (std::system(("rm -rf " + dir).c_str()) != 0) std::printf("could not remove %s\n", dir.c_str());
}

}  // namespace
