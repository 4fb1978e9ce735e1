#include "autogemm/worker_protocol.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace autogemm::wire {
namespace {

// ---- encoding ---------------------------------------------------------------

class Writer {
 public:
  void u8(uint8_t v) { b_.push_back(v); }
  void u16(uint16_t v) { le(v, 2); }
  void u32(uint32_t v) { le(v, 4); }
  void i32(int32_t v) { le(uint32_t(v), 4); }
  void i64(int64_t v) { le(uint64_t(v), 8); }
  void f32(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    le(u, 4);
  }
  void f64(double v) {
    uint64_t u;
    std::memcpy(&u, &v, 8);
    le(u, 8);
  }
  void bytes(const char* p, size_t n) {
    u32(uint32_t(n));
    b_.insert(b_.end(), p, p + n);
  }
  std::vector<uint8_t>& buf() { return b_; }

 private:
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b_.push_back(uint8_t(v >> (8 * i)));
  }
  std::vector<uint8_t> b_;
};

void put(Writer& w, const ProblemMsg& m) {
  const Problem& p = m.problem;
  w.i64(p.m), w.i64(p.n), w.i64(p.k);
  w.u8(p.trans_a), w.u8(p.trans_b), w.u8(p.aligned);
  w.i64(p.lda), w.i64(p.ldb), w.i64(p.ldc);
  w.i64(p.batch), w.i64(p.stride_a), w.i64(p.stride_b), w.i64(p.stride_c);
  w.f32(m.alpha), w.f32(m.beta);
  w.u32(m.seed);
  w.i32(m.device);
  w.u8(m.warm);
}
void put(Writer& w, const CandidateMsg& m) {
  w.bytes(m.config.data(), m.config.size());
  w.bytes(m.cubin.data(), m.cubin.size());
  w.f64(m.best_ms);
}
void put(Writer& w, const ReadyMsg& m) {
  w.u8(m.ok);
  w.bytes(m.detail.data(), m.detail.size());
}
void put(Writer& w, const ResultMsg& m) {
  w.u8(uint8_t(m.status));
  w.f64(m.median_ms), w.f64(m.spread_ms);
  w.i32(m.runs), w.i32(m.registers), w.i32(m.local_bytes);
  w.bytes(m.detail.data(), m.detail.size());
  w.u8(m.fatal);
}

template <typename T>
constexpr MsgType type_of() {
  if constexpr (std::is_same_v<T, ProblemMsg>) return MsgType::Problem;
  else if constexpr (std::is_same_v<T, CandidateMsg>) return MsgType::Candidate;
  else if constexpr (std::is_same_v<T, ReadyMsg>) return MsgType::Ready;
  else return MsgType::Result;
}

// ---- decoding: every read is bounds-checked, every field range-checked -------

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  uint8_t u8(const char* what) { return uint8_t(le(1, what)); }
  uint32_t u32(const char* what) { return uint32_t(le(4, what)); }
  int32_t i32(const char* what) { return int32_t(uint32_t(le(4, what))); }
  int64_t i64(const char* what) { return int64_t(le(8, what)); }
  float f32(const char* what) {
    const uint32_t u = uint32_t(le(4, what));
    float v;
    std::memcpy(&v, &u, 4);
    return v;
  }
  double f64(const char* what) {
    const uint64_t u = le(8, what);
    double v;
    std::memcpy(&v, &u, 8);
    return v;
  }
  bool flag(const char* what) {
    const uint8_t v = u8(what);
    if (v > 1) fail(what, "is " + std::to_string(v) + ", not 0 or 1");
    return v == 1;
  }
  /// Length-prefixed bytes; the length is checked against `max` and against
  /// what is left before anything is allocated.
  template <typename Out>
  Out blob(const char* what, size_t max) {
    const uint32_t n = u32(what);
    if (n > max) fail(what, "has " + std::to_string(n) + " bytes, more than the limit " + std::to_string(max));
    need(n, what);
    Out out(reinterpret_cast<const char*>(p_ + at_), reinterpret_cast<const char*>(p_ + at_) + n);
    at_ += n;
    return out;
  }
  void end() const {
    if (at_ != n_) throw ProtocolError("worker message: " + std::to_string(n_ - at_) + " unexpected trailing bytes");
  }
  [[noreturn]] static void fail(const char* what, const std::string& why) {
    throw ProtocolError(std::string("worker message: ") + what + " " + why);
  }

 private:
  void need(size_t k, const char* what) const {
    if (n_ - at_ < k) fail(what, "is truncated");
  }
  uint64_t le(int k, const char* what) {
    need(size_t(k), what);
    uint64_t v = 0;
    for (int i = 0; i < k; ++i) v |= uint64_t(p_[at_ + i]) << (8 * i);
    at_ += size_t(k);
    return v;
  }
  const uint8_t* p_;
  size_t n_, at_ = 0;
};

