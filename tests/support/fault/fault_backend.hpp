// fault+<inner>://... — a wrapper backend that injects faults into any other backend.
// Test only: it is NOT in the production registry (benchmarks never list it); tests
// build it directly or add it to a registry with register_fault_backend().
#pragma once

#include <memory>

#include "comm/comm.hpp"
#include "comm/registry.hpp"
#include "fault/fault_plan.hpp"

namespace commbench::fault {

// Wraps `inner`; every listener, connector and comm it makes follows `plan`, which the
// caller may change between operations.
std::unique_ptr<Backend> make_fault_backend(EventLoop& loop, std::unique_ptr<Backend> inner,
                                            std::shared_ptr<FaultPlan> plan,
                                            const CommLimits& limits = {});

// Adds scheme "fault" to `r`. BackendOptions.extra: inner=<scheme> (default tcp),
// inner_progress=<policy>, read_delay_us, write_delay_us, drop_on_write,
// corrupt_on_write (integers). The inner backend is created from the same registry.
void register_fault_backend(Registry& r);

}  // namespace commbench::fault
