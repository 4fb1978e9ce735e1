// The worker protocol (worker_protocol.h): every message survives a round
// trip through bytes and through a socket; truncated, oversized,
// wrong-version, wrong-magic and out-of-range messages are rejected with a
// ProtocolError that names the problem.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <cstring>

#include "autogemm/worker_protocol.h"
#include "autogemm/shape_spec.h"

namespace autogemm::wire {
namespace {

ProblemMsg problem() {
  ProblemMsg m;
  m.problem = make_problem(AUTOGEMM_COL_MAJOR, true, false, 1000, 700, 300, false);
  m.alpha = 1.5f;
  m.beta = -0.25f;
  m.seed = 77;
  m.device = 3;
  return m;
}
CandidateMsg candidate() {
  CandidateMsg m;
  m.config = "tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=4 sk=1 sw=4 ta=0 tb=0";
  for (int i = 0; i < 5000; ++i) m.cubin.push_back(char(i * 31));
  m.best_ms = INFINITY;
  return m;
}
ResultMsg result() {
  ResultMsg m;
  m.status = TrialStatus::WrongResult;
  m.median_ms = 1.25;
  m.spread_ms = 0.5;
  m.runs = 17;
  m.registers = 128;
  m.local_bytes = 64;
  m.detail = std::string("line1\nline2 \0 with a zero byte", 29);
  m.fatal = true;
  return m;
}
ProblemMsg batched_problem() {
  ProblemMsg m = problem();
  m.problem = make_problem(AUTOGEMM_ROW_MAJOR, false, true, 64, 64, 32, true, 4096);
  m.warm = true;
  return m;
}
std::vector<Message> all() {
  return {problem(), batched_problem(), candidate(), ReadyMsg{true, ""}, ReadyMsg{false, "no GPU"}, result()};
}

std::string error_of(const std::vector<uint8_t>& b) {
  try {
    decode_frame(b.data(), b.size());
  } catch (const ProtocolError& e) {
    return e.what();
  }
  return "";
}

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

TEST(WorkerProtocol, EveryMessageRoundTrips) {
  for (const Message& m : all()) {
    const std::vector<uint8_t> b = encode(m);
    ASSERT_GE(b.size(), kHeaderBytes);
    const Message back = decode_frame(b.data(), b.size());
    EXPECT_EQ(back.index(), m.index());
    EXPECT_TRUE(back == m);
    EXPECT_EQ(encode(back), b);  // canonical: bytes are a fixed point
  }
}

TEST(WorkerProtocol, MessagesRoundTripThroughASocket) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  std::string why;
  for (const Message& m : all()) ASSERT_TRUE(send_frame(sv[0], encode(m), Clock::now() + std::chrono::seconds(5), &why)) << why;
  close(sv[0]);
  for (const Message& m : all()) {
    Message got;
    ASSERT_EQ(read_frame(sv[1], &got, Clock::now() + std::chrono::seconds(5)), ReadStatus::Ok);
    EXPECT_TRUE(got == m);
  }
  Message none;
  EXPECT_EQ(read_frame(sv[1], &none, Clock::now() + std::chrono::seconds(5)), ReadStatus::Eof);
  close(sv[1]);
}

TEST(WorkerProtocol, ReadTimesOutWhenNothingArrives) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  Message m;
  const auto t0 = Clock::now();
  EXPECT_EQ(read_frame(sv[1], &m, t0 + std::chrono::milliseconds(100)), ReadStatus::Timeout);
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(100));
  close(sv[0]);
  close(sv[1]);
}

TEST(WorkerProtocol, SendToAClosedPeerFailsWithoutSigpipe) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  close(sv[1]);
  std::string why;
  EXPECT_FALSE(send_frame(sv[0], encode(candidate()), Clock::now() + std::chrono::seconds(1), &why));
  EXPECT_NE(why.find("cannot send"), std::string::npos) << why;
  close(sv[0]);
}

TEST(WorkerProtocol, TruncatedMessagesAreRejected) {
  for (const Message& m : all()) {
    const std::vector<uint8_t> b = encode(m);
    for (size_t n = 0; n < b.size(); ++n) {
      const std::vector<uint8_t> cut(b.begin(), b.begin() + n);
      EXPECT_NE(error_of(cut), "") << "prefix of " << n << " bytes accepted";
    }
  }
  std::vector<uint8_t> b = encode(result());
  b.resize(5);
  EXPECT_NE(error_of(b).find("header is truncated"), std::string::npos) << error_of(b);
}

TEST(WorkerProtocol, TrailingBytesAreRejected) {
  std::vector<uint8_t> b = encode(ReadyMsg{true, "x"});
  b.push_back(0);
  EXPECT_NE(error_of(b).find("after the frame"), std::string::npos);
  // Payload longer than its fields, with the header agreeing.
  put_u32(b, 8, uint32_t(b.size() - kHeaderBytes));
  EXPECT_NE(error_of(b).find("trailing"), std::string::npos) << error_of(b);
}

