# Integration tests of the application benchmarks: every workload at small sizes under
# the MPI launcher this build uses, 3 and 4 ranks, both layouts, every backend listed in
# COMMBENCH_APPBENCH_BACKENDS, each run validated (the benchmark exits non-zero on a wrong
# checksum or row count); plus failure tests: a worker that dies mid-run must make the
# client fail naming it, and bad input must fail with one line.
set(COMMBENCH_APPBENCH_BACKENDS "tcp;mpi;ucx" CACHE STRING "Backends the appbench tests run on")

set(_launch ${MPIEXEC_EXECUTABLE})
if(COMMBENCH_MPI_FLAVOR STREQUAL "openmpi")
  list(APPEND _launch --oversubscribe)
endif()
# MPICH's launcher kills every rank the moment one dies, before the survivors can say
# which peer was lost; -disable-auto-cleanup lets them report and exit on their own.
set(_launch_faults ${_launch})
if(COMMBENCH_MPI_FLAVOR STREQUAL "mpich")
  list(APPEND _launch_faults -disable-auto-cleanup)
endif()
# Leak detection on (ASan preset): the runtime's own allocations are checked at every
# rank's exit, MPI_Init's are suppressed (tests/sanitizers/lsan.supp).
set(_env ${COMMBENCH_LEAKCHECK_ENV})
# _appbench_test(NAME EXIT REGEX TIMEOUT CMD...): CMD must exit zero (and print REGEX, and
# no "validation: FAILED" or error line) or nonzero (and print REGEX); see expect_exit.cmake.
function(_appbench_test name exit regex timeout)
  set(extra)
  if(exit STREQUAL "zero")
    set(extra "-DFAIL_REGEX=validation: FAILED|: error")
  endif()
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} "-DCMD=${ARGN}" "-DEXIT=${exit}" "-DREGEX=${regex}" ${extra}
                   -P ${CMAKE_SOURCE_DIR}/tests/integration/expect_exit.cmake)
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${_env}" TIMEOUT ${timeout})
endfunction()

# Small but not trivial: N is not a multiple of C (edge blocks), several blocks per worker.
set(_args_transpose_sum -n 600 -c 160 --runs 2)
set(_args_merge --chunk-size 30000 --runs 2)
# groupby: more groups than a worker's rows would hold alone, so partials really overlap.
set(_args_groupby --chunk-size 30000 --groups 5000 --runs 2)
set(_args_sort --chunk-size 30000 --samples 64 --runs 2)
# matmul: 4 x 4 blocks, 64 partial products.
set(_args_matmul -n 512 -c 128 --runs 2)

foreach(backend IN LISTS COMMBENCH_APPBENCH_BACKENDS)
  foreach(np 3 4)
    foreach(layout compact dask)
      foreach(app transpose_sum merge)
        _appbench_test(appbench.${app}.${backend}.np${np}.${layout} zero "validation: PASSED" 120
                       ${_launch} ${MPIEXEC_NUMPROC_FLAG} ${np} $<TARGET_FILE:${app}>
                       --backend ${backend} --layout ${layout} --timeout 100 ${_args_${app}})
      endforeach()
    endforeach()
  endforeach()
endforeach()

# The progress-thread policies run both apps too (3 ranks, compact: the pattern the
# all-to-all fetches exercise is the same at 4), and mpi:blocking, whose MPI_Wait would
# deadlock the workers' concurrent fetches, is refused in one line.
foreach(policy ucx:thread ucx:thread-blocking mpi:thread)
  string(REPLACE ":" "_" _pol ${policy})
  foreach(app transpose_sum merge)
    _appbench_test(appbench.${app}.${_pol}.np3.compact zero "validation: PASSED" 120
                   ${_launch} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:${app}>
                   --backend ${policy} --layout compact --timeout 100 ${_args_${app}})
  endforeach()
endforeach()

