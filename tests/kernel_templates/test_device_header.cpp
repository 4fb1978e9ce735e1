// The shared device header, agemm_device.cuh: the family sources include it,
// the build embeds it for NVRTC (no include path at run time), and it is part
// of every source's template hash, so editing it re-tunes every family.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "autogemm/embedded_sources.h"
#include "autogemm/kernel_families.h"
#include "autogemm/kernel_template.h"

#ifndef AUTOGEMM_SOURCE_DIR
#error "AUTOGEMM_SOURCE_DIR must name the project source directory"
#endif

namespace {

const char kHeader[] = "agemm_device.cuh";

std::string disk(const std::string& file) {
  std::ifstream in(std::string(AUTOGEMM_SOURCE_DIR) + "/kernel_templates/" + file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// SHA-256 of `text` from coreutils' sha256sum; empty if it cannot run.
std::string sha256_of(const std::string& text) {
  const std::string path = ::testing::TempDir() + "agemm_hash_input";
  std::ofstream(path, std::ios::binary) << text;
  FILE* f = popen(("sha256sum '" + path + "' 2>/dev/null").c_str(), "r");
  if (!f) return {};
  char buf[65] = {};
  const size_t n = fread(buf, 1, 64, f);
  pclose(f);
  std::remove(path.c_str());
  return n == 64 ? std::string(buf, 64) : std::string();
}

TEST(DeviceHeader, IsEmbeddedAsTheFileOnDisk) {
  ASSERT_EQ(autogemm::embedded_headers().size(), 1u);
  const autogemm::EmbeddedSource& h = autogemm::embedded_headers()[0];
  EXPECT_STREQ(h.file, kHeader);
  const std::string text = disk(kHeader);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(std::string(h.source), text);
  // The header is no template: it is not looked up as a source.
  EXPECT_THROW(autogemm::embedded_source(kHeader), std::out_of_range);
}

TEST(DeviceHeader, EveryFamilySourceIncludesIt) {
  const std::string include = std::string("#include \"") + kHeader + "\"";
  for (const autogemm::KernelFamily* f : autogemm::all_families()) {
    SCOPED_TRACE(f->source().file());
    EXPECT_NE(f->source().source().find(include), std::string::npos);
  }
  EXPECT_NE(autogemm::KernelTemplate::reference().source().find(include), std::string::npos);
}

TEST(DeviceHeader, IsPartOfEveryTemplateHash) {
  const std::string header = autogemm::embedded_headers()[0].source;
  if (sha256_of("").empty()) GTEST_SKIP() << "sha256sum is not available";
  for (const autogemm::EmbeddedSource& s : autogemm::embedded_sources()) {
    SCOPED_TRACE(s.file);
    // The hash is that of the text followed by the header's...
    EXPECT_EQ(s.sha256, sha256_of(std::string(s.source) + header));
    // ...so it is not the text's alone, and another header gives another.
    EXPECT_NE(s.sha256, sha256_of(s.source));
    EXPECT_NE(s.sha256, sha256_of(std::string(s.source) + header + " "));
  }
}

}  // namespace
