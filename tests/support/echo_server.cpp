#include "echo_server.hpp"

#include <algorithm>

#include "comm/errors.hpp"

namespace commbench::testing {

namespace {

// Records how a handler ended.
void note_end(EchoLog* log, const char* kind, const std::exception& e) {
  if (!log) return;
  log->last_end = kind;
  log->last_why = e.what();
}

}  // namespace

CommHandler echo_server(EchoLog* log) {
  return [log](std::unique_ptr<Comm> comm) -> Task<void> {
    if (log) log->peak = std::max(log->peak, ++log->live);
    Message m;
    try {
      for (;;) {
        co_await comm->read(m);
        co_await comm->write(m);
      }
    } catch (const ProtocolError& e) {
      if (log) ++log->protocol_errors;
      note_end(log, "ProtocolError", e);
    } catch (const CommClosedError& e) {
      if (log) ++log->clean_ends;
      note_end(log, "CommClosedError", e);
    }
    if (log) --log->live;
  };
}

}  // namespace commbench::testing
