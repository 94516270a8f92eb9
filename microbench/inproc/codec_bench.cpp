// In-process costs of the wire codecs: encoding and decoding a message header.
#include <benchmark/benchmark.h>

#include <vector>

#include "comm/frame_header.hpp"

using namespace commbench;

namespace {

// A message of `frames` 64-byte host frames over `data` (kept alive by the caller).
Message message_of(size_t frames, std::vector<char>& data) {
  data.resize(64);
  Message m;
  for (size_t i = 0; i < frames; ++i) m.frames.push_back(Buffer{data.data(), 64, MemoryKind::host});
  return m;
}

void BM_HeaderEncode(benchmark::State& state) {
  size_t frames = static_cast<size_t>(state.range(0));
  std::vector<char> data;
  Message m = message_of(frames, data);
  std::vector<std::byte> out(header_bytes(frames));
  CommLimits limits;
  for (auto _ : state) benchmark::DoNotOptimize(encode_header(m, out, limits));
}
BENCHMARK(BM_HeaderEncode)->Arg(1)->Arg(4)->Arg(64);

void BM_HeaderDecode(benchmark::State& state) {
  size_t frames = static_cast<size_t>(state.range(0));
  std::vector<char> data;
  Message m = message_of(frames, data);
  std::vector<std::byte> wire(header_bytes(frames));
  CommLimits limits;
  encode_header(m, wire, limits);
  std::vector<FrameInfo> infos;
  for (auto _ : state) {
    uint32_t n = decode_fixed_header({wire.data(), kFixedHeaderBytes}, limits);
    decode_frame_descriptors({wire.data() + kFixedHeaderBytes, n * kFrameDescriptorBytes}, n,
                             limits, infos);
    benchmark::DoNotOptimize(infos.data());
  }
}
BENCHMARK(BM_HeaderDecode)->Arg(1)->Arg(4)->Arg(64);

}  // namespace
