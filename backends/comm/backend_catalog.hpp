// What a backend offers a user, described once: its progress policies and the keys of
// --backend-opt it reads. Each backend keeps one table that its own parser reads and the
// registry hands to --list-backends, so the listing cannot drift from what is accepted.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace commbench {

// A policy's own progress thread, if it has one: a polling one spins beside its rank's
// loop (a CPU per rank: the report marks a node with more busy threads than CPUs), a
// blocking one sleeps when nothing is in flight.
enum class PolicyThread { none, polling, blocking };
const char* to_string(PolicyThread t) noexcept;

// A progress policy as --list-backends shows it.
struct PolicyInfo {
  std::string name;
  std::string description;
  // Its waits stop the whole event loop (mpi:blocking's MPI_Wait): any pattern where a
  // rank must serve a peer while it waits for its own request (bidirectional bandwidth,
  // the apps' all-to-all fetches) deadlocks, so those refuse it up front.
  bool stalls_loop = false;
  PolicyThread thread = PolicyThread::none;
  // It calls MPI from a thread other than the loop's: the run initialises MPI with
  // MPI_THREAD_MULTIPLE, for every backend of it (the baselines pay the same locking).
  bool needs_mpi_thread_multiple = false;
};

// One KEY of `--backend-opt KEY=VALUE` (BackendOptions::extra) that a backend reads.
struct SettingInfo {
  std::string key;
  std::vector<std::string> values;  // the accepted values; empty = free-form (a size)
  std::string default_value;
  std::string description;
};

// One row of a backend's policy table: the enum value its code switches on, the name
// users type and what it does. The first row of a table is the default.
template <typename E>
struct PolicyEntry {
  E value;
  const char* name;
  const char* description;
  bool stalls_loop = false;  // see PolicyInfo
  PolicyThread thread = PolicyThread::none;
  bool needs_mpi_thread_multiple = false;
};

template <typename E, size_t N>
std::vector<PolicyInfo> describe_policies(const PolicyEntry<E> (&table)[N]) {
  std::vector<PolicyInfo> out;
  for (const auto& row : table)
    out.push_back(
        {row.name, row.description, row.stalls_loop, row.thread, row.needs_mpi_thread_multiple});
  return out;
}

// Throws std::invalid_argument when `name` (of `backend`, in `table`) stalls the loop, in
// one line naming `pattern` (what would deadlock) and the policies that work there.
void refuse_stalling_policy(const std::vector<PolicyInfo>& table, const std::string& name,
                            const std::string& backend, const std::string& pattern);

// Throws std::invalid_argument unless `table` has a policy `name` ("" = its default), in
// the one line every refusal reads: "mpi has no progress policy 'x' (known: batched,
// cooperative, blocking)", the valid names in table order.
inline void check_policy(const std::vector<PolicyInfo>& table, const std::string& name,
                         const std::string& backend) {
  if (name.empty()) return;
  std::string known;
  for (const auto& row : table) {
    if (name == row.name) return;
    known += (known.empty() ? "" : ", ") + row.name;
  }
  throw std::invalid_argument(backend + " has no progress policy '" + name + "' (known: " + known +
                              ")");
}

// The value named `name` ("" = the table's default); throws as check_policy().
template <typename E, size_t N>
E parse_policy(const PolicyEntry<E> (&table)[N], const std::string& name,
               const std::string& backend) {
  if (name.empty()) return table[0].value;
  for (const auto& row : table)
    if (name == row.name) return row.value;
  check_policy(describe_policies(table), name, backend);  // throws: no row is called `name`
  return table[0].value;
}

// The name of `value`, or nullptr when the table has no such row.
template <typename E, size_t N>
const char* policy_name(const PolicyEntry<E> (&table)[N], E value) noexcept {
  for (const auto& row : table)
    if (row.value == value) return row.name;
  return nullptr;
}

}  // namespace commbench
