// The embedded kernel sources are the files on disk, byte for byte, with
// their SHA-256; KernelTemplate exposes them, and the families own theirs
// (with their entry points and launch geometry).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "autogemm/embedded_sources.h"
#include "autogemm/kernel_template.h"
#include "autogemm/problem.h"

#ifndef AUTOGEMM_SOURCE_DIR
#error "AUTOGEMM_SOURCE_DIR must name the project source directory"
#endif

namespace {

using autogemm::GenericFamily;
using autogemm::KernelConfig;
using autogemm::KernelTemplate;
using autogemm::TiledFamily;

const char* const kFiles[] = {"sgemm_tiled.cu", "sgemm_generic.cu", "gemm_reference.cu"};

std::string disk_path(const std::string& file) {
  return std::string(AUTOGEMM_SOURCE_DIR) + "/kernel_templates/" + file;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// SHA-256 of the files, concatenated, from coreutils' sha256sum; empty if
/// it cannot run.
std::string sha256sum(const std::string& paths) {
  FILE* f = popen(("cat " + paths + " | sha256sum 2>/dev/null").c_str(), "r");
  if (!f) return {};
  char buf[65] = {};
  const size_t n = fread(buf, 1, 64, f);
  pclose(f);
  return n == 64 ? std::string(buf, 64) : std::string();
}

bool is_lower_hex64(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

TEST(EmbeddedSources, AllThreeTemplatesAreEmbedded) {
  for (const char* file : kFiles) {
    SCOPED_TRACE(file);
    const autogemm::EmbeddedSource& s = autogemm::embedded_source(file);
    EXPECT_STREQ(s.file, file);
    ASSERT_NE(s.source, nullptr);
    EXPECT_GT(std::string(s.source).size(), 100u);
    ASSERT_NE(s.sha256, nullptr);
    EXPECT_TRUE(is_lower_hex64(s.sha256)) << s.sha256;
  }
  EXPECT_GE(autogemm::embedded_sources().size(), 3u);
}

TEST(EmbeddedSources, TextIsTheFileOnDiskByteForByte) {
  for (const char* file : kFiles) {
    SCOPED_TRACE(file);
    const std::string disk = read_file(disk_path(file));
    ASSERT_FALSE(disk.empty()) << "cannot read " << disk_path(file);
    const std::string embedded = autogemm::embedded_source(file).source;
    ASSERT_EQ(embedded.size(), disk.size());
    EXPECT_TRUE(embedded == disk) << "embedded text differs from " << disk_path(file);
  }
}

// The hash covers the source and the shared device header after it
// (cmake/embed_sources.cmake): editing the header re-tunes every family.
TEST(EmbeddedSources, HashIsTheSha256OfTheFileAndTheSharedHeader) {
  for (const char* file : kFiles) {
    SCOPED_TRACE(file);
    const std::string want = sha256sum("'" + disk_path(file) + "' '" + disk_path("agemm_device.cuh") + "'");
    if (want.empty()) GTEST_SKIP() << "sha256sum is not available";
    EXPECT_EQ(autogemm::embedded_source(file).sha256, want);
  }
}

TEST(EmbeddedSources, HashesAreDistinct) {
  const auto& all = autogemm::embedded_sources();
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = i + 1; j < all.size(); ++j) {
      EXPECT_STRNE(all[i].file, all[j].file);
      EXPECT_STRNE(all[i].sha256, all[j].sha256) << all[i].file << " vs " << all[j].file;
    }
}

TEST(EmbeddedSources, UnknownFileThrowsOutOfRange) {
  EXPECT_THROW(autogemm::embedded_source("nope.cu"), std::out_of_range);
  EXPECT_THROW(autogemm::embedded_source(""), std::out_of_range);
  EXPECT_THROW(autogemm::embedded_source("kernel_templates/sgemm_tiled.cu"), std::out_of_range);
}

// ---- KernelTemplate and the families' sources ---------------------------------

TEST(KernelTemplates, FamiliesMapToTheirFilesAndEntryPoints) {
  const KernelTemplate& tiled = TiledFamily::instance().source();
  const KernelTemplate& generic = GenericFamily::instance().source();
  const KernelTemplate& ref = KernelTemplate::reference();
  EXPECT_EQ(tiled.file(), "sgemm_tiled.cu");
  EXPECT_EQ(generic.file(), "sgemm_generic.cu");
  EXPECT_EQ(ref.file(), "gemm_reference.cu");
  const KernelConfig t = *KernelConfig::parse("tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=1 sk=1 sw=4 ta=0 tb=0");
  const KernelConfig t_rd0 =
      *KernelConfig::parse("tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=1 sk=4 rd=0 sw=4 ta=0 tb=0");
  const KernelConfig t_rd1 =
      *KernelConfig::parse("tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=1 sk=4 rd=1 sw=4 ta=0 tb=0");
  const KernelConfig g = KernelConfig::generic(true, false);
  using Entries = std::vector<std::string>;
  EXPECT_EQ(TiledFamily::instance().entry_points(t), Entries{"agemm_tiled"});
  EXPECT_EQ(TiledFamily::instance().entry_points(t_rd0), Entries{"agemm_tiled"});
  // rd=1: a second kernel reduces the split-K slices.
  EXPECT_EQ(TiledFamily::instance().entry_points(t_rd1), (Entries{"agemm_tiled", "agemm_splitk_reduce"}));
  EXPECT_EQ(GenericFamily::instance().entry_points(g), Entries{"agemm_generic"});
  const std::pair<const KernelTemplate*, Entries> sources[] = {
      {&tiled, {"agemm_tiled", "agemm_splitk_reduce"}},
      {&generic, {"agemm_generic"}},
      {&ref, {"agemm_reference", "agemm_check", "agemm_fill_random"}},
  };
  for (const auto& [tpl, entries] : sources) {
    SCOPED_TRACE(tpl->file());
    EXPECT_EQ(tpl->source(), autogemm::embedded_source(tpl->file()).source);
    EXPECT_EQ(tpl->hash(), autogemm::embedded_source(tpl->file()).sha256);
    EXPECT_NE(tpl->source().find(std::string("extern \"C\" __global__")), std::string::npos);
    for (const std::string& e : entries) EXPECT_NE(tpl->source().find(e + "("), std::string::npos) << e;
  }
  EXPECT_NE(tiled.hash(), generic.hash());
  EXPECT_NE(tiled.hash(), ref.hash());
  EXPECT_NE(generic.hash(), ref.hash());
  EXPECT_EQ(autogemm::template_hash(g), generic.hash());
  EXPECT_EQ(autogemm::template_hash(t), tiled.hash());
  // A KernelTemplate of a file that was not embedded cannot exist.
  EXPECT_THROW(KernelTemplate("nope.cu"), std::out_of_range);
}

TEST(KernelTemplates, HostAndKernelAgreeOnSharedMemoryPadding) {
  // TiledFamily::smem_bytes() assumes AG_PAD == 4 and AG_NBUF buffers
  // (two with register staging, AG_STAGES with cp.async).
  const std::string& src = TiledFamily::instance().source().source();
  EXPECT_NE(src.find("#define AG_PAD 4\n"), std::string::npos);
  EXPECT_NE(src.find("#define AG_NBUF (AG_STAGES > 0 ? AG_STAGES : 2)\n"), std::string::npos);
  EXPECT_NE(src.find("[AG_NBUF][AG_BK][AG_LDS_A]"), std::string::npos);
  EXPECT_NE(src.find("[AG_NBUF][AG_BK][AG_LDS_B]"), std::string::npos);
}

autogemm::Problem problem(int64_t m, int64_t n, int64_t k) {
  autogemm::Problem p;
  p.m = m, p.n = n, p.k = k, p.lda = k, p.ldb = n, p.ldc = n, p.aligned = true;
  return p;
}

TEST(KernelTemplates, TiledGeometry) {
  const KernelConfig c =
      *KernelConfig::parse("tiled bm=128 bn=64 bk=16 tm=8 tn=4 wc=8 vec=4 sk=4 rd=0 sw=8 ta=0 tb=0");
  const auto g = c.family().geometry(c, problem(1000, 130, 77));
  EXPECT_EQ(g.grid_x, 8u * 3u);  // ceil(1000/128) * ceil(130/64)
  EXPECT_EQ(g.grid_y, 1u);
  EXPECT_EQ(g.grid_z, 4u);
  EXPECT_EQ(g.block, unsigned(c.threads()));
  EXPECT_EQ(g.block, 256u);
  EXPECT_EQ(g.smem, unsigned(c.smem_bytes()));
  const auto one = c.family().geometry(c, problem(1, 1, 1));
  EXPECT_EQ(one.grid_x, 1u);
}

TEST(KernelTemplates, GenericGeometry) {
  const KernelConfig c = KernelConfig::generic(false, false);
  const auto g = c.family().geometry(c, problem(33, 17, 5));
  EXPECT_EQ(g.grid_x, 3u * 2u);  // 16 x 16 tiles
  EXPECT_EQ(g.grid_y, 1u);
  EXPECT_EQ(g.grid_z, 1u);
  EXPECT_EQ(g.block, 256u);
  EXPECT_EQ(g.smem, 0u);
}

}  // namespace
