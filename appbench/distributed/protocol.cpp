#include "distributed/protocol.hpp"

#include <cstring>
#include <type_traits>

#include "comm/errors.hpp"

namespace commbench::app {

namespace {

// One description of each message's fields serves both directions: `io(codec, msg)`
// writes with a Writer and reads with a Reader, so encoder and decoder cannot drift.
class Writer {
 public:
  static constexpr bool reading = false;
  std::vector<std::byte> out;

  template <typename T>
    requires std::is_integral_v<T> || std::is_enum_v<T>
  void operator()(T& v) {
    auto at = out.size();
    out.resize(at + sizeof(T));
    std::memcpy(out.data() + at, &v, sizeof(T));  // x86-64 and aarch64: little-endian
  }
  void operator()(std::string& s) { blob(s.data(), s.size()); }
  void operator()(std::vector<std::byte>& b) { blob(b.data(), b.size()); }
  template <typename T>
  void operator()(std::vector<T>& v) {
    auto n = static_cast<uint32_t>(v.size());
    (*this)(n);
    for (auto& e : v) io_item(e);
  }

 private:
  template <typename T>
  void io_item(T& e);
  void blob(const void* p, size_t n) {
    auto len = static_cast<uint32_t>(n);
    (*this)(len);
    auto at = out.size();
    out.resize(at + n);
    if (n) std::memcpy(out.data() + at, p, n);
  }
};

class Reader {
 public:
  static constexpr bool reading = true;
  std::span<const std::byte> in;
  size_t pos = 0;
  size_t owed = 0;  // bytes the list elements claimed but not yet decoded need at least

  template <typename T>
    requires std::is_integral_v<T> || std::is_enum_v<T>
  void operator()(T& v) {
    need(sizeof(T));
    std::memcpy(&v, in.data() + pos, sizeof(T));
    pos += sizeof(T);
  }
  // A role is one of three values: decoding any other byte would hand the scheduler a
  // Hello from nobody it knows.
  void operator()(Role& r) {
    uint8_t v;
    (*this)(v);
    if (v < static_cast<uint8_t>(Role::worker) || v > static_cast<uint8_t>(Role::peer))
      throw ProtocolError("unknown role " + std::to_string(v) + " in Hello");
    r = static_cast<Role>(v);
  }
  void operator()(std::string& s) {
    uint32_t n = length(1);
    s.assign(reinterpret_cast<const char*>(in.data() + pos), n);
    pos += n;
  }
  void operator()(std::vector<std::byte>& b) {
    uint32_t n = length(1);
    b.assign(in.begin() + static_cast<ptrdiff_t>(pos), in.begin() + static_cast<ptrdiff_t>(pos + n));
    pos += n;
  }
  // The count is checked against the bytes that follow at the element's smallest
  // encoding, not at one byte each: an element takes far more memory than wire bytes (a
  // TaskSpec 120 bytes for its 20), so a 1-byte bound let a count claimed in a few bytes
  // resize to 120x the message (tests/fuzz/appbench_protocol_fuzz.cpp found it). Now an
  // element costs at most 8 bytes of memory per byte received (a list of empty strings).
  //
  // Elements of a list still to be decoded keep their smallest encoding reserved
  // (`owed`): every later check, nested lists' counts included, must leave those bytes
  // for them. Without it a Submit's task count and its first task's dependency count
  // were each bounded by the same remaining bytes, 6 + 8 bytes of memory per byte (the
  // fuzzer found it).
  template <typename T>
  void operator()(std::vector<T>& v) {
    const size_t min = min_wire_bytes<T>();
    uint32_t n = length(min);
    v.resize(n);
    owed += size_t{n} * min;
    for (auto& e : v) {
      owed -= min;  // from here on, e's own fields check what they need
      io_item(e);
    }
  }
  void need(size_t n) const {
    if (in.size() - pos < n || in.size() - pos - n < owed)
      throw ProtocolError("truncated control message");
  }

