// libFuzzer target: the appbench control protocol (appbench/distributed/protocol.hpp),
// frame 0 of every message the scheduler, client and workers exchange. Properties, under
// ASan/UBSan (a read past the input crashes):
//  - the only exception is ProtocolError;
//  - decoding n bytes allocates at most kBytesPerInputByte * n + a constant, so a length
//    or element count cannot make a peer allocate what it merely announces;
//  - a decoded message re-encodes to exactly its input (one encoding per message);
//  - task arguments (unpack_u64) decode iff they are whole u64s and pack back unchanged.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "comm/errors.hpp"
#include "distributed/protocol.hpp"
#include "fuzz_alloc.hpp"
#include "fuzz_check.hpp"

using namespace commbench;
using namespace commbench::app;
using fuzz::check;

namespace {

// protocol.cpp bounds every element count by the element's smallest encoding, so the
// worst is a list of empty strings: 4 bytes on the wire, sizeof(std::string) = 32 in
// memory. Before that bound a Submit's task count cost 120 bytes per byte (resize to the
// count at one byte per TaskSpec).
constexpr size_t kBytesPerInputByte = 8;
constexpr size_t kConstantBytes = 4096;

void args_round_trip(std::span<const std::byte> in) {
  std::vector<uint64_t> values;
  try {
    values = unpack_u64(in);
  } catch (const ProtocolError&) {
    check(in.size() % 8 != 0);
    return;
  }
  check(in.size() % 8 == 0 && values.size() == in.size() / 8);
  std::vector<std::byte> again(values.size() * 8);
  if (!values.empty()) std::memcpy(again.data(), values.data(), again.size());
  check(again.size() == in.size() && std::equal(again.begin(), again.end(), in.begin()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const std::byte> in(reinterpret_cast<const std::byte*>(data), size);
  args_round_trip(in);

  ControlMessage m;
  size_t allocated = 0;
  try {
    m = fuzz::measure_allocations(allocated, [&] { return decode(in); });
  } catch (const ProtocolError&) {
    check(allocated <= kBytesPerInputByte * size + kConstantBytes);
    return 0;
  }
  check(allocated <= kBytesPerInputByte * size + kConstantBytes);
  check(name_of(m) != nullptr);
  auto again = encode(m);
  check(again.size() == size && std::memcmp(again.data(), data, size) == 0);
  return 0;
}
