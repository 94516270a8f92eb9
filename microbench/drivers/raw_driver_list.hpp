// The raw baselines' drivers, in the order of kRawBaselines (raw_baselines.hpp): the one
// list that make_driver() creates them from and run_loop() turns a Driver back into its
// concrete type with. A new raw baseline is a row of kRawBaselines and its driver class
// here (with `static constexpr const RawBaseline& kBaseline`); driver_registry.cpp checks
// at compile time that both lists agree.
#pragma once

#include <cstddef>
#include <type_traits>

namespace commbench {

class RawTcpDriver;
class RawUcxDriver;
class RawMpiDriver;

template <typename... T>
struct TypeList {};
using RawDriverTypes = TypeList<RawTcpDriver, RawUcxDriver, RawMpiDriver>;

namespace detail {
template <typename T, typename... Ts>
constexpr int index_in(TypeList<Ts...>) {
  int i = 0, found = -1;
  ((std::is_same_v<T, Ts> ? (found = i, ++i) : ++i), ...);
  return found;
}
}  // namespace detail

// T's place in RawDriverTypes: what Driver::raw_index() holds for a T.
template <typename T>
inline constexpr int kRawIndex = detail::index_in<T>(RawDriverTypes{});

}  // namespace commbench
