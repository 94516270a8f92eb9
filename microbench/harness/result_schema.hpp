// The one tidy CSV schema every benchmark writes (documented in results/README.md).
// One row per measured point; units are in the column names; a column that does not
// apply to a benchmark stays empty.
#pragma once

#include <array>
#include <string_view>

namespace commbench {

inline constexpr std::array kResultColumns = {
    // what was run
    std::string_view{"benchmark"},  // pingpong | bandwidth | bibw | transpose_sum | merge
    std::string_view{"origin"},     // suite | external (ucx_perftest, NetPIPE, OSU, dask)
    std::string_view{"backend"},    // tcp | raw-tcp | mpi | raw-mpi | ucx | raw-ucx | ...
    std::string_view{"progress"},   // progress policy of the backend
    std::string_view{"wire"},       // wire protocol shape where a backend has several
    std::string_view{"idle"},       // the entry's @idle rule (spin | budget | block); empty:
                                    // the run's --idle-spin (sidecar: spin_budget_ns)
    std::string_view{"mpi"},        // openmpi | mpich
    std::string_view{"memory_send"},
    std::string_view{"memory_recv"},
    std::string_view{"gpu_path"},   // none | pass-through | staged | cuda-ipc
    std::string_view{"layout"},     // application layout: dask | compact
    std::string_view{"ranks"},
    std::string_view{"workers"},
    std::string_view{"size_bytes"},
    std::string_view{"iterations"},  // timed iterations per size, summed over repetitions
    std::string_view{"reps"},
    std::string_view{"window"},
    // microbenchmark results
    std::string_view{"latency_us_p50"},
    std::string_view{"latency_us_avg"},
    std::string_view{"latency_us_min"},
    std::string_view{"latency_us_p90"},
    std::string_view{"latency_us_p99"},
    std::string_view{"latency_us_p999"},  // the 99.9th percentile
    std::string_view{"latency_us_max"},
    std::string_view{"latency_us_best_rep_avg"},  // lowest repetition mean (NetPIPE's statistic)
    std::string_view{"bandwidth_MBps"},  // 10^6 bytes/s, median over repetitions
    std::string_view{"bandwidth_MBps_min"},
    std::string_view{"bandwidth_MBps_max"},
    // application results
    std::string_view{"wall_s"},
    std::string_view{"comm_s"},             // a worker's time with a transfer in flight, mean
    std::string_view{"comm_s_max_worker"},  // ... the largest over workers
    std::string_view{"wait_s"},             // idle with a task held back by missing inputs, mean
    std::string_view{"wait_s_max_worker"},  // ... the largest over workers
    std::string_view{"transfer_s"},         // sum of every transfer's duration (overlaps counted)
    std::string_view{"bytes_moved"},
    std::string_view{"throughput_MBps"},
    std::string_view{"rows_per_s"},
    // integrity and bookkeeping
    std::string_view{"wrong"},      // bytes (or rows) that failed validation; empty if not validated
    std::string_view{"validated"},  // 1 if every byte was checked
    std::string_view{"run"},        // repetition number (applications) or empty
    std::string_view{"run_id"},     // ties rows to the JSON sidecar
};

}  // namespace commbench
