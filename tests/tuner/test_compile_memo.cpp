// CompileMemo: the tuner's kept NVRTC builds (tuner/src/compile_memo.h).
#include <gtest/gtest.h>

#include "autogemm/kernel_launch.h"
#include "compile_memo.h"

namespace autogemm {
namespace {

CompileResult build(size_t cubin_bytes, const std::string& log = "") {
  CompileResult r;
  r.cubin.assign(cubin_bytes, 'x');
  r.log = log;
  r.seconds = 1.5;
  return r;
}

TEST(CompileMemo, KeyNamesTemplateTargetAndConfig) {
  const KernelConfig a = *KernelConfig::parse("tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=4 sk=1 sw=1 ta=0 tb=0");
  const KernelConfig b = *KernelConfig::parse("tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=1 sk=1 sw=1 ta=0 tb=0");
  EXPECT_EQ(CompileMemo::key(a, "sm_90"), CompileMemo::key(a, "sm_90"));
  EXPECT_NE(CompileMemo::key(a, "sm_90"), CompileMemo::key(a, "sm_80"));
  EXPECT_NE(CompileMemo::key(a, "sm_90"), CompileMemo::key(b, "sm_90"));
  EXPECT_NE(CompileMemo::key(a, "sm_90").find(template_hash(a)), std::string::npos);
}

TEST(CompileMemo, GivesBackWhatWasKeptWithNoTimeSpent) {
  CompileMemo memo(1 << 20);
  EXPECT_FALSE(memo.find("k").has_value());
  memo.put("k", build(100, "a warning"));
  const auto hit = memo.find("k");
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->cubin, build(100).cubin);
  EXPECT_EQ(hit->log, "a warning");
  EXPECT_EQ(hit->seconds, 0.0);
  EXPECT_FALSE(memo.find("other").has_value());
  memo.put("k", build(5000));  // a second build of one key changes nothing
  EXPECT_EQ(memo.find("k")->cubin.size(), 100u);
  EXPECT_EQ(memo.size(), 1u);
}

TEST(CompileMemo, DropsTheLeastRecentlyUsedPastItsBound) {
  CompileMemo memo(3000);
  memo.put("a", build(900));
  memo.put("b", build(900));
  memo.put("c", build(900));
  ASSERT_TRUE(memo.find("a").has_value());  // "a" is now the most recent, "b" the oldest
  memo.put("d", build(900));
  EXPECT_FALSE(memo.find("b").has_value());
  for (const char* k : {"a", "c", "d"}) EXPECT_TRUE(memo.find(k).has_value()) << k;
  EXPECT_LE(memo.bytes(), 3000u);
  memo.put("huge", build(4000));  // larger than the bound: not kept, nothing dropped
  EXPECT_FALSE(memo.find("huge").has_value());
  EXPECT_EQ(memo.size(), 3u);
}

TEST(CompileMemo, AKeptBuildIsTheBytesACompileGives) {
  const KernelConfig c = *KernelConfig::parse("tiled bm=32 bn=32 bk=8 tm=2 tn=2 wc=8 vec=4 sk=1 sw=1 ta=0 tb=0");
  const CompileResult first = compile_kernel(c, "sm_90");
  CompileMemo memo(size_t(8) << 20);
  memo.put(CompileMemo::key(c, "sm_90"), first);
  const auto kept = memo.find(CompileMemo::key(c, "sm_90"));
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->cubin, compile_kernel(c, "sm_90").cubin);
  RecordProperty("cubin_bytes", int(first.cubin.size()));
}

}  // namespace
}  // namespace autogemm