# groupby, sort and matmul: CI runs one backend each at 3 ranks (the compact layout); the
# full backend x ranks x layout matrix carries the label appbench_full, which the default
# test presets exclude (run it with: ctest --preset openmpi-full, or mpich-full).
set(_ci_backend_groupby tcp)
set(_ci_backend_sort mpi)
set(_ci_backend_matmul ucx)
foreach(app groupby sort matmul)
  foreach(backend IN LISTS COMMBENCH_APPBENCH_BACKENDS)
    foreach(np 3 4)
      foreach(layout compact dask)
        set(name appbench.${app}.${backend}.np${np}.${layout})
        _appbench_test(${name} zero "validation: PASSED" 120
                       ${_launch} ${MPIEXEC_NUMPROC_FLAG} ${np} $<TARGET_FILE:${app}>
                       --backend ${backend} --layout ${layout} --timeout 100 ${_args_${app}})
        if(NOT (backend STREQUAL _ci_backend_${app} AND np EQUAL 3 AND layout STREQUAL "compact"))
          set_tests_properties(${name} PROPERTIES LABELS appbench_full)
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()
# The summary every app ends with (dask-cuda style): medians with their spread, and the
# bandwidth of each worker pair.
_appbench_test(appbench.summary_table zero "summary of 2 timed runs.*\\(0,1\\) +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9.]+.*\\(1,0\\)" 120
               ${_launch} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:merge> --backend tcp --timeout 100
               ${_args_merge})

# Teardown with readers still suspended: at this size the scheduler's rank usually ends
# while it is still reading a worker connection that has not hung up yet; before the
# ChannelSet teardown, 5 of 6 tcp runs validated and then crashed at exit (rc 139/134).
foreach(backend IN LISTS COMMBENCH_APPBENCH_BACKENDS)
  _appbench_test(appbench.transpose_sum.${backend}.clean_exit zero "validation: PASSED" 120
                 ${_launch} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:transpose_sum>
                 --backend ${backend} --timeout 100 -n 2048 -c 512 --runs 2)
endforeach()

# Worker 1 exits like a crash on its 3rd task (transpose: while x is made): the client must
# exit non-zero with a line naming the lost worker, well inside the timeout.
foreach(app transpose_sum merge)
  _appbench_test(appbench.${app}.worker_dies nonzero "lost worker 1 \\(rank 2" 90
                 ${_launch_faults} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:${app}> --backend tcp
                 --timeout 60 --test-kill-worker 1:3 --runs 2)
endforeach()

# Too few ranks for a layout, and a bad option: one clear line, non-zero exit.
_appbench_test(appbench.too_few_ranks nonzero "--layout dask needs at least 3 ranks" 60
               ${_launch} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:transpose_sum> --layout dask)
_appbench_test(appbench.bad_option nonzero "--frac-match: must be in" 60
               $<TARGET_FILE:merge> --frac-match 2)

# Bad input, one case per line: NAME RANKS APP REGEX ARGS... Each must exit non-zero with
# one line that matches, before anything is allocated or timed (no hang, no partial CSV).
function(_appbench_bad name np app regex)
  _appbench_test(appbench.bad_${name} nonzero "${regex}" 60
                 ${_launch} ${MPIEXEC_NUMPROC_FLAG} ${np} $<TARGET_FILE:${app}> ${ARGN})
