#include "distributed/functions.hpp"

#include <stdexcept>

namespace commbench::app {

const TaskFunction& FunctionTable::get(const std::string& name) const {
  auto it = fns_.find(name);
  if (it == fns_.end()) throw std::invalid_argument("unknown task function '" + name + "'");
  return it->second;
}

}  // namespace commbench::app