void in_range(const char* what, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi)
    Reader::fail(what, "is " + std::to_string(v) + ", outside " + std::to_string(lo) + ".." + std::to_string(hi));
}
void non_negative_time(const char* what, double v) {
  if (!std::isfinite(v) || v < 0) Reader::fail(what, "is not a finite non-negative time");
}

/// Floats `rows` rows of leading dimension `ld`, times `batch` products,
/// refused where that does not fit in 64 bits (the worker sizes its buffers
/// and the strides from it).
int64_t checked_extent(const char* what, int64_t rows, int64_t ld, int64_t batch) {
  int64_t one = 0, all = 0;
  if (__builtin_mul_overflow(rows, ld, &one) || __builtin_mul_overflow(one, batch, &all))
    Reader::fail(what, "spans more floats than 64 bits can count");
  return one;
}

ProblemMsg get_problem(Reader& r) {
  ProblemMsg m;
  Problem& p = m.problem;
  p.m = r.i64("m"), p.n = r.i64("n"), p.k = r.i64("k");
  in_range("m", p.m, 1, kMaxDim);
  in_range("n", p.n, 1, kMaxDim);
  in_range("k", p.k, 1, kMaxDim);
  p.trans_a = r.flag("trans_a"), p.trans_b = r.flag("trans_b"), p.aligned = r.flag("aligned");
  p.lda = r.i64("lda"), p.ldb = r.i64("ldb"), p.ldc = r.i64("ldc");
  // Canonical row-major: op(A) is M x K stored K-contiguous unless transposed.
  in_range("lda", p.lda, p.trans_a ? p.m : p.k, kMaxLd);
  in_range("ldb", p.ldb, p.trans_b ? p.k : p.n, kMaxLd);
  in_range("ldc", p.ldc, p.n, kMaxLd);
  // A batch is measured packed tightly (the worker's buffers are laid out so).
  p.batch = r.i64("batch");
  in_range("batch", p.batch, 1, kMaxBatch);
  p.stride_a = r.i64("stride_a"), p.stride_b = r.i64("stride_b"), p.stride_c = r.i64("stride_c");
  const bool many = p.batch > 1;
  const int64_t a = checked_extent("lda", p.trans_a ? p.k : p.m, p.lda, p.batch);
  const int64_t b = checked_extent("ldb", p.trans_b ? p.n : p.k, p.ldb, p.batch);
  const int64_t c = checked_extent("ldc", p.m, p.ldc, p.batch);
  in_range("stride_a", p.stride_a, many ? a : 0, many ? a : 0);
  in_range("stride_b", p.stride_b, many ? b : 0, many ? b : 0);
  in_range("stride_c", p.stride_c, many ? c : 0, many ? c : 0);
  m.alpha = r.f32("alpha"), m.beta = r.f32("beta");
  if (!std::isfinite(m.alpha)) Reader::fail("alpha", "is not finite");
  if (!std::isfinite(m.beta)) Reader::fail("beta", "is not finite");
  m.seed = r.u32("seed");
  m.device = r.i32("device");
  in_range("device", m.device, 0, 1023);
  m.warm = r.flag("warm");
  return m;
}

CandidateMsg get_candidate(Reader& r) {
  CandidateMsg m;
  m.config = r.blob<std::string>("config", kMaxConfigChars);
  if (m.config.empty()) Reader::fail("config", "is empty");
  m.cubin = r.blob<std::vector<char>>("cubin", kMaxCubinBytes);
  if (m.cubin.empty()) Reader::fail("cubin", "is empty");
  m.best_ms = r.f64("best_ms");
  if (std::isnan(m.best_ms) || m.best_ms < 0) Reader::fail("best_ms", "is not a non-negative time or +inf");
  return m;
}

