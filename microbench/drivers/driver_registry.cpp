// Driver names: the raw baselines by name, everything else through the comm registry.
#include <stdexcept>

#include "comm/registry.hpp"
#include "drivers/comm_driver.hpp"
#include "drivers/driver.hpp"

namespace commbench {

std::unique_ptr<Driver> make_raw_tcp_driver(DriverEnv& env);
std::unique_ptr<Driver> make_raw_ucx_driver(DriverEnv& env);
std::unique_ptr<Driver> make_raw_mpi_driver(DriverEnv& env);

namespace {
struct RawDriver {
  const char* name;
  std::unique_ptr<Driver> (*make)(DriverEnv&);
};
const RawDriver kRawDrivers[] = {
    {"raw-tcp", &make_raw_tcp_driver},
    {"raw-ucx", &make_raw_ucx_driver},
    {"raw-mpi", &make_raw_mpi_driver},
};
}  // namespace

std::unique_ptr<Driver> make_driver(const BackendSpec& spec, DriverEnv& env) {
  for (const auto& r : kRawDrivers)
    if (spec.name == r.name) {
      if (!spec.progress.empty() && spec.progress != "blocking")
        throw std::invalid_argument(spec.name + " has no progress policy '" + spec.progress +
                                    "' (it is the blocking baseline)");
      return r.make(env);
    }
  std::string known;
  for (const auto& s : registry().schemes()) known += s + ", ";
  for (const auto& r : kRawDrivers) known += std::string(r.name) + ", ";
  known.resize(known.size() - 2);
  try {
    registry().info(spec.name);
  } catch (const std::exception&) {
    throw std::invalid_argument("unknown backend '" + spec.name + "' (known: " + known + ")");
  }
  return make_comm_driver(spec, env);
}

}  // namespace commbench