endfunction()
_appbench_bad(size_zero 3 transpose_sum "--size: must be in \\[1, [0-9]+\\], got 0" -n 0)
_appbench_bad(chunk_zero 3 transpose_sum "--chunk: must be in \\[1, [0-9]+\\], got 0" -c 0)
_appbench_bad(chunk_above_size 3 transpose_sum "--chunk \\(200\\) exceeds --size \\(100\\)" -n 100 -c 200)
_appbench_bad(size_too_large 3 transpose_sum "--size: must be in \\[1, 1048576\\], got 2000000" -n 2000000)
_appbench_bad(size_beyond_memory 3 transpose_sum "--size 1000000 needs about [0-9]+ MiB per worker; this host has" -n 1000000 -c 1000)
_appbench_bad(unknown_preset 3 transpose_sum "unknown --preset 'huge'" --preset huge)
_appbench_bad(unknown_layout 3 transpose_sum "unknown --layout 'ring'" --layout ring)
_appbench_bad(unknown_backend 3 transpose_sum "unknown backend 'pigeon' \\(known: tcp, mpi, ucx\\)" --backend pigeon)
_appbench_bad(stalling_policy 3 merge "mpi:blocking stops the event loop while it waits, so an app \\(workers fetch from each other at once\\) would deadlock" --backend mpi:blocking)
_appbench_bad(unknown_policy 3 merge "mpi has no progress policy 'telepathy' \\(known: batched, cooperative, thread, blocking\\)" --backend mpi:telepathy)
_appbench_bad(two_backends 3 merge "--backend takes one backend in an app" --backend tcp,mpi)
_appbench_bad(runs_zero 3 transpose_sum "--runs: must be >= 1, got 0" --runs 0)
_appbench_bad(runs_negative 3 transpose_sum "--runs: must be >= 1, got -1" --runs -1)
_appbench_bad(warmup_negative 3 merge "--warmup: must be >= 0, got -1" --warmup -1)
_appbench_bad(csv_unwritable 3 transpose_sum "cannot write /no-such-dir/x.csv" -n 64 -c 32 --runs 1 --csv /no-such-dir/x.csv)
_appbench_bad(kill_spec 3 transpose_sum "--test-kill-worker expects WORKER:TASK" --test-kill-worker x)
_appbench_bad(merge_rows_zero 3 merge "--chunk-size: must be in \\[1, [0-9]+\\], got 0" --chunk-size 0)
_appbench_bad(merge_rows_beyond_memory 3 merge "--chunk-size 100000000000 needs about [0-9]+ MiB per worker" --chunk-size 100000000000)
_appbench_bad(merge_rows_below_workers 3 merge "must be at least the number of workers" --chunk-size 1)
_appbench_bad(merge_frac_not_number 3 merge "Could not convert: --frac-match = abc" --frac-match abc)
_appbench_bad(merge_interface 3 merge "no IPv4 interface named 'nonexistent0'" --interface nonexistent0)
# --inject-delay takes microseconds >= 0: anything else is one line, before MPI starts.
add_test(NAME appbench.bad_inject_delay
         COMMAND ${CMAKE_SOURCE_DIR}/tests/integration/expect_error.sh
                 "bad --inject-delay '-1' \\(microseconds" $<TARGET_FILE:merge> --inject-delay -1)
set_tests_properties(appbench.bad_inject_delay PROPERTIES TIMEOUT 60)

# The new workloads' options: zero, negative, beyond memory, a key range too small for the
# groups, more groups than rows, more samples than rows, a matmul chunk that does not divide
# the matrix.
_appbench_bad(groupby_rows_zero 3 groupby "--chunk-size: must be in \\[1, [0-9]+\\], got 0" --chunk-size 0)
_appbench_bad(groupby_rows_negative 3 groupby "--chunk-size: must be in \\[1, [0-9]+\\], got -5" --chunk-size -5)
_appbench_bad(groupby_rows_beyond_memory 3 groupby "--chunk-size 100000000000 needs about [0-9]+ MiB per worker" --chunk-size 100000000000)
_appbench_bad(groupby_groups_zero 3 groupby "--groups: must be in \\[1, [0-9]+\\], got 0" --groups 0)
_appbench_bad(groupby_groups_negative 3 groupby "--groups: must be in \\[1, [0-9]+\\], got -1" --groups -1)
_appbench_bad(groupby_key_range_too_small 3 groupby "--key-range \\(100\\) is smaller than --groups \\(1000\\)" --chunk-size 5000 --groups 1000 --key-range 100)
_appbench_bad(groupby_groups_above_rows 3 groupby "--groups \\(50000\\) exceeds the rows of the table \\(1000 x 2 workers\\)" --chunk-size 1000 --groups 50000)
_appbench_bad(sort_rows_zero 3 sort "--chunk-size: must be in \\[1, [0-9]+\\], got 0" --chunk-size 0)
_appbench_bad(sort_rows_beyond_memory 3 sort "--chunk-size 1000000000000 needs about [0-9]+ MiB per worker" --chunk-size 1000000000000)
_appbench_bad(sort_samples_zero 3 sort "--samples: must be in \\[1, [0-9]+\\], got 0" --samples 0)
_appbench_bad(sort_samples_negative 3 sort "--samples: must be in \\[1, [0-9]+\\], got -3" --samples -3)
_appbench_bad(sort_samples_above_rows 3 sort "--samples \\(500\\) exceeds --chunk-size \\(100\\)" --chunk-size 100 --samples 500)
_appbench_bad(matmul_size_zero 3 matmul "--size: must be in \\[1, [0-9]+\\], got 0" -n 0)
_appbench_bad(matmul_chunk_zero 3 matmul "--chunk: must be in \\[1, [0-9]+\\], got 0" -c 0)
_appbench_bad(matmul_chunk_negative 3 matmul "--chunk: must be in \\[1, [0-9]+\\], got -8" -c -8)
_appbench_bad(matmul_chunk_not_dividing 3 matmul "--chunk \\(300\\) does not divide --size \\(1000\\)" -n 1000 -c 300)
_appbench_bad(matmul_chunk_above_size 3 matmul "--chunk \\(2048\\) exceeds --size \\(1024\\)" -n 1024 -c 2048)
_appbench_bad(matmul_too_many_blocks 3 matmul "--size / --chunk = 1024 blocks per dimension; at most 64" -n 1024 -c 1)
_appbench_bad(matmul_size_beyond_memory 3 matmul "--size 1048576 --chunk 16384 needs about [0-9]+ MiB per worker" -n 1048576 -c 16384)

