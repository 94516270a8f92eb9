#include "harness/secret_env.hpp"

#include <gtest/gtest.h>

using namespace commbench;

TEST(SecretEnv, LauncherSecretsAreDropped) {
  for (const char* name :
       {"OMPI_MCA_orte_precondition_transports", "OMPI_MCA_orte_hnp_uri", "OMPI_MCA_HNP_URI",
        "PMIX_SERVER_URI41", "OMPI_MCA_orte_local_daemon_uri", "PMIX_SECURITY_MODE",
        "COMMBENCH_API_TOKEN", "UCX_Secret", "MPICH_PASSWORD", "FI_KEY", "COMMBENCH_ssh_key"})
    EXPECT_TRUE(is_secret_variable(name)) << name;
}

TEST(SecretEnv, OrdinarySettingsAreKept) {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "UCX_TLS", "MPIR_CVAR_CH4_NETMOD",
                           "COMMBENCH_RESULTS", "CUDA_VISIBLE_DEVICES", "OMPI_MCA_pml"})
    EXPECT_FALSE(is_secret_variable(name)) << name;
}
