// Driver names: the raw baselines by name, everything else through the comm registry.
#include "comm/backend_catalog.hpp"
#include "drivers/comm_driver.hpp"
#include "drivers/driver.hpp"
#include "drivers/raw_baselines.hpp"
#include "harness/backend_listing.hpp"

namespace commbench {

std::unique_ptr<Driver> make_raw_tcp_driver(DriverEnv& env, const RawVariant& variant);
std::unique_ptr<Driver> make_raw_ucx_driver(DriverEnv& env, const RawVariant& variant);
std::unique_ptr<Driver> make_raw_mpi_driver(DriverEnv& env, const RawVariant& variant);

namespace {
struct RawDriver {
  const RawBaseline& baseline;
  std::unique_ptr<Driver> (*make)(DriverEnv&, const RawVariant&);
};
const RawDriver kRawDrivers[] = {
    {kRawTcp, &make_raw_tcp_driver},
    {kRawUcx, &make_raw_ucx_driver},
    {kRawMpi, &make_raw_mpi_driver},
};
}  // namespace

std::unique_ptr<Driver> make_driver(const BackendSpec& spec, DriverEnv& env) {
  // The same check --backend had before MPI started: the name and the policy from the
  // backends' own tables (a raw baseline's variants, by the names its CSV rows report).
  check_policy(backend_policies(spec.name, true), spec.progress, spec.name);
  for (const auto& r : kRawDrivers)
    if (spec.name == r.baseline.name) return r.make(env, *find_variant(r.baseline, spec.progress));
  auto d = make_comm_driver(spec, env);
  d->set_idle(spec.idle);
  return d;
}

}  // namespace commbench
