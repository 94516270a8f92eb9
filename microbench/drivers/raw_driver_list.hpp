// The raw baselines' drivers, in the order of kRawBaselines (raw_baselines.hpp): the one
// list that make_driver() creates them from and run_loop() casts a Driver back to. A new
// raw baseline is a row of kRawBaselines and its driver class here (with `static constexpr
// const RawBaseline& kBaseline`); driver_registry.cpp checks at compile time that both
// lists agree.
#pragma once

namespace commbench {

class RawTcpDriver;
class RawUcxDriver;
class RawMpiDriver;

template <typename... T>
struct TypeList {};
using RawDriverTypes = TypeList<RawTcpDriver, RawUcxDriver, RawMpiDriver>;

}  // namespace commbench
