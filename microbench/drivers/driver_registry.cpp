// Driver names: the raw baselines by name, everything else through the comm registry.
#include <iterator>
#include <string_view>

#include "comm/backend_catalog.hpp"
#include "drivers/comm_driver.hpp"
#include "drivers/driver.hpp"
#include "drivers/raw_driver_list.hpp"
#include "drivers/raw_mpi_driver.hpp"
#include "drivers/raw_tcp_driver.hpp"
#include "drivers/raw_ucx_driver.hpp"
#include "harness/backend_listing.hpp"
#include "harness/raw_baselines.hpp"

namespace commbench {

namespace {

// The driver list and the baselines' table name the same baselines in the same order.
template <typename... T>
constexpr bool lists_agree(TypeList<T...>) {
  if (sizeof...(T) != std::size(kRawBaselines)) return false;
  size_t i = 0;
  return ((std::string_view(T::kBaseline.name) == kRawBaselines[i++].name) && ...);
}
static_assert(lists_agree(RawDriverTypes{}),
              "RawDriverTypes (raw_driver_list.hpp) and kRawBaselines disagree");

// The raw driver called spec.name, or null when it names none.
template <typename... T>
std::unique_ptr<Driver> make_raw(const BackendSpec& spec, DriverEnv& env, TypeList<T...>) {
  std::unique_ptr<Driver> d;
  auto make = [&]<typename D>() {
    const RawVariant* v = find_variant(D::kBaseline, spec.progress);
    if (!v) check_policy(backend_policies(spec.name, true), spec.progress, spec.name);  // throws
    d = std::make_unique<D>(env, *v);
  };
  ((spec.name == T::kBaseline.name ? (make.template operator()<T>(), true) : false) || ...);
  return d;
}

}  // namespace

std::unique_ptr<Driver> make_driver(const BackendSpec& spec, DriverEnv& env) {
  // `spec` was checked where --backend was parsed (resolve_selection, before MPI started);
  // a coroutine backend parses its policy itself, a raw baseline's variant is looked up.
  if (auto raw = make_raw(spec, env, RawDriverTypes{})) return raw;
  auto d = make_comm_driver(spec, env);
  d->set_idle(spec.idle);
  return d;
}

}  // namespace commbench
