#include "reliability_support.hpp"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cctype>
#include <fstream>

namespace commbench::testing {

std::vector<BackendParam> all_backend_params() {
  std::vector<BackendParam> out;
  for (const auto& scheme : registry().schemes())
    for (const auto& p : registry().info(scheme).progress_policies)
      if (p.name != "blocking") out.push_back({scheme, p.name});
  return out;
}

std::vector<BackendParam> default_backend_params() {
  std::vector<BackendParam> out;
  for (const auto& scheme : registry().schemes())
    out.push_back({scheme, registry().info(scheme).progress_policies.front().name});
  return out;
}

std::string param_name(const ::testing::TestParamInfo<BackendParam>& info) {
  std::string n = info.param.scheme + "_" + info.param.progress;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

std::byte pattern_byte(size_t m, size_t f, size_t i) {
  return static_cast<std::byte>((i * 29 + f * 101 + m * 7 + (i >> 8)) & 0xff);
}

PatternMessage::PatternMessage(size_t id, const std::vector<size_t>& sizes) {
  data.resize(sizes.size());
  for (size_t f = 0; f < sizes.size(); ++f) {
    data[f].resize(sizes[f]);
    for (size_t i = 0; i < sizes[f]; ++i) data[f][i] = pattern_byte(id, f, i);
    msg.frames.push_back(Buffer{data[f].data(), sizes[f], MemoryKind::host});
  }
}

size_t wrong_bytes(const Message& m, size_t id, const std::vector<size_t>& sizes) {
  if (m.frames.size() != sizes.size()) return 1 + sizes.size();
  size_t wrong = 0;
  for (size_t f = 0; f < sizes.size(); ++f) {
    if (m.frames[f].size != sizes[f]) {
      wrong += sizes[f] + 1;
      continue;
    }
    for (size_t i = 0; i < sizes[f]; ++i) wrong += m.frames[f].bytes()[i] != pattern_byte(id, f, i);
  }
  return wrong;
}

std::map<int, std::string> fd_targets() {
  std::map<int, std::string> out;
  if (DIR* d = opendir("/proc/self/fd")) {
    const int own = dirfd(d);
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      const int fd = std::atoi(e->d_name);
      if (fd == own) continue;
      char buf[256];
      const std::string path = std::string("/proc/self/fd/") + e->d_name;
      const ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
      out[fd] = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("?");
    }
    closedir(d);
  }
  return out;
}

size_t open_fds() {
  return fd_targets().size();
}

std::string fd_difference(const std::map<int, std::string>& before,
                          const std::map<int, std::string>& after) {
  std::string out;
  for (const auto& [fd, target] : after) {
    auto it = before.find(fd);
    if (it == before.end() || it->second != target) out += " +" + std::to_string(fd) + "=" + target;
  }
  for (const auto& [fd, target] : before)
    if (!after.contains(fd)) out += " -" + std::to_string(fd) + "=" + target;
  return out.empty() ? " (none)" : out;
}

size_t rss_kib() {
  std::ifstream f("/proc/self/status");
  std::string key;
  while (f >> key) {
    if (key == "VmRSS:") {
      size_t kib = 0;
      f >> kib;
      return kib;
    }
    f.ignore(1 << 12, '\n');
  }
  return 0;
}

size_t raise_fd_limit(size_t want) {
  rlimit rl{};
  getrlimit(RLIMIT_NOFILE, &rl);
  if (rl.rlim_cur < want) {
    rl.rlim_cur = std::min<rlim_t>(want, rl.rlim_max);
    setrlimit(RLIMIT_NOFILE, &rl);
    getrlimit(RLIMIT_NOFILE, &rl);
  }
  return static_cast<size_t>(rl.rlim_cur);
}

void LoopFixture::SetUp() {
  BackendOptions o;
  o.progress = GetParam().progress;
  backend_ = registry().create(GetParam().scheme, loop_, o);
  loop_.set_error_handler([this](std::exception_ptr e) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      handler_errors_.push_back(ex.what());
    }
  });
}

void LoopFixture::TearDown() {
  for (auto& l : listeners_) l->stop();
  // As in the comm suite: handlers still running would outlive the loop and backend.
  EXPECT_TRUE(loop_.settle_detached(std::chrono::seconds(5)))
      << "a connection handler did not finish";
  listeners_.clear();
}

Task<std::string> LoopFixture::listen(Backend& b, CommHandler handler) {
  listeners_.push_back(b.make_listener(b.default_listen_address("127.0.0.1")));
  co_await listeners_.back()->start(std::move(handler));
  co_return listeners_.back()->contact_address();
}

}  // namespace commbench::testing
