// What one small device copy costs as the host sees it, mechanism by mechanism (issue 30
// item 2). CUDA events time a copy on the GPU's clock (the study's "copy floor": 8 B
// host-to-device 3.9 us on the H200), but a staged message waits for the copy from the
// host: it submits the copy, then learns that it finished. This probe times exactly that,
// with the host's steady clock, for every way a comm can do it:
//   - lane copies as StagedComm issues them (cudaMemcpyAsync on a non-blocking stream, an
//     event recorded after it, cudaEventQuery polled until it reports done), with and
//     without the default-stream ordering StagedComm adds (order_after_default);
//   - the same copy waited for by cudaStreamSynchronize, and a blocking cudaMemcpy (pinned
//     and pageable host memory);
//   - the stream machinery alone (an event recorded on an idle stream; an empty kernel);
//   - a copy by a kernel through mapped pinned memory that raises a flag in host memory,
//     which the host polls: no copy engine and no event in the way;
//   - the submission call alone and one cudaEventQuery.
// Run once per scheduling mode (--schedule: cudaDeviceScheduleAuto/Spin/Yield/BlockingSync,
// set before the context exists): a blocking wait shows up as tens of microseconds.
//
//   cuda_sync_probe [--schedule auto|spin|yield|blocking] [--sizes 8,65536] [--iters 2000]
// Prints one JSON object: the device, the mode cudaGetDeviceFlags reports, and per
// mechanism and size the median, 10th and 90th percentile and minimum in microseconds.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/cuda/cuda_schedule.hpp"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cuda_sync_probe: error: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

[[noreturn]] void usage_error(const std::string& why) {
  std::fprintf(stderr,
               "cuda_sync_probe: error: %s (usage: cuda_sync_probe [--schedule "
               "auto|spin|yield|blocking] [--sizes 8,65536] [--iters N])\n",
               why.c_str());
  std::exit(2);
}

__global__ void empty_kernel() {}

// One block copies n bytes, then one thread makes them visible system-wide and raises the
// flag: the host, polling the flag, may read dst once it sees `seq`.
__global__ void copy_and_flag(const unsigned char* src, unsigned char* dst, size_t n,
                              volatile unsigned int* flag, unsigned int seq) {
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) dst[i] = src[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    *flag = seq;
  }
}

using Clock = std::chrono::steady_clock;

struct Summary {
  double median_us, p10_us, p90_us, min_us;
};

Summary summarize(std::vector<double>& ns) {
  std::sort(ns.begin(), ns.end());
  auto at = [&](double q) { return ns[static_cast<size_t>(q * (ns.size() - 1))] / 1e3; };
  return {at(0.5), at(0.1), at(0.9), ns.front() / 1e3};
}

// Times `op` `iters` times after a warm-up, each call on its own.
Summary time_op(int iters, const std::function<void()>& op) {
  for (int i = 0; i < std::max(50, iters / 10); ++i) op();
  std::vector<double> ns;
  ns.reserve(iters);
  for (int i = 0; i < iters; ++i) {
    auto t0 = Clock::now();
    op();
    ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
  }
  return summarize(ns);
}

void spin_event(cudaEvent_t ev) {
  cudaError_t e;
  while ((e = cudaEventQuery(ev)) == cudaErrorNotReady) {
  }
  check(e, "cudaEventQuery");
}

}  // namespace

