#include "app_device.hpp"

#include <vector>

namespace commbench::app {

namespace {

// A value of `kind` with the parts of `v`, copied with the device's copy().
Value copy_value(::commbench::gpu::DeviceOps& ops, const Value& v, MemoryKind kind) {
  std::vector<size_t> sizes;
  for (const auto& p : v.parts) sizes.push_back(p.size);
  Value out = make_value(std::span<const size_t>(sizes), kind);
  for (size_t i = 0; i < v.parts.size(); ++i)
    if (v.parts[i].size > 0) ops.copy(out.parts[i].data, v.parts[i].data, v.parts[i].size);
  return out;
}

}  // namespace

Value AppDevice::to_device(Value v) const {
  if (!ops || v.kind() != MemoryKind::host) return v;
  Value d = copy_value(*ops, v, MemoryKind::cuda);
  if (sync_before_send) ops->synchronize_default();
  return d;
}

Value AppDevice::to_host(Value v) const {
  if (!ops || v.kind() == MemoryKind::host) return v;
  return copy_value(*ops, v, MemoryKind::host);  // device to host: complete on return
}

void AppDevice::synchronize() const {
  if (ops) ops->synchronize_default();
}

}  // namespace commbench::app