TEST(WorkerProtocol, WrongMagicVersionAndTypeAreRejected) {
  std::vector<uint8_t> b = encode(ReadyMsg{true, ""});
  std::vector<uint8_t> bad = b;
  bad[0] ^= 1;
  EXPECT_NE(error_of(bad).find("magic"), std::string::npos);
  bad = b;
  bad[4] = kVersion + 1;
  EXPECT_NE(error_of(bad).find("protocol version " + std::to_string(kVersion + 1) + ", expected " + std::to_string(kVersion)), std::string::npos) << error_of(bad);
  bad = b;
  bad[6] = 9;
  EXPECT_NE(error_of(bad).find("unknown type 9"), std::string::npos);
  bad[6] = 0;
  EXPECT_NE(error_of(bad).find("unknown type 0"), std::string::npos);
}

TEST(WorkerProtocol, OversizedPayloadsAreRejectedFromTheHeaderAlone) {
  // Only the 12 header bytes exist: the announced size is refused before
  // anything is allocated or read.
  std::vector<uint8_t> b = encode(result());
  b.resize(kHeaderBytes);
  put_u32(b, 8, 0xffffffffu);
  try {
    decode_header(b.data(), b.size());
    FAIL() << "4 GiB payload accepted";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("exceeds the limit"), std::string::npos) << e.what();
  }
  // A string field longer than its own ceiling.
  ReadyMsg r{false, std::string(kMaxDetailChars + 1, 'x')};
  std::vector<uint8_t> big = encode(r);
  put_u32(big, 8, uint32_t(max_payload(MsgType::Ready)));  // keep the header plausible
  big.resize(kHeaderBytes + max_payload(MsgType::Ready));
  EXPECT_NE(error_of(big).find("detail has"), std::string::npos) << error_of(big);
  // A length prefix pointing past the end.
  std::vector<uint8_t> c = encode(candidate());
  put_u32(c, kHeaderBytes, 400);  // config claims 400 bytes; cubin length etc. follow instead
  EXPECT_NE(error_of(c), "");
}

TEST(WorkerProtocol, OutOfRangeFieldsAreRejected) {
  auto rejects = [](const Message& m, const char* field) {
    const std::string e = error_of(encode(m));
    EXPECT_NE(e.find(field), std::string::npos) << "field " << field << ": '" << e << "'";
  };
  ProblemMsg p = problem();
  p.problem.m = 0;
  rejects(p, "m is 0");
  p = problem();
  p.problem.k = int64_t(1) << 31;
  rejects(p, "k is");
  p = problem();
  p.problem.ldc = p.problem.n - 1;
  rejects(p, "ldc");
  p = problem();
  p.problem.lda = -5;
  rejects(p, "lda");
  p = problem();
  p.alpha = NAN;
  rejects(p, "alpha");
  p = problem();
  p.device = -1;
  rejects(p, "device");
  p = batched_problem();
  p.problem.batch = 0;
  rejects(p, "batch is 0");
  p = batched_problem();
  p.problem.stride_c += 4;  // the worker measures packed batches only
  rejects(p, "stride_c");
  p = problem();
  p.problem.stride_a = 8;  // a single product has no strides
  rejects(p, "stride_a");

  CandidateMsg c = candidate();
  c.config.clear();
  rejects(c, "config is empty");
  c = candidate();
  c.cubin.clear();
  rejects(c, "cubin is empty");
  c = candidate();
  c.config = std::string(kMaxConfigChars + 1, 'a');
  rejects(c, "config has");
  c = candidate();
  c.best_ms = -1;
  rejects(c, "best_ms");
  c.best_ms = NAN;
  rejects(c, "best_ms");

  ResultMsg r = result();
  r.median_ms = INFINITY;
  rejects(r, "median_ms");
  r = result();
  r.spread_ms = -0.5;
  rejects(r, "spread_ms");
  r = result();
  r.runs = -1;
  rejects(r, "runs");
  r = result();
  r.registers = 70000;
  rejects(r, "registers");
  r = result();
  r.local_bytes = -4;
  rejects(r, "local_bytes");

  std::vector<uint8_t> b = encode(result());
  b[kHeaderBytes] = 6;  // status past Crashed
  EXPECT_NE(error_of(b).find("status is 6"), std::string::npos) << error_of(b);
  b = encode(result());
  b.back() = 2;  // fatal flag
  EXPECT_NE(error_of(b).find("fatal is 2"), std::string::npos) << error_of(b);
  b = encode(ReadyMsg{true, ""});
  b[kHeaderBytes] = 0xff;
  EXPECT_NE(error_of(b).find("ok is 255"), std::string::npos) << error_of(b);
}

}  // namespace
}  // namespace autogemm::wire
