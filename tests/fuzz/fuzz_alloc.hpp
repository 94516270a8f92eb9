// Shared by the libFuzzer targets: how many heap bytes a decoder asks for, so a target
// can assert "decoding n bytes allocates at most a*n + b" (a peer must not be able to make
// us allocate far more than it sent). Counted through the sanitizer allocator's hooks,
// which see every malloc/new of the process (libFuzzer's own too, hence the explicit
// measuring window around the decode call only). The total, not the peak: frees are not
// subtracted, so a decoder that allocates and frees in a loop is charged for each round.
#pragma once

#include <sanitizer/allocator_interface.h>

#include <cstddef>

namespace commbench::fuzz {

namespace detail {
inline bool measuring = false;
inline size_t allocated = 0;
inline void on_malloc(const volatile void*, size_t size) {
  if (measuring) allocated += size;
}
inline void on_free(const volatile void*) {}
}  // namespace detail

// Bytes allocated while `f` runs (also when it throws: the count is read by the caller's
// catch through `out`).
template <class F>
auto measure_allocations(size_t& out, F&& f) {
  static const bool installed =
      __sanitizer_install_malloc_and_free_hooks(&detail::on_malloc, &detail::on_free) != 0;
  (void)installed;
  struct Window {
    size_t& out;
    explicit Window(size_t& o) : out(o) {
      detail::allocated = 0;
      detail::measuring = true;
    }
    ~Window() {
      detail::measuring = false;
      out = detail::allocated;
    }
  } window(out);
  return f();
}

}  // namespace commbench::fuzz
