# shellcheck shell=bash
# Sourced by prepare_bundle.sh, check_bundle.sh and run_gpu_bench.sh: what the GPU bundle
# carries, where its libraries are, and how to tell what an ELF file needs.
#
# The bundle carries every library its binaries and the unpacked Open MPI/UCX runtime
# need, derived with ldd and mapped to Debian packages with dpkg -S (a hand list missed
# liburing2 once, and no benchmark could start on the GPU machine), except what the GPU
# machine is trusted to have: glibc, the C++ runtime and the NVIDIA driver. Each of those
# is on every CUDA machine and backward compatible (a newer one runs Debian 12 binaries),
# and older copies on LD_LIBRARY_PATH would shadow the host's own for every program the
# run starts (python3, nvidia-smi).

# Packages never carried, and the libraries a bundled file may resolve outside the bundle.
# shellcheck disable=SC2034  # used by the scripts that source this file
bundle_host_packages=(libc6 libstdc++6 libgcc-s1)
bundle_host_libs='^(linux-vdso|ld-linux-x86-64|libc|libm|libmvec|libdl|libpthread|librt|libresolv|libutil|libanl|libnss_[a-z]+|libstdc\+\+|libgcc_s|libcuda|libnvidia-[a-z-]+)\.so(\.[0-9]+)*$'

# The bundle's library directories, in search order (dpkg -x keeps Debian's layout: most
# libraries under usr/lib, a few such as zlib under lib). UCX's transport modules link
# each other through a RUNPATH naming Debian's ucx/ directory; LD_LIBRARY_PATH comes first.
bundle_library_path() {  # bundle dir
  local rt=$1/root
  local lib=$rt/usr/lib/x86_64-linux-gnu
  echo "$lib:$lib/openmpi/lib:$lib/ucx:$rt/lib/x86_64-linux-gnu"
}

# The relocated runtime: OPAL_PREFIX moves Open MPI's prefix (its plugins and help files
# follow), UCX finds its transports through UCX_MODULE_DIR.
bundle_export_env() {  # bundle dir
  local rt=$1/root lib=$1/root/usr/lib/x86_64-linux-gnu
  export LD_LIBRARY_PATH
  LD_LIBRARY_PATH=$(bundle_library_path "$1")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export OPAL_PREFIX=$rt/usr
  export PATH=$rt/usr/bin:$PATH
  export OMPI_MCA_mca_base_component_path=$lib/openmpi/lib/openmpi3
  export UCX_MODULE_DIR=$lib/ucx
}

# The CUDA-aware UCX the bundle may carry (ucx-cuda/, from build_cuda_ucx.sh), ahead of
# Debian's: its libraries first on the path and its transports as UCX's modules. Returns 1
# when the bundle has none.
bundle_use_cuda_ucx() {  # bundle dir
  local cu=$1/ucx-cuda
  [ -x "$cu/bin/ucx_info" ] || return 1
  export LD_LIBRARY_PATH=$cu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export UCX_MODULE_DIR=$cu/lib/ucx
  export PATH=$cu/bin:$PATH
}

# The ELF files (programs, libraries, plugins) under the given directories or files, one
# per line; symbolic links are skipped (their targets are listed).
bundle_elf_files() {
  local f magic
  find "$@" -type f 2>/dev/null | sort | while IFS= read -r f; do
    IFS= read -r -n 4 magic <"$f" 2>/dev/null || true
    [ "$magic" = $'\x7fELF' ] && echo "$f"
  done
  return 0
}

# What the dynamic loader resolves for each given file, as "<file>\t<soname>\t<resolved
# path | not found>" lines, with the current LD_LIBRARY_PATH; the vdso and files that are
# not dynamically linked produce none. This is ldd without its wrapper script (one process
# per file, not three): the loader's own trace.
bundle_ldd() {
  local f rtld=/lib64/ld-linux-x86-64.so.2
  for f in "$@"; do
    printf '@@file %s\n' "$f"
    if [ -x "$rtld" ]; then
      LD_TRACE_LOADED_OBJECTS=1 "$rtld" "$f" 2>/dev/null
    else
      ldd "$f" 2>/dev/null
    fi
  done | awk '
    /^@@file / { file = substr($0, 8); next }
    $2 == "=>" && $3 == "not" { printf "%s\t%s\tnot found\n", file, $1; next }
    $2 == "=>" && $3 ~ /^\// { printf "%s\t%s\t%s\n", file, $1, $3; next }
    $1 ~ /^\// { n = split($1, p, "/"); printf "%s\t%s\t%s\n", file, p[n], $1 }'
}

# Candidate names of library `path` in dpkg's database: with merged /usr a file is
# recorded under /lib or /usr/lib, as its package ships it, and ldd may name a symlink.
bundle_dpkg_names() {
  local p=$1 real
  real=$(readlink -f "$p")
  printf '%s\n' "$p" "$real" "${p#/usr}" "${real#/usr}" "/usr$p" "/usr$real" | awk '!seen[$0]++'
}

# The packages that provide what the given ELF files need, one per line, less
# bundle_host_packages. A library that ldd cannot find, or that no package installed,
# is reported on stderr and makes it return 1. One dpkg -S for all (it is slow per call).
bundle_needed_packages() {
  local file soname path name pkg line status=0
  local -a paths=() names=() pkgs=()
  local -A seen=() owner=()
  while IFS=$'\t' read -r file soname path; do
    if [ "$path" = "not found" ]; then
      echo "bundle: $soname (needed by $file) is not installed here" >&2
      status=1
    elif [ -z "${seen[$path]+x}" ]; then
      seen[$path]=$file
      paths+=("$path")
    fi
  done < <(bundle_ldd "$@")
  [ ${#paths[@]} -gt 0 ] || return "$status"
  for path in "${paths[@]}"; do mapfile -t -O ${#names[@]} names < <(bundle_dpkg_names "$path"); done
  while IFS= read -r line; do
    [[ $line == diversion* ]] && continue
    pkg=${line%%: *} name=${line#*: }
    pkg=${pkg%%,*}  # "a, b: path" when packages share it: the first
    owner[$name]=${pkg%%:*}
  done < <(dpkg -S "${names[@]}" 2>/dev/null)
  for path in "${paths[@]}"; do
    pkg=
    while IFS= read -r name; do
      if [ -n "${owner[$name]+x}" ]; then pkg=${owner[$name]}; break; fi
    done < <(bundle_dpkg_names "$path")
    if [ -z "$pkg" ]; then
      echo "bundle: no Debian package owns $path (needed by ${seen[$path]})" >&2
      status=1
    else
      pkgs+=("$pkg")
    fi
  done
  printf '%s\n' "${pkgs[@]}" | sort -u |
    grep -vxF -f <(printf '%s\n' "${bundle_host_packages[@]}") || true
  return "$status"
}
