// A v2 cache written by release 8235a95 (tests/cache/data/v2_release.db)
// dispatches the same kernels after this build migrated it: every stored
// winner is usable (same family, its config parses) and is the exact choice
// for its shape, as the release chose it. Also: the library's read-only open
// of the migrated file sees the same. The tiled template has changed since
// that release (strided batches), so its rows are stale by template hash,
// which `autogemm_cache prune` handles; the test re-stamps them with today's
// hash, so what it checks is what the migration kept of each row.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "autogemm/dispatch_policy.h"
#include "autogemm/kernel_template.h"
#include "autogemm/tuning_cache.h"

namespace autogemm {
namespace {

namespace fs = std::filesystem;

const DeviceKey kH200{"NVIDIA H200", 9, 0, 132, 13000, 13000};

Problem problem_of(const ShapeKey& s) {
  Problem p;
  p.m = s.m, p.n = s.n, p.k = s.k;
  p.trans_a = s.trans_a, p.trans_b = s.trans_b;
  p.lda = s.trans_a ? s.m : s.k;
  p.ldb = s.trans_b ? s.k : s.n;
  p.ldc = s.n;
  p.aligned = s.aligned;
  return p;
}

TEST(DispatchMigrated, AVersion2CacheDispatchesTheSameKernelsUnderVersion3) {
  const fs::path dir = fs::temp_directory_path() / ("autogemm_migrated_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string db = (dir / "tuning.db").string();
  fs::copy_file(AUTOGEMM_V2_FIXTURE, db, fs::copy_options::overwrite_existing);
  // What the release stored, read before any migration (as plain rows).
  std::vector<WinnerRecord> stored;
  {
    auto cache = TuningCache::open(db, TuningCache::Mode::ReadWrite);  // migrates
    stored = cache->load_winners(kH200);
    ASSERT_FALSE(stored.empty());
    // A stale incumbent is replaced by the same row under today's hash.
    const std::string today = template_hash(*KernelConfig::parse(stored[0].config));
    for (WinnerRecord& w : stored) {
      w.template_hash = today;
      ASSERT_TRUE(cache->record_winner(kH200, w, TuningCost{1, 0, 0, "re-stamped"}));
    }
  }
  ASSERT_EQ(stored.size(), 4u);
  auto cache = TuningCache::open(db, TuningCache::Mode::ReadOnly);  // as the library opens it
  const std::vector<TunedEntry> usable = usable_winners(cache->load_winners(kH200));
  ASSERT_EQ(usable.size(), stored.size()) << "a migrated winner was dropped (stale or unparsable)";
  for (const WinnerRecord& w : stored) {
    EXPECT_EQ(w.family, "tiled");
    const PlanChoice c = choose_config(problem_of(w.shape), usable);
    EXPECT_EQ(c.source, PlanSource::Exact) << w.config;
    EXPECT_EQ(c.config.to_string(), w.config);
  }
  cache.reset();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace autogemm
