// In-process costs of the wire codecs: encoding and decoding a message header.
#include <benchmark/benchmark.h>

#include <vector>

#include "comm/frame_header.hpp"

using namespace commbench;

namespace {

// A message of `frames` 64-byte host frames and a header buffer sized for it: what both
// benchmarks start from, so they time only the codec call.
struct HeaderCase {
  explicit HeaderCase(size_t frames) : data(64), wire(header_bytes(frames)) {
    for (size_t i = 0; i < frames; ++i)
      message.frames.push_back(Buffer{data.data(), 64, MemoryKind::host});
  }
  std::vector<char> data;
  Message message;
  std::vector<std::byte> wire;
  CommLimits limits;
};

void BM_HeaderEncode(benchmark::State& state) {
  HeaderCase c(static_cast<size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(encode_header(c.message, c.wire, c.limits));
}
BENCHMARK(BM_HeaderEncode)->Arg(1)->Arg(4)->Arg(64);

void BM_HeaderDecode(benchmark::State& state) {
  HeaderCase c(static_cast<size_t>(state.range(0)));
  encode_header(c.message, c.wire, c.limits);
  std::vector<FrameInfo> infos;
  for (auto _ : state) {
    uint32_t n = decode_fixed_header({c.wire.data(), kFixedHeaderBytes}, c.limits);
    decode_frame_descriptors({c.wire.data() + kFixedHeaderBytes, n * kFrameDescriptorBytes}, n,
                             c.limits, infos);
    benchmark::DoNotOptimize(infos.data());
  }
}
BENCHMARK(BM_HeaderDecode)->Arg(1)->Arg(4)->Arg(64);

}  // namespace
