// Worker protocol: the messages between the tuner and autogemm_worker.
//
// Why a protocol at all: a candidate kernel that traps, reads out of bounds
// or spins forever destroys (or blocks) the CUDA context of the process that
// runs it. Candidates therefore run in a separate process (worker.h) that
// the tuner can kill and replace; this file is the only thing the two share.
//
// Framing: every message is a 12-byte header, then its payload:
//   u32 magic "AGWK" | u16 version | u16 type | u32 payload bytes
// All integers are little-endian, doubles are IEEE-754 bit patterns, strings
// and byte blobs are a u32 length then the bytes. The header is checked
// before any payload is read, and each type has its own payload ceiling, so
// a garbled header never causes a large allocation. Decoding checks every
// field's range and that the payload is consumed exactly; any violation is a
// ProtocolError whose what() says which field. Decoding never crashes.
//
//   tuner -> worker   ProblemMsg    set up operands + reference (once per problem)
//                     CandidateMsg  verify + time one compiled kernel
//   worker -> tuner   ReadyMsg      answer to ProblemMsg
//                     ResultMsg     answer to CandidateMsg
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "autogemm/problem.h"
#include "autogemm/tuning_keys.h"

namespace autogemm::wire {

constexpr uint32_t kMagic = 0x4b574741;  // "AGWK" read as little-endian bytes
constexpr uint16_t kVersion = 3;  // 2: a strided batch in ProblemMsg; 3: its timing regime
constexpr size_t kHeaderBytes = 12;
constexpr size_t kMaxCubinBytes = 64u << 20;   ///< far above any real cubin (~100 KB)
constexpr size_t kMaxConfigChars = 512;
constexpr size_t kMaxDetailChars = 64u << 10;  ///< compile logs are cut well below this
constexpr int64_t kMaxDim = 0x7fffffff;        ///< kernels take M, N, K as int
constexpr int64_t kMaxLd = int64_t(1) << 40;
constexpr int64_t kMaxBatch = 0x7fffffff;      ///< the C API takes the count as int

/// Bytes that are not a valid message (or an I/O failure on the channel).
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class MsgType : uint16_t { Problem = 1, Candidate = 2, Ready = 3, Result = 4 };

/// tuner -> worker: the problem every following candidate computes.
struct ProblemMsg {
  Problem problem;      ///< canonical; 1 <= m, n, k <= kMaxDim, ld >= minimum
  float alpha = 1.f, beta = 0.f;
  uint32_t seed = 1;    ///< input data
  int32_t device = 0;   ///< CUDA ordinal (0..1023)
  /// Time every candidate on the same operands (TimingRegime::Warm) instead
  /// of cycling over copies that exceed L2.
  bool warm = false;
  bool operator==(const ProblemMsg& o) const;
};

/// tuner -> worker: one candidate.
struct CandidateMsg {
  std::string config;       ///< canonical KernelConfig text; the worker re-parses it
  std::vector<char> cubin;  ///< NVRTC output (1..kMaxCubinBytes)
  double best_ms = 0;       ///< fastest verified time so far; +inf when none
  bool operator==(const CandidateMsg& o) const;
};

/// worker -> tuner: the problem is set up (ok) or could not be (detail).
struct ReadyMsg {
  bool ok = false;
  std::string detail;
  bool operator==(const ReadyMsg& o) const;
};

/// worker -> tuner: what one candidate did.
struct ResultMsg {
  TrialStatus status = TrialStatus::Ok;
  double median_ms = 0, spread_ms = 0;  ///< >= 0, finite
  int32_t runs = 0;                     ///< timed runs (0..1e6)
  int32_t registers = 0, local_bytes = 0;
  std::string detail;
  /// The worker's context is unusable (sticky CUDA error): it exits after
  /// this message and the tuner starts a fresh one.
  bool fatal = false;
  bool operator==(const ResultMsg& o) const;
};

using Message = std::variant<ProblemMsg, CandidateMsg, ReadyMsg, ResultMsg>;

struct Header {
  MsgType type;
  uint32_t payload_bytes;
};

/// A whole frame (header + payload).
std::vector<uint8_t> encode(const Message& m);

/// Checks the first kHeaderBytes of `data` (magic, version, known type,
/// payload within that type's ceiling). Throws ProtocolError.
Header decode_header(const uint8_t* data, size_t size);
/// Decodes the payload of a message whose header was `h`. Throws ProtocolError.
Message decode_payload(const Header& h, const uint8_t* data, size_t size);
/// Decodes exactly one whole frame (no bytes left over). Throws ProtocolError.
Message decode_frame(const uint8_t* data, size_t size);

/// Largest payload a message of `type` may carry.
size_t max_payload(MsgType type);

// ---- I/O on a connected stream socket --------------------------------------
// (a socketpair, not a pipe: send(MSG_NOSIGNAL) reports a dead peer as EPIPE
// instead of raising SIGPIPE in the tuner, which a library must not do.)

using Clock = std::chrono::steady_clock;

/// Sends a whole frame before `deadline`; false when the peer is gone or the
/// deadline passed (*why says which).
bool send_frame(int fd, const std::vector<uint8_t>& frame, Clock::time_point deadline, std::string* why);

enum class ReadStatus { Ok, Eof, Timeout };
/// Reads one frame before `deadline` (Clock::time_point::max(): no deadline).
/// Eof when the peer closed the channel (before or inside a frame); throws
/// ProtocolError for bytes that are not a message.
ReadStatus read_frame(int fd, Message* out, Clock::time_point deadline);

}  // namespace autogemm::wire
