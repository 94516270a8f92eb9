#include "mpi/mpi_wire.hpp"

#include <cctype>
#include <climits>
#include <stdexcept>

namespace commbench::mpi {

const char* to_string(WireShape w) noexcept {
  return w == WireShape::packed ? "packed" : "per-frame";
}

size_t parse_bytes(const std::string& s) {
  size_t pos = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(s, &pos);
  } catch (const std::exception&) {
    throw std::invalid_argument("bad size '" + s + "' (e.g. 4096, 4K, 1M, 1G)");
  }
  std::string unit = s.substr(pos);
  unsigned long long mult = 1;
  if (unit == "K" || unit == "k" || unit == "KiB") mult = 1ull << 10;
  else if (unit == "M" || unit == "m" || unit == "MiB") mult = 1ull << 20;
  else if (unit == "G" || unit == "g" || unit == "GiB") mult = 1ull << 30;
  else if (!unit.empty()) throw std::invalid_argument("bad size '" + s + "' (e.g. 4096, 4K, 1M, 1G)");
  return static_cast<size_t>(v * mult);
}

WireOptions parse_wire_options(const BackendOptions& o) {
  WireOptions w;
  w.limits = o.limits;
  auto get = [&](const char* key) -> const std::string* {
    auto it = o.extra.find(key);
    return it == o.extra.end() ? nullptr : &it->second;
  };
  if (const auto* v = get("wire")) {
    if (*v == "packed") w.shape = WireShape::packed;
    else if (*v == "per-frame") w.shape = WireShape::per_frame;
    else throw std::invalid_argument("mpi wire must be packed or per-frame (got '" + *v + "')");
  }
  if (const auto* v = get("eager")) {
    w.eager = parse_bytes(*v);
    if (w.eager > (1u << 20)) throw std::invalid_argument("mpi eager must be <= 1M");
  }
  if (const auto* v = get("chunk")) {
    w.chunk = parse_bytes(*v);
    if (w.chunk == 0 && !kLargeCount)
      throw std::invalid_argument("mpi chunk=0 (never split) needs MPI-4 large counts; this MPI "
                                  "has none, use at most 1G");
    if (!kLargeCount && w.chunk > static_cast<size_t>(INT_MAX))
      throw std::invalid_argument("mpi chunk must be < 2G without MPI-4 large counts");
  }
  return w;
}

int isend_bytes(const void* p, size_t bytes, int dest, int tag, MPI_Comm c, MPI_Request* r) {
#if MPI_VERSION >= 4
  if (bytes > static_cast<size_t>(INT_MAX))
    return MPI_Isend_c(p, static_cast<MPI_Count>(bytes), MPI_BYTE, dest, tag, c, r);
#endif
  return MPI_Isend(p, static_cast<int>(bytes), MPI_BYTE, dest, tag, c, r);
}

int irecv_bytes(void* p, size_t bytes, int src, int tag, MPI_Comm c, MPI_Request* r) {
#if MPI_VERSION >= 4
  if (bytes > static_cast<size_t>(INT_MAX))
    return MPI_Irecv_c(p, static_cast<MPI_Count>(bytes), MPI_BYTE, src, tag, c, r);
#endif
  return MPI_Irecv(p, static_cast<int>(bytes), MPI_BYTE, src, tag, c, r);
}

size_t received_bytes(const MPI_Status& st) {
#if MPI_VERSION >= 4
  MPI_Count n = 0;
  MPI_Get_count_c(&st, MPI_BYTE, &n);
#else
  int n = 0;
  MPI_Get_count(&st, MPI_BYTE, &n);
#endif
  return n < 0 ? 0 : static_cast<size_t>(n);
}

}  // namespace commbench::mpi
