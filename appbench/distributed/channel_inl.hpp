// Template part of channel.hpp.
#pragma once

#include <variant>

#include "comm/errors.hpp"

namespace commbench::app {

template <typename T>
T expect(ControlMessage&& m, const std::string& context) {
  if (auto* p = std::get_if<T>(&m)) return std::move(*p);
  ControlMessage want = T{};
  throw ProtocolError(context + ": expected " + name_of(want) + ", got " + name_of(m));
}

}  // namespace commbench::app
