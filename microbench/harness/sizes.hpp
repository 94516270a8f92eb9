// Message sizes on the command line: "64", "8K", "4M", "1G" (powers of 1024), and the
// nccl-tests style sweep -b MIN -e MAX -f FACTOR.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace commbench {

// Throws std::invalid_argument with a one-line message for anything malformed.
size_t parse_size(std::string_view text);
// parse_size for an option's value: the message names the option ("--gpu-chunk: ...").
size_t parse_size_option(std::string_view option, std::string_view text);
std::string format_size(size_t bytes);  // "4K", "1M", "3000"

// min, min*f, ... <= max (and max itself if the factor skips it). Throws on f < 2,
// min > max. min = 0 yields 0 followed by 1, f, f^2, ...
std::vector<size_t> size_sweep(size_t min, size_t max, size_t factor);

}  // namespace commbench