 private:
  template <typename T>
  void io_item(T& e);
  template <typename T>
  static size_t min_wire_bytes();
  uint32_t length(size_t min_element) {
    uint32_t n;
    (*this)(n);
    need(size_t{n} * min_element);
    return n;
  }
};

template <typename C> void io(C& c, TaskSpec& t) { c(t.key); c(t.func); c(t.deps); c(t.args); c(t.worker); }
template <typename C> void io(C& c, KeyInfo& k) { c(k.key); c(k.worker); c(k.nbytes); }
template <typename C> void io(C& c, TransferRecord& r) {
  c(r.from_worker); c(r.to_worker); c(r.key); c(r.bytes); c(r.start_ns); c(r.duration_ns);
}
template <typename C> void io(C& c, WorkerStats& s) {
  c(s.worker); c(s.tasks); c(s.task_ns); c(s.cpu_ns); c(s.wait_ns); c(s.transfers);
}
template <typename C> void io(C& c, DepLocation& d) { c(d.key); c(d.worker); }
template <typename C> void io(C& c, std::string& s) { c(s); }
template <typename C> void io(C& c, uint32_t& v) { c(v); }

template <typename C> void io(C& c, Hello& m) { c(m.role); c(m.index); }
template <typename C> void io(C& c, Submit& m) { c(m.graph); c(m.tasks); }
template <typename C> void io(C& c, GraphDone& m) { c(m.graph); c(m.results); }
template <typename C> void io(C& c, GraphFailed& m) { c(m.graph); c(m.error); }
template <typename C> void io(C& c, Compute& m) { c(m.key); c(m.func); c(m.args); c(m.deps); }
template <typename C> void io(C& c, TaskDone& m) { c(m.key); c(m.nbytes); }
template <typename C> void io(C& c, TaskFailed& m) { c(m.key); c(m.error); c(m.lost_worker); }
template <typename C> void io(C& c, Release& m) { c(m.keys); }
template <typename C> void io(C& c, GetData& m) { c(m.keys); }
template <typename C> void io(C& c, Data& m) { c(m.keys); c(m.parts); }
template <typename C> void io(C& c, DataMissing& m) { c(m.error); }
template <typename C> void io(C& c, StatsRequest& m) { c(m.id); }
template <typename C> void io(C& c, StatsReply& m) { c(m.id); c(m.workers); }
template <typename C> void io(C&, Shutdown&) {}

template <typename T>
void Writer::io_item(T& e) {
  io(*this, e);
}
template <typename T>
void Reader::io_item(T& e) {
  io(*this, e);
}
// An element's smallest encoding is that of its default value (empty strings and lists):
// measured with the Writer, so it cannot drift from the field lists above.
template <typename T>
size_t Reader::min_wire_bytes() {
  static const size_t bytes = [] {
    Writer w;
    T e{};
    io(w, e);
    return w.out.size();
  }();
  return bytes;
}

constexpr const char* kNames[] = {"Hello",       "Submit",     "GraphDone", "GraphFailed",
                                  "Compute",     "TaskDone",   "TaskFailed", "Release",
                                  "GetData",     "Data",       "DataMissing", "StatsRequest",
                                  "StatsReply",  "Shutdown"};
static_assert(std::size(kNames) == std::variant_size_v<ControlMessage>);

// Builds the alternative with index I when the decoded op byte says so.
template <size_t I = 0>
ControlMessage decode_alternative(uint8_t op, Reader& r) {
  if constexpr (I == std::variant_size_v<ControlMessage>) {
    throw ProtocolError("unknown control message op " + std::to_string(op));
  } else {
    if (op != I) return decode_alternative<I + 1>(op, r);
    std::variant_alternative_t<I, ControlMessage> m{};
    io(r, m);
    return m;
  }
}

}  // namespace

std::vector<std::byte> encode(const ControlMessage& msg) {
  Writer w;
  auto op = static_cast<uint8_t>(msg.index());
  w(op);
  std::visit([&](const auto& m) { io(w, const_cast<std::remove_cvref_t<decltype(m)>&>(m)); },
             msg);
  return std::move(w.out);
}

ControlMessage decode(std::span<const std::byte> bytes) {
  Reader r{bytes};
  uint8_t op;
  r(op);
  ControlMessage m = decode_alternative(op, r);
  if (r.pos != bytes.size()) throw ProtocolError("trailing bytes after control message");
  return m;
}

const char* name_of(const ControlMessage& msg) { return kNames[msg.index()]; }

std::vector<std::byte> pack_u64(std::initializer_list<uint64_t> values) {
  std::vector<std::byte> out(values.size() * 8);
  size_t i = 0;
  for (uint64_t v : values) std::memcpy(out.data() + 8 * i++, &v, 8);
  return out;
}

std::vector<uint64_t> unpack_u64(std::span<const std::byte> bytes) {
  if (bytes.size() % 8) throw ProtocolError("task arguments are not a list of u64");
  std::vector<uint64_t> out(bytes.size() / 8);
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

}  // namespace commbench::app
