#include "pattern_message.hpp"

#include "harness/pattern.hpp"

namespace commbench::testing {

PatternMessage::PatternMessage(size_t id, const Shape& shape) {
  store.resize(shape.size());
  for (size_t f = 0; f < shape.size(); ++f) {
    void* p = store[f].reserve(shape[f].size, shape[f].kind);
    fill_pattern(p, shape[f].size, frame_seed(id, f));
    msg.frames.push_back(Buffer{p, shape[f].size, shape[f].kind});
  }
}

size_t wrong_bytes(const Message& m, size_t id, const Shape& shape) {
  if (m.frames.size() != shape.size()) return 1 + shape.size();
  size_t wrong = 0;
  for (size_t f = 0; f < shape.size(); ++f) {
    if (m.frames[f].size != shape[f].size)
      wrong += shape[f].size + 1;
    else
      wrong += check_pattern(m.frames[f].data, shape[f].size, frame_seed(id, f));
  }
  return wrong;
}

}  // namespace commbench::testing
