// The public suite and shapes files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "autogemm/tuner.h"

namespace autogemm {
namespace {

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/autogemm-shapes-XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << text;
  return path;
}

TEST(Suite, IsThePublicSuite) {
  const auto s = default_suite();
  EXPECT_EQ(s.size(), 28u);
  std::set<std::string> names;
  for (const auto& x : s) names.insert(x.to_string());
  for (const char* want : {"128x128x128:NN", "8192x8192x8192:NN", "127x257x509:NN", "1x11008x4096:NN",
                           "2048x4096x11008:NN", "64x64x65536:NN", "8192x8192x256:NN", "4096x4096x128:NN",
                           "4096x4096x4096:NT", "4096x4096x4096:TN"})
    EXPECT_TRUE(names.count(want)) << want;
}

TEST(ShapesFile, ReadsShapesCommentsAndBlankLines) {
  const std::string path = write_temp("# my shapes\n4096x4096x4096\n\n  128x256x64:NT  # inline\r\ncol:7x9x11:TT\n");
  const auto s = read_shapes_file(path);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[1].to_string(), "128x256x64:NT");
  EXPECT_EQ(s[2].layout, AUTOGEMM_COL_MAJOR);
  std::remove(path.c_str());
}

TEST(ShapesFile, BadLineIsReportedWithItsNumber) {
  const std::string path = write_temp("4096x4096x4096\n12x0x5\n");
  try {
    read_shapes_file(path);
    FAIL() << "accepted a zero dimension";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(":2:"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(ShapesFile, MissingFileIsAClearError) {
  EXPECT_THROW(read_shapes_file("/nonexistent/shapes.txt"), std::runtime_error);
}

}  // namespace
}  // namespace autogemm

namespace autogemm {
namespace {

TEST(ResolveShapes, CommandLineThenFileElseSuite) {
  EXPECT_EQ(resolve_shapes({}, "").size(), default_suite().size());
  const std::string path = write_temp("7x8x9:TT\n");
  const auto s = resolve_shapes({"1x2x3", "col:4x5x6:NT"}, path);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].to_string(), "1x2x3:NN");
  EXPECT_EQ(s[1].to_string(), "col:4x5x6:NT");
  EXPECT_EQ(s[2].to_string(), "7x8x9:TT");
  EXPECT_THROW(resolve_shapes({"4096x4096"}, ""), std::runtime_error);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace autogemm