# The event loop's idle options reach every app as they reach the microbenchmarks (one
# run layer, harness/run_selection.hpp): a loop that blocks as soon as it is idle and
# yields at once still validates; a bad value is one line, before MPI starts.
foreach(app transpose_sum merge)
  _appbench_test(appbench.${app}.tcp.idle_spin_0 zero "validation: PASSED" 120
                 ${_launch} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:${app}> --backend tcp
                 --timeout 100 --idle-spin 0 --idle-yield-after 0 ${_args_${app}})
endforeach()
add_test(NAME appbench.bad_idle_spin
         COMMAND ${CMAKE_SOURCE_DIR}/tests/integration/expect_error.sh
                 "--idle-spin: must be >= 0, got -1" $<TARGET_FILE:transpose_sum> --idle-spin -1)
add_test(NAME appbench.bad_idle_spin_value
         COMMAND ${CMAKE_SOURCE_DIR}/tests/integration/expect_error.sh
                 "Could not convert: --idle-spin = fast" $<TARGET_FILE:merge> --idle-spin fast)
set_tests_properties(appbench.bad_idle_spin appbench.bad_idle_spin_value PROPERTIES TIMEOUT 60)

# The limits a peer's header is checked against follow the app's data (64 MiB floor for
# the control traffic) instead of 8/16 GiB: the sidecar records them. About 2 s.
add_test(NAME appbench.limits_follow_data
         COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/integration/check_app_limits.py
                 ${CMAKE_CURRENT_BINARY_DIR}/limits -- ${_launch} ${MPIEXEC_NUMPROC_FLAG} 3
                 $<TARGET_FILE:transpose_sum> --backend tcp -n 64 -c 32 --runs 1)
set_tests_properties(appbench.limits_follow_data PROPERTIES ENVIRONMENT "${_env}" TIMEOUT 120)

# comm_s is wall-clock time with a transfer in flight (never above wall_s), transfer_s the
# plain sum, wait_s the idle time waiting for inputs: 3 workers fetching concurrently
# overlap their transfers, which the summed metric counted several times. About 3 s each.
foreach(app transpose_sum matmul)
  set(_m_args -n 512 -c 64 --runs 3)
  add_test(NAME appbench.metrics_fit_the_run.${app}
           COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/integration/check_app_metrics.py
                   ${CMAKE_CURRENT_BINARY_DIR}/metrics_${app} -- ${_launch} ${MPIEXEC_NUMPROC_FLAG} 4
                   $<TARGET_FILE:${app}> --backend tcp --layout compact --timeout 100 ${_m_args})
  set_tests_properties(appbench.metrics_fit_the_run.${app} PROPERTIES ENVIRONMENT "${_env}"
                                                                     TIMEOUT 120)
endforeach()

