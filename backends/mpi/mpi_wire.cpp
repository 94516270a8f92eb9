#include "mpi/mpi_wire.hpp"

#include <cctype>
#include <climits>
#include <stdexcept>

#include "comm/errors.hpp"

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
  if (unit == "K" || unit == "k" || unit == "KiB")
    mult = 1ull << 10;
  else if (unit == "M" || unit == "m" || unit == "MiB")
    mult = 1ull << 20;
  else if (unit == "G" || unit == "g" || unit == "GiB")
    mult = 1ull << 30;
  else if (!unit.empty())
    throw std::invalid_argument("bad size '" + s + "' (e.g. 4096, 4K, 1M, 1G)");
  return static_cast<size_t>(v * mult);
}

namespace {
// The --backend-opt keys of the wire, read by the parser and listed by wire_settings().
constexpr const char* kWireKey = "wire";
constexpr const char* kEagerKey = "eager";
constexpr const char* kChunkKey = "chunk";
constexpr WireShape kShapes[] = {WireShape::packed, WireShape::per_frame};
constexpr size_t kMaxEager = 1u << 20;

// The inverse of parse_bytes for the defaults it lists: 1073741824 -> "1G".
std::string with_unit(size_t bytes) {
  const char* units[] = {"G", "M", "K"};
  for (int i = 0; i < 3; ++i) {
    size_t unit = size_t{1} << (30 - 10 * i);
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + units[i];
  }
  return std::to_string(bytes);
}
}  // namespace

WireOptions parse_wire_options(const BackendOptions& o) {
  WireOptions w;
  w.limits = o.limits;
  auto get = [&](const char* key) -> const std::string* {
    auto it = o.extra.find(key);
    return it == o.extra.end() ? nullptr : &it->second;
  };
  if (const auto* v = get(kWireKey)) {
    std::string known;
    for (WireShape shape : kShapes) {
      if (*v == to_string(shape)) w.shape = shape;
      known += (known.empty() ? "" : ", ") + std::string(to_string(shape));
    }
    if (*v != to_string(w.shape))
      throw std::invalid_argument("mpi wire must be one of " + known + " (got '" + *v + "')");
  }
  if (const auto* v = get(kEagerKey)) {
    w.eager = parse_bytes(*v);
    if (w.eager > kMaxEager) throw std::invalid_argument("mpi eager must be <= 1M");
  }
  if (const auto* v = get(kChunkKey)) {
    w.chunk = parse_bytes(*v);
    if (w.chunk == 0 && !kLargeCount)
      throw std::invalid_argument(
          "mpi chunk=0 (never split) needs MPI-4 large counts; this MPI "
          "has none, use at most 1G");
    if (!kLargeCount && w.chunk > static_cast<size_t>(INT_MAX))
      throw std::invalid_argument("mpi chunk must be < 2G without MPI-4 large counts");
  }
  return w;
}

std::vector<SettingInfo> wire_settings() {
  const WireOptions defaults;
  std::vector<std::string> shapes;
  for (WireShape shape : kShapes) shapes.push_back(to_string(shape));
  return {
      {kWireKey, shapes, to_string(defaults.shape),
       "packed: header and small frames in one MPI message; per-frame: MPI4Dask's "
       "header, descriptors, then each frame (>= 3 messages per write)"},
      {kEagerKey,
       {},
       with_unit(defaults.eager),
       "bytes of frames inlined behind the header of a packed message (at most 1M)"},
      {kChunkKey,
       {},
       with_unit(defaults.chunk),
       std::string("largest single MPI message of a frame; larger frames are split") +
           (kLargeCount ? " (0 = never split: MPI-4 large counts)" : "")},
  };
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

void throw_mpi_error(int code, const char* what) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw CommClosedError(std::string("mpi ") + what + " failed: " + std::string(text, len));
}

}  // namespace commbench::mpi