ReadyMsg get_ready(Reader& r) {
  ReadyMsg m;
  m.ok = r.flag("ok");
  m.detail = r.blob<std::string>("detail", kMaxDetailChars);
  return m;
}

ResultMsg get_result(Reader& r) {
  ResultMsg m;
  const uint8_t s = r.u8("status");
  in_range("status", s, int(TrialStatus::Ok), int(TrialStatus::Crashed));
  m.status = TrialStatus(s);
  m.median_ms = r.f64("median_ms");
  non_negative_time("median_ms", m.median_ms);
  m.spread_ms = r.f64("spread_ms");
  non_negative_time("spread_ms", m.spread_ms);
  m.runs = r.i32("runs");
  in_range("runs", m.runs, 0, 1000000);
  m.registers = r.i32("registers");
  in_range("registers", m.registers, 0, 65536);
  m.local_bytes = r.i32("local_bytes");
  in_range("local_bytes", m.local_bytes, 0, 1 << 24);
  m.detail = r.blob<std::string>("detail", kMaxDetailChars);
  m.fatal = r.flag("fatal");
  return m;
}

}  // namespace

bool ProblemMsg::operator==(const ProblemMsg& o) const {
  const Problem &a = problem, &b = o.problem;
  return a.m == b.m && a.n == b.n && a.k == b.k && a.trans_a == b.trans_a && a.trans_b == b.trans_b &&
         a.aligned == b.aligned && a.lda == b.lda && a.ldb == b.ldb && a.ldc == b.ldc && a.batch == b.batch &&
         a.stride_a == b.stride_a && a.stride_b == b.stride_b && a.stride_c == b.stride_c && alpha == o.alpha &&
         beta == o.beta && seed == o.seed && device == o.device && warm == o.warm;
}
bool CandidateMsg::operator==(const CandidateMsg& o) const {
  return config == o.config && cubin == o.cubin && best_ms == o.best_ms;
}
bool ReadyMsg::operator==(const ReadyMsg& o) const { return ok == o.ok && detail == o.detail; }
bool ResultMsg::operator==(const ResultMsg& o) const {
  return status == o.status && median_ms == o.median_ms && spread_ms == o.spread_ms && runs == o.runs &&
         registers == o.registers && local_bytes == o.local_bytes && detail == o.detail && fatal == o.fatal;
}

size_t max_payload(MsgType type) {
  switch (type) {
    case MsgType::Problem: return 128;
    case MsgType::Candidate: return 4 + kMaxConfigChars + 4 + kMaxCubinBytes + 8;
    case MsgType::Ready: return 1 + 4 + kMaxDetailChars;
    case MsgType::Result: return 1 + 8 + 8 + 12 + 4 + kMaxDetailChars + 1;
  }
  return 0;
}

std::vector<uint8_t> encode(const Message& msg) {
  Writer w;
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m)>;
        w.u32(kMagic);
        w.u16(kVersion);
        w.u16(uint16_t(type_of<T>()));
        w.u32(0);  // payload size, patched below
        put(w, m);
      },
      msg);
  std::vector<uint8_t>& b = w.buf();
  const uint32_t n = uint32_t(b.size() - kHeaderBytes);
  for (int i = 0; i < 4; ++i) b[8 + i] = uint8_t(n >> (8 * i));
  return std::move(b);
}

Header decode_header(const uint8_t* data, size_t size) {
  if (size < kHeaderBytes)
    throw ProtocolError("worker message: header is truncated (" + std::to_string(size) + " of " +
                        std::to_string(kHeaderBytes) + " bytes)");
  Reader r(data, kHeaderBytes);
  if (r.u32("magic") != kMagic) throw ProtocolError("worker message: bad magic (not an autogemm worker message)");
  const uint32_t version = r.u32("version and type");
  const uint16_t v = uint16_t(version & 0xffff), t = uint16_t(version >> 16);
  if (v != kVersion)
    throw ProtocolError("worker message: protocol version " + std::to_string(v) + ", expected " +
                        std::to_string(kVersion) + " (tuner and autogemm_worker from different builds?)");
  if (t < uint16_t(MsgType::Problem) || t > uint16_t(MsgType::Result))
    throw ProtocolError("worker message: unknown type " + std::to_string(t));
  Header h{MsgType(t), r.u32("payload size")};
  if (h.payload_bytes > max_payload(h.type))
    throw ProtocolError("worker message: payload of " + std::to_string(h.payload_bytes) +
                        " bytes exceeds the limit " + std::to_string(max_payload(h.type)) + " for its type");
  return h;
}

