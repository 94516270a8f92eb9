// The driver for any backend in the comm registry: the coroutine comm interface, timed
// exactly like the raw baselines (one write + one read per half round trip).
#pragma once

#include <memory>

#include "drivers/driver.hpp"

namespace commbench {

std::unique_ptr<Driver> make_comm_driver(const BackendSpec& spec, DriverEnv& env);

}  // namespace commbench
