// Fuzz target: the worker protocol decoder (tuner/include/autogemm/
// worker_protocol.h), which reads bytes from another process: the tuner
// decodes what a (possibly dying or corrupted) autogemm_worker sent, and the
// worker decodes what the tuner sent.
//
// Invariants checked on every input:
//  - decode_frame never crashes; on failure it gives a non-empty error;
//  - an accepted frame is canonical: encoding the decoded message gives back
//    exactly the input bytes;
//  - the streaming reader (read_frame over a socket, the path the tuner and
//    worker use) agrees with decode_frame on the first frame of the input and
//    never crashes on what follows.
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "autogemm/worker_protocol.h"
#include "fuzz_util.h"

namespace wire = autogemm::wire;

namespace {

std::string hex_prefix(const uint8_t* d, size_t n) {
  static const char* x = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n && i < 32; ++i) s += std::string{x[d[i] >> 4], x[d[i] & 15]};
  return s;
}

/// Feeds `data` through a socketpair and reads frames until EOF or an error.
/// Small inputs only: the socket buffer must hold them all without a reader.
void stream(const uint8_t* data, size_t size, bool whole_frame_ok, const wire::Message* whole) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return;  // not a finding
  std::string why;
  const std::vector<uint8_t> bytes(data, data + size);
  const bool sent = wire::send_frame(sv[0], bytes, wire::Clock::now() + std::chrono::seconds(5), &why);
  close(sv[0]);
  FUZZ_CHECK(sent, "send_frame into an empty socket failed: " + why);
  for (int i = 0;; ++i) {
    wire::Message m;
    try {
      const wire::ReadStatus s = wire::read_frame(sv[1], &m, wire::Clock::now() + std::chrono::seconds(5));
      FUZZ_CHECK(s != wire::ReadStatus::Timeout, "read_frame timed out on buffered data");
      if (s == wire::ReadStatus::Eof) {
        FUZZ_CHECK(!(i == 0 && whole_frame_ok), "a valid frame read as EOF: " + hex_prefix(data, size));
        break;
      }
      if (i == 0 && whole_frame_ok) FUZZ_CHECK(m == *whole, "stream and buffer decodes differ: " + hex_prefix(data, size));
    } catch (const wire::ProtocolError& e) {
      FUZZ_CHECK(std::string(e.what()).size() > 0, "empty error");
      FUZZ_CHECK(!(i == 0 && whole_frame_ok), "a valid frame rejected by read_frame: " + std::string(e.what()));
      break;
    }
  }
  close(sv[1]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bool ok = false;
  wire::Message m;
  try {
    m = wire::decode_frame(data, size);
    ok = true;
  } catch (const wire::ProtocolError& e) {
    FUZZ_CHECK(std::string(e.what()).size() > 0, "rejected without an error: " + hex_prefix(data, size));
  }
  if (ok) {
    const std::vector<uint8_t> again = wire::encode(m);
    FUZZ_CHECK(again == std::vector<uint8_t>(data, data + size),
               "accepted frame is not canonical: " + hex_prefix(data, size));
  }
  if (size <= 64 * 1024) stream(data, size, ok, &m);
  return 0;
}
