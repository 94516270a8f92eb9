#include "harness/secret_env.hpp"

#include <algorithm>
#include <cctype>

namespace commbench {

bool is_secret_variable(std::string_view name) noexcept {
  // "_uri": every launcher contact address (Open MPI's HNP and local daemon, PMIx servers).
  static constexpr std::string_view kMarks[] = {
      "precondition_transports", "_uri", "pmix_security", "token", "secret", "password", "key"};
  auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  };
  for (std::string_view mark : kMarks)
    if (std::search(name.begin(), name.end(), mark.begin(), mark.end(), same) != name.end())
      return true;
  return false;
}

}  // namespace commbench