Message decode_payload(const Header& h, const uint8_t* data, size_t size) {
  if (size != h.payload_bytes)
    throw ProtocolError("worker message: payload has " + std::to_string(size) + " bytes, header says " +
                        std::to_string(h.payload_bytes));
  Reader r(data, size);
  Message m;
  switch (h.type) {
    case MsgType::Problem: m = get_problem(r); break;
    case MsgType::Candidate: m = get_candidate(r); break;
    case MsgType::Ready: m = get_ready(r); break;
    case MsgType::Result: m = get_result(r); break;
  }
  r.end();
  return m;
}

Message decode_frame(const uint8_t* data, size_t size) {
  const Header h = decode_header(data, size);
  const size_t rest = size - kHeaderBytes;
  if (rest < h.payload_bytes) throw ProtocolError("worker message: payload is truncated");
  if (rest > h.payload_bytes) throw ProtocolError("worker message: unexpected bytes after the frame");
  return decode_payload(h, data + kHeaderBytes, rest);
}

// ---- I/O ----------------------------------------------------------------------

namespace {

/// Milliseconds to wait in poll() for `deadline` (-1: none).
int poll_ms(Clock::time_point deadline) {
  if (deadline == Clock::time_point::max()) return -1;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : int(std::min<long long>(left + 1, 1 << 30));
}

/// Waits until `fd` is ready for `events`; false on timeout.
bool wait_fd(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, poll_ms(deadline));
    if (r > 0) return true;
    if (r == 0) {
      if (Clock::now() >= deadline) return false;
      continue;
    }
    if (errno != EINTR) throw ProtocolError(std::string("worker channel: poll failed: ") + std::strerror(errno));
  }
}

/// Reads exactly n bytes: Ok, Eof (peer closed; *got says how many arrived) or Timeout.
ReadStatus read_exact(int fd, uint8_t* p, size_t n, Clock::time_point deadline, size_t* got) {
  *got = 0;
  while (*got < n) {
    if (!wait_fd(fd, POLLIN, deadline)) return ReadStatus::Timeout;
    const ssize_t r = ::recv(fd, p + *got, n - *got, MSG_DONTWAIT);
    if (r > 0) {
      *got += size_t(r);
    } else if (r == 0) {
      return ReadStatus::Eof;
    } else if (errno == ECONNRESET) {
      return ReadStatus::Eof;
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      throw ProtocolError(std::string("worker channel: read failed: ") + std::strerror(errno));
    }
  }
  return ReadStatus::Ok;
}

}  // namespace

bool send_frame(int fd, const std::vector<uint8_t>& frame, Clock::time_point deadline, std::string* why) {
  size_t sent = 0;
  while (sent < frame.size()) {
    try {
      if (!wait_fd(fd, POLLOUT, deadline)) {
        *why = "timed out sending to the worker";
        return false;
      }
    } catch (const ProtocolError& e) {
      *why = e.what();
      return false;
    }
    const ssize_t r = ::send(fd, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (r > 0) {
      sent += size_t(r);
    } else if (r < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      *why = std::string("cannot send to the worker: ") + std::strerror(errno);
      return false;
    }
  }
  return true;
}

ReadStatus read_frame(int fd, Message* out, Clock::time_point deadline) {
  uint8_t head[kHeaderBytes];
  size_t got = 0;
  ReadStatus s = read_exact(fd, head, kHeaderBytes, deadline, &got);
  if (s != ReadStatus::Ok) return s;
  const Header h = decode_header(head, kHeaderBytes);  // bounds the allocation below
  std::vector<uint8_t> payload(h.payload_bytes);
  s = read_exact(fd, payload.data(), payload.size(), deadline, &got);
  if (s != ReadStatus::Ok) return s;
  *out = decode_payload(h, payload.data(), payload.size());
  return ReadStatus::Ok;
}

}  // namespace autogemm::wire
