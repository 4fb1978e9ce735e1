// Recorded shapes (table requested_shapes, schema version 4; a batch bucket
// in the key since 5): counts add up over writes and processes, times keep
// the first and the last sight, bad values store nothing, a batch is a shape
// of its own, and a released version 2 file gains the table with its rows.
#include <filesystem>

#include "cache_test_util.h"

namespace autogemm::test {
namespace {

ShapeRequest request(const ShapeKey& s, int64_t calls, bool tuned, int64_t first, int64_t last) {
  return ShapeRequest{s, calls, tuned, first, last};
}

TEST(Requests, CountsAddUpAndTimesKeepFirstAndLast) {
  TempDir dir;
  auto cache = open_rw(dir.file("c.db"));
  const ShapeKey a = shape(4096, 4096, 4096), b = shape(17, 4096, 4096, true, false, false);
  cache->record_requests(h200(), {request(a, 10, false, 1000, 1010), request(b, 3, false, 1005, 1005)});
  cache->record_requests(h200(), {request(a, 5, true, 900, 2000)});
  const auto got = cache->load_requests(h200());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].shape, a);  // most calls first
  EXPECT_EQ(got[0].calls, 15);
  EXPECT_TRUE(got[0].tuned_when_seen);  // from the later sighting
  EXPECT_EQ(got[0].first_seen, 900);
  EXPECT_EQ(got[0].last_seen, 2000);
  EXPECT_EQ(got[1].shape, b);
  EXPECT_EQ(got[1].calls, 3);
  EXPECT_FALSE(got[1].tuned_when_seen);
  // An older sighting does not overwrite the later one's tuned flag.
  cache->record_requests(h200(), {request(a, 1, false, 950, 1500)});
  EXPECT_TRUE(cache->load_requests(h200())[0].tuned_when_seen);
  EXPECT_EQ(cache->load_requests(h200())[0].calls, 16);
}

TEST(Requests, DevicesAreKeptApart) {
  TempDir dir;
  auto cache = open_rw(dir.file("c.db"));
  DeviceKey other = h200();
  other.driver_version = 12080;
  cache->record_requests(h200(), {request(shape(64, 64, 64), 2, false, 0, 0)});
  cache->record_requests(other, {request(shape(128, 64, 64), 7, false, 0, 0)});
  ASSERT_EQ(cache->load_requests(h200()).size(), 1u);
  EXPECT_EQ(cache->load_requests(h200())[0].shape, shape(64, 64, 64));
  ASSERT_EQ(cache->load_requests(other).size(), 1u);
  EXPECT_GT(cache->load_requests(other)[0].first_seen, 0);  // 0 on input means now
}

TEST(Requests, BadValuesStoreNothing) {
  TempDir dir;
  auto cache = open_rw(dir.file("c.db"));
  const ShapeRequest good = request(shape(64, 64, 64), 2, false, 0, 0);
  EXPECT_THROW(cache->record_requests(h200(), {good, request(shape(0, 64, 64), 1, false, 0, 0)}), CacheError);
  EXPECT_THROW(cache->record_requests(h200(), {good, request(shape(64, 64, 64), -1, false, 0, 0)}), CacheError);
  EXPECT_THROW(cache->record_requests(h200(), {good, request(shape(64, 64, 64), 1, false, -5, 0)}), CacheError);
  EXPECT_TRUE(cache->load_requests(h200()).empty());
}

TEST(Requests, CorruptRowsAreSkippedNotTrusted) {
  TempDir dir;
  const std::string path = dir.file("c.db");
  open_rw(path)->record_requests(h200(), {request(shape(64, 64, 64), 2, false, 0, 0)});
  // Columns: device, m, n, k, trans_a, trans_b, aligned, batch, calls, tuned, first, last.
  raw_sql(path, "INSERT INTO requested_shapes VALUES (1, -3, 64, 64, 0, 0, 1, 1, 5, 0, 1, 1);"
                "INSERT INTO requested_shapes VALUES (1, 8, 8, 8, 0, 0, 1, 1, 'many', 0, 1, 1);"
                "INSERT INTO requested_shapes VALUES (1, 8, 8, 8, 0, 0, 1, 12, 5, 0, 1, 1);"   // not a bucket
                "INSERT INTO requested_shapes VALUES (1, 8, 8, 8, 0, 0, 1, 0, 5, 0, 1, 1);");
  const auto got = open_rw(path)->load_requests(h200());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].shape, shape(64, 64, 64));
}

TEST(Requests, CoverageViewSetsTheRecordAgainstTheWinners) {
  TempDir dir;
  const std::string path = dir.file("c.db");
  auto cache = open_rw(path);
  const ShapeKey tuned = shape(256, 256, 256), untuned = shape(33, 512, 512, false, false, false);
  cache->record_winner(h200(), winner(tuned, "tiled bm=64", 0.01, 0.0001), cost());
  cache->record_requests(h200(), {request(tuned, 9, true, 0, 0), request(untuned, 4, false, 0, 0)});
  EXPECT_EQ(raw_query(path, "SELECT m || ':' || calls || ':' || tuned FROM shape_coverage"),
            (std::vector<std::string>{"256:9:yes", "33:4:no"}));
}

TEST(Requests, AReleasedVersion2FileGainsTheTableAndKeepsItsRows) {
  TempDir dir;
  const std::string path = dir.file("v2.db");
  std::filesystem::copy_file(std::string(CACHE_TEST_DATA) + "/v2_release.db", path);
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  EXPECT_THROW(TuningCache::open(path, TuningCache::Mode::ReadOnly), CacheError);  // read-only cannot migrate
  auto cache = open_rw(path);
  EXPECT_EQ(raw_query(path, "PRAGMA user_version")[0], std::to_string(TuningCache::schema_version()));
  EXPECT_EQ(cache->load_winners(h200()).size(), 4u);
  cache->record_requests(h200(), {request(shape(512, 512, 512), 1, true, 0, 0)});
  EXPECT_EQ(cache->load_requests(h200()).size(), 1u);
}

TEST(Requests, ABatchIsItsOwnShape) {
  TempDir dir;
  auto cache = open_rw(dir.file("c.db"));
  ShapeKey batched = shape(64, 64, 64);
  batched.batch = 4096;
  cache->record_requests(h200(), {request(shape(64, 64, 64), 3, false, 0, 0), request(batched, 5, false, 0, 0)});
  const auto got = cache->load_requests(h200());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].shape, batched);  // most called first
  EXPECT_EQ(got[0].calls, 5);
  EXPECT_EQ(got[1].shape.batch, 1);
  batched.batch = 4095;  // not a bucket: names no call
  EXPECT_THROW(cache->record_requests(h200(), {request(batched, 1, false, 0, 0)}), CacheError);
}

}  // namespace
}  // namespace autogemm::test
