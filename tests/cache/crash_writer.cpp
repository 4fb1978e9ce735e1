// crash_writer: a helper of test_cache_crash. Writes rows to a tuning cache
// through TuningCache in an endless loop and acknowledges each one on stdout
// once it is committed, until it is killed.
//
//   crash_writer <db> <first-index>
//
// Row i (from first-index on): 20 trials of shape (i+1)x64x32, then a winner
// for that shape, then a 16 KiB cubin keyed by config "tiled cfg_<i>_0"; then the
// line "<i>\n" is written with one write(2) (atomic on a pipe), so a line the
// test has read names a row whose three commits all returned.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "autogemm/tuning_cache.h"
#include "crash_rows.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: crash_writer <db> <first-index>\n");
    return 2;
  }
  using namespace autogemm;
  try {
    auto cache = TuningCache::open(argv[1], TuningCache::Mode::ReadWrite);
    for (long i = std::atol(argv[2]); i < std::atol(argv[2]) + 1000000; ++i) {
      cache->record_trials(crash_rows::device(), crash_rows::shape(i), crash_rows::kFamily,
                           crash_rows::kHash, crash_rows::trials(i));
      cache->record_winner(crash_rows::device(), crash_rows::winner(i), {20, 0.5, 1.0, "test"});
      cache->store_cubin(crash_rows::cubin_key(i), crash_rows::cubin(i));
      const std::string line = "ACK " + std::to_string(i) + "\n";
      if (write(1, line.data(), line.size()) != ssize_t(line.size())) return 3;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "crash_writer: %s\n", e.what());
    return 1;
  }
  return 0;
}
