// Which environment variables never go into a sidecar.
#pragma once

#include <string_view>

namespace commbench {

// Launchers hand their ranks secrets through the environment: Open MPI's job key
// (OMPI_MCA_orte_precondition_transports), the HNP contact URI, PMIx's server URIs and
// security settings, and any site token, secret, password or key. They identify one live
// job and mean nothing afterwards, and sidecars are committed with the results, so a
// variable whose name contains any of these (case-insensitive) is left out.
bool is_secret_variable(std::string_view name) noexcept;

}  // namespace commbench