int main(int argc, char** argv) {
  std::string schedule = "auto";
  std::vector<size_t> sizes = {8, 65536};
  int iters = 2000;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--schedule") {
      schedule = value();
    } else if (a == "--sizes") {
      sizes.clear();
      std::string s = value();
      for (size_t pos = 0; pos <= s.size();) {
        size_t comma = s.find(',', pos);
        if (comma == std::string::npos) comma = s.size();
        std::string item = s.substr(pos, comma - pos);
        char* end = nullptr;
        unsigned long long v = std::strtoull(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || v == 0 || item[0] == '-')
          usage_error("--sizes wants positive byte counts, got '" + item + "'");
        sizes.push_back(v);
        pos = comma + 1;
      }
    } else if (a == "--iters") {
      std::string v = value();
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 10) usage_error("--iters wants a count >= 10");
      iters = static_cast<int>(n);
    } else if (a == "--version") {
      std::printf("cuda_sync_probe (commbench), CUDA runtime %d\n", CUDART_VERSION);
      return 0;
    } else if (a == "--help" || a == "-h") {
      std::printf(
          "cuda_sync_probe: host-observed cost of one small device copy per "
          "mechanism (see the header of microbench/cuda_sync_probe.cu)\n"
          "  --schedule auto|spin|yield|blocking   cudaSetDeviceFlags before the context\n"
          "  --sizes LIST   bytes per copy, comma separated (default 8,65536)\n"
          "  --iters N      timed calls per mechanism and size (default 2000)\n");
      return 0;
    } else {
      usage_error("unknown argument '" + a + "'");
    }
  }
  unsigned flag_bits = 0;
  if (schedule == "auto")
    flag_bits = cudaDeviceScheduleAuto;
  else if (schedule == "spin")
    flag_bits = cudaDeviceScheduleSpin;
  else if (schedule == "yield")
    flag_bits = cudaDeviceScheduleYield;
  else if (schedule == "blocking")
    flag_bits = cudaDeviceScheduleBlockingSync;
  else
    usage_error("--schedule is auto, spin, yield or blocking, not '" + schedule + "'");

  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  check(cudaSetDeviceFlags(flag_bits | cudaDeviceMapHost), "cudaSetDeviceFlags");
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaFree(nullptr), "context creation");
  unsigned actual = 0;
  check(cudaGetDeviceFlags(&actual), "cudaGetDeviceFlags");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int driver = 0, runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);

  size_t max_size = *std::max_element(sizes.begin(), sizes.end());
  unsigned char *dev = nullptr, *dev2 = nullptr, *pinned = nullptr, *mapped = nullptr;
  unsigned int* flag = nullptr;
  check(cudaMalloc(&dev, max_size), "cudaMalloc");
  check(cudaMalloc(&dev2, max_size), "cudaMalloc");
  check(cudaMallocHost(&pinned, max_size), "cudaMallocHost");
  check(cudaHostAlloc(&mapped, max_size, cudaHostAllocMapped), "cudaHostAlloc mapped");
  check(cudaHostAlloc(&flag, sizeof *flag, cudaHostAllocMapped), "cudaHostAlloc flag");
  std::vector<unsigned char> pageable(max_size, 1);
  std::memset(pinned, 2, max_size);
  check(cudaMemset(dev, 3, max_size), "cudaMemset");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  *flag = 0;
  unsigned int seq = 0;

  cudaStream_t lane;
  cudaEvent_t done, mark;
  check(cudaStreamCreateWithFlags(&lane, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "cudaEventCreate");
  check(cudaEventCreateWithFlags(&mark, cudaEventDisableTiming), "cudaEventCreate");

  std::printf(
      "{\"probe\": \"cuda_sync_probe\", \"device\": \"%s\", \"cc\": \"%d.%d\", "
      "\"driver\": %d, \"runtime\": %d, \"schedule_requested\": \"%s\", "
      "\"schedule\": \"%s\", \"iters\": %d, \"results\": [\n",
      prop.name, prop.major, prop.minor, driver, runtime, schedule.c_str(),
      commbench::cuda::schedule_name(actual), iters);
  bool first = true;
  auto report = [&](const char* mechanism, size_t bytes, Summary s) {
    std::printf(
        "%s  {\"mechanism\": \"%s\", \"bytes\": %zu, \"median_us\": %.3f, "
        "\"p10_us\": %.3f, \"p90_us\": %.3f, \"min_us\": %.3f}",
        first ? "" : ",\n", mechanism, bytes, s.median_us, s.p10_us, s.p90_us, s.min_us);
    first = false;
    std::fflush(stdout);
  };

  report("host_clock", 0, time_op(iters, [] {}));
  report("event_record_query", 0, time_op(iters, [&] {
           check(cudaEventRecord(done, lane), "cudaEventRecord");
           spin_event(done);
         }));
  check(cudaEventRecord(done, lane), "cudaEventRecord");
  spin_event(done);
  report("event_query_only", 0, time_op(iters, [&] { spin_event(done); }));
  report("empty_kernel_query", 0, time_op(iters, [&] {
           empty_kernel<<<1, 1, 0, lane>>>();
           check(cudaEventRecord(done, lane), "cudaEventRecord");
           spin_event(done);
         }));
  report("empty_kernel_streamsync", 0, time_op(iters, [&] {
           empty_kernel<<<1, 1, 0, lane>>>();
           check(cudaStreamSynchronize(lane), "cudaStreamSynchronize");
         }));

  // The mechanisms, each one call sequence for `n` bytes from `src` to `dst`.
  auto lane_event = [&](void* dst, const void* src, size_t n, bool ordered) {
    if (ordered) {  // StagedComm's order_after_default
      check(cudaEventRecord(mark, cudaStreamLegacy), "cudaEventRecord");
      check(cudaStreamWaitEvent(lane, mark, 0), "cudaStreamWaitEvent");
    }
    check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, lane), "cudaMemcpyAsync");
    check(cudaEventRecord(done, lane), "cudaEventRecord");
    spin_event(done);
  };
  auto lane_streamsync = [&](void* dst, const void* src, size_t n) {
    check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, lane), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(lane), "cudaStreamSynchronize");
  };
  auto blocking = [&](void* dst, const void* src, size_t n) {
    check(cudaMemcpy(dst, src, n, cudaMemcpyDefault), "cudaMemcpy");
  };
  auto kernel_flag = [&](const void* src, void* dst, size_t n) {
    ++seq;
    copy_and_flag<<<1, 256, 0, lane>>>(static_cast<const unsigned char*>(src),
                                       static_cast<unsigned char*>(dst), n, flag, seq);
    while (*static_cast<volatile unsigned int*>(flag) != seq) {
    }
  };
  for (size_t n : sizes) {
    // Lane copies as StagedComm issues them, without and with its ordering.
    report("d2h_lane_event", n, time_op(iters, [&] { lane_event(pinned, dev, n, false); }));
    report("h2d_lane_event", n, time_op(iters, [&] { lane_event(dev, pinned, n, false); }));
    report("d2h_lane_event_ordered", n, time_op(iters, [&] { lane_event(pinned, dev, n, true); }));
    report("h2d_lane_event_ordered", n, time_op(iters, [&] { lane_event(dev, pinned, n, true); }));
    report("d2h_lane_streamsync", n, time_op(iters, [&] { lane_streamsync(pinned, dev, n); }));
    report("h2d_lane_streamsync", n, time_op(iters, [&] { lane_streamsync(dev, pinned, n); }));
    // Blocking copies on the legacy default stream (what copy() and a staged "sync" small
    // path use): ordered after the caller's default-stream work by construction.
    report("d2h_memcpy_pinned", n, time_op(iters, [&] { blocking(pinned, dev, n); }));
    report("h2d_memcpy_pinned", n, time_op(iters, [&] { blocking(dev, pinned, n); }));
    report("d2h_memcpy_pageable", n, time_op(iters, [&] { blocking(pageable.data(), dev, n); }));
    report("h2d_memcpy_pageable", n, time_op(iters, [&] { blocking(dev, pageable.data(), n); }));
    report("d2d_lane_event", n, time_op(iters, [&] { lane_event(dev2, dev, n, false); }));
    // A kernel copies through mapped pinned memory and raises a host flag.
    report("d2h_kernel_flag", n, time_op(iters, [&] { kernel_flag(dev, mapped, n); }));
    report("h2d_kernel_flag", n, time_op(iters, [&] { kernel_flag(mapped, dev, n); }));
    check(cudaStreamSynchronize(lane), "cudaStreamSynchronize");
    // The submission alone (the copy is waited for outside the timed call).
    {
      std::vector<double> ns;
      for (int i = 0; i < iters; ++i) {
        auto t0 = Clock::now();
        check(cudaMemcpyAsync(pinned, dev, n, cudaMemcpyDefault, lane), "cudaMemcpyAsync");
        ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
        check(cudaStreamSynchronize(lane), "cudaStreamSynchronize");
      }
      report("d2h_submit_only", n, summarize(ns));
    }
  }
  std::printf("\n]}\n");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return 0;
}
