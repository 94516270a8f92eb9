#include "ucx/ucx_lanes.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace commbench::ucx {

std::vector<std::string> parse_lane_transports(const std::string& ep_info) {
  // A lane line (UCX 1.13):
  //   "#                 lane[0]:  3:sysv/memory.0 md[2]     -> md[2]/sysv/sysdev[255] am am_bw#0"
  // i.e. "<resource index>:<transport>/<device>.<path index>", then the remote side.
  std::vector<std::string> out;
  std::istringstream in(ep_info);
  std::string line;
  while (std::getline(in, line)) {
    auto lane = line.find("lane[");
    if (lane == std::string::npos) continue;
    auto colon = line.find("]:", lane);
    if (colon == std::string::npos) continue;
    std::istringstream rest(line.substr(colon + 2));
    std::string token;
    if (!(rest >> token)) continue;
    auto idx = token.find(':');
    if (idx == std::string::npos || token.find('/') == std::string::npos) continue;  // cm lane
    std::string tl = token.substr(idx + 1);
    // The path index: ".0" after the device (devices themselves may hold ':' or '.').
    auto dot = tl.rfind('.');
    if (dot != std::string::npos && dot + 1 < tl.size() &&
        std::all_of(tl.begin() + static_cast<std::ptrdiff_t>(dot + 1), tl.end(),
                    [](unsigned char c) { return std::isdigit(c); }))
      tl.resize(dot);
    if (std::find(out.begin(), out.end(), tl) == out.end()) out.push_back(tl);
  }
  return out;
}

std::vector<std::string> endpoint_transports(ucp_ep_h ep) {
  if (!ep) return {};
  char* text = nullptr;
  size_t size = 0;
  FILE* f = open_memstream(&text, &size);
  if (!f) return {};
  ucp_ep_print_info(ep, f);
  std::fclose(f);
  std::string info(text ? text : "", size);
  std::free(text);
  return parse_lane_transports(info);
}

}  // namespace commbench::ucx
