// CUDA's scheduling modes (how the host waits in a blocking CUDA call) by name, for
// COMMBENCH_CUDA_SCHEDULE, the sidecar and cuda_sync_probe: one table for all of them.
#pragma once

#include <cuda_runtime_api.h>

#include <optional>
#include <string_view>

namespace commbench::cuda {

// "auto", "spin", "yield", "blocking"; nullopt for any other name.
inline std::optional<unsigned> schedule_flags(std::string_view name) {
  if (name == "auto") return cudaDeviceScheduleAuto;
  if (name == "spin") return cudaDeviceScheduleSpin;
  if (name == "yield") return cudaDeviceScheduleYield;
  if (name == "blocking") return cudaDeviceScheduleBlockingSync;
  return std::nullopt;
}

// The mode in cudaGetDeviceFlags' answer, by the names above.
inline const char* schedule_name(unsigned flags) {
  switch (flags & cudaDeviceScheduleMask) {
    case cudaDeviceScheduleAuto:
      return "auto";
    case cudaDeviceScheduleSpin:
      return "spin";
    case cudaDeviceScheduleYield:
      return "yield";
    case cudaDeviceScheduleBlockingSync:
      return "blocking";
    default:
      return "unknown";
  }
}

}  // namespace commbench::cuda
