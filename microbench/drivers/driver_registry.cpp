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
  // `spec` was checked where --backend was parsed (resolve_selection, before MPI started);
  // a coroutine backend parses its policy itself, a raw baseline's variant is looked up.
  for (const auto& r : kRawDrivers)
    if (spec.name == r.baseline.name) {
      const RawVariant* v = find_variant(r.baseline, spec.progress);
      if (!v) check_policy(backend_policies(spec.name, true), spec.progress, spec.name);  // throws
      return r.make(env, *v);
    }
  auto d = make_comm_driver(spec, env);
  d->set_idle(spec.idle);
  return d;
}

}  // namespace commbench
