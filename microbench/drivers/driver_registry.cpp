// Driver names: the raw baselines by name, everything else through the comm registry.
#include <stdexcept>

#include "comm/registry.hpp"
#include "drivers/comm_driver.hpp"
#include "drivers/driver.hpp"
#include "drivers/raw_baselines.hpp"

namespace commbench {

std::unique_ptr<Driver> make_raw_tcp_driver(DriverEnv& env);
std::unique_ptr<Driver> make_raw_ucx_driver(DriverEnv& env);
std::unique_ptr<Driver> make_raw_mpi_driver(DriverEnv& env);

namespace {
struct RawDriver {
  const RawBaseline& baseline;
  std::unique_ptr<Driver> (*make)(DriverEnv&);
};
const RawDriver kRawDrivers[] = {
    {kRawTcp, &make_raw_tcp_driver},
    {kRawUcx, &make_raw_ucx_driver},
    {kRawMpi, &make_raw_mpi_driver},
};
}  // namespace

std::unique_ptr<Driver> make_driver(const BackendSpec& spec, DriverEnv& env) {
  for (const auto& r : kRawDrivers)
    if (spec.name == r.baseline.name) {
      // The one policy it has, by the name its CSV rows report, is accepted as well.
      if (!spec.progress.empty() && spec.progress != r.baseline.policy)
        throw std::invalid_argument(spec.name + " has no progress policy '" + spec.progress +
                                    "' (its only one is " + r.baseline.policy + ")");
      return r.make(env);
    }
  std::string known;
  for (const auto& s : registry().schemes()) known += s + ", ";
  for (const auto& r : kRawDrivers) known += std::string(r.baseline.name) + ", ";
  known.resize(known.size() - 2);
  try {
    registry().info(spec.name);
  } catch (const std::exception&) {
    throw std::invalid_argument("unknown backend '" + spec.name + "' (known: " + known + ")");
  }
  return make_comm_driver(spec, env);
}

}  // namespace commbench