# Validation is seen failing in an app: each worker flips a byte of every value it
# fetches (--test-corrupt-fetch), and the run must exit 1 saying "validation: FAILED" with
# wrong > 0 in every row. The apps whose check covers every byte (block checksums); merge,
# groupby and sort check counts and sums of keys, which one flipped payload byte need not
# change. ~3 s each.
foreach(app transpose_sum matmul)
  set(_c_args ${_args_${app}})
  add_test(NAME appbench.validation_catches_corrupt_fetch.${app}
           COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/integration/check_validation_fails.py
                   ${CMAKE_CURRENT_BINARY_DIR}/corrupt_${app}.csv -- ${_launch}
                   ${MPIEXEC_NUMPROC_FLAG} 4 $<TARGET_FILE:${app}> --backend tcp --timeout 100
                   --test-corrupt-fetch 1 ${_c_args})
  set_tests_properties(appbench.validation_catches_corrupt_fetch.${app} PROPERTIES
                       ENVIRONMENT "${_env}" TIMEOUT 120)
endforeach()

# --memory cuda on the simulated device (COMMBENCH_SIMULATE_GPU=1: host memory with deferred
# copies stands in for the GPU, and the host kernels run on it): the blocks live in device
# memory, every channel stages (gpu/staged_comm.hpp), and the run validates as on host
# memory. The simulated default stream lands each block's copy() late, so a comm that sent
# a block without ordering after it would fail validation here. Pass-through is checked on
# mpi with a faked CUDA-aware answer (COMMBENCH_FAKE_CUDA_AWARE, test-only).
foreach(backend IN LISTS COMMBENCH_APPBENCH_BACKENDS)
  foreach(app transpose_sum merge)
    _appbench_test(appbench.${app}.simulated_gpu.${backend} zero "validation: PASSED" 120
                   ${_launch} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:${app}>
                   --backend ${backend} --memory cuda --gpu-chunk 64K --timeout 100
                   ${_args_${app}})
    set_property(TEST appbench.${app}.simulated_gpu.${backend} APPEND PROPERTY ENVIRONMENT
                 COMMBENCH_SIMULATE_GPU=1)
    # CUDA IPC on every channel (gpu/cuda_ipc_comm.hpp; the simulated device memory is
    # shared memory that the peer maps).
    _appbench_test(appbench.${app}.simulated_gpu_cuda_ipc.${backend} zero "validation: PASSED" 120
                   ${_launch} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:${app}>
                   --backend ${backend} --memory cuda --gpu-path cuda-ipc --timeout 100
                   ${_args_${app}})
    set_property(TEST appbench.${app}.simulated_gpu_cuda_ipc.${backend} APPEND PROPERTY
                 ENVIRONMENT COMMBENCH_SIMULATE_GPU=1)
  endforeach()
endforeach()
if("mpi" IN_LIST COMMBENCH_APPBENCH_BACKENDS)
  _appbench_test(appbench.merge.simulated_gpu.mpi_pass_through zero
                 "validation: PASSED" 120
                 ${_launch} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:merge> --backend mpi
                 --memory cuda --gpu-path pass-through --timeout 100 ${_args_merge})
  set_property(TEST appbench.merge.simulated_gpu.mpi_pass_through APPEND PROPERTY ENVIRONMENT
               COMMBENCH_SIMULATE_GPU=1 COMMBENCH_FAKE_CUDA_AWARE=mpi)
endif()
# Device memory that cannot work is one line: no GPU (or no CUDA build) at the device
# check, a GPU machine at the path (pass-through over a library without CUDA support).
# (tests/integration/expect_error.sh: non-zero, one error line, no sanitizer report.)
foreach(app transpose_sum merge)
  add_test(NAME appbench.${app}.cuda_refused
           COMMAND ${CMAKE_SOURCE_DIR}/tests/integration/expect_error.sh
                   "--memory cuda: |reports no CUDA support"
                   ${_launch} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:${app}> --backend tcp
                   --memory cuda --gpu-path pass-through ${_args_${app}})
  set_tests_properties(appbench.${app}.cuda_refused PROPERTIES TIMEOUT 60 ENVIRONMENT "${_env}")
endforeach()
