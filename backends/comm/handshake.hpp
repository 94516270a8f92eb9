// The versioned hello that both ends of a new connection exchange before any message.
//
// Layout (little endian): u32 magic 'CBHS' | u16 version | u16 name length | name bytes.
// `name` is the sender's own contact address (so a listener learns who connected).
// The decoder bounds the name (kMaxHelloName) before reading it: a hostile peer cannot
// make us allocate or read beyond what it announces and the limit allows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace commbench {

constexpr uint32_t kHelloMagic = 0x53484243;  // "CBHS"
constexpr uint16_t kHelloVersion = 1;
constexpr size_t kHelloFixedBytes = 8;
constexpr size_t kMaxHelloName = 1024;

struct Hello {
  uint16_t version = kHelloVersion;
  std::string name;
};

std::vector<std::byte> encode_hello(const Hello& h);
// Checks the fixed part and returns the number of name bytes that follow.
size_t decode_hello_fixed(std::span<const std::byte> fixed);
// Decodes a complete hello (fixed part + name). Throws ProtocolError.
Hello decode_hello(std::span<const std::byte> bytes);

}  // namespace commbench
