#include "tickwire/core/packet_header.h"

#include <string>

#include "tickwire/core/handshake.h"

namespace tickwire {

const char* to_string(PacketType type) {
  switch (type) {
    case PacketType::kHello: return "hello";
    case PacketType::kWelcome: return "welcome";
    case PacketType::kKeepAlive: return "keep_alive";
    case PacketType::kInput: return "input";
    case PacketType::kSnapshot: return "snapshot";
    case PacketType::kReport: return "report";
  }
  return "unknown";
}

Result<void> check_prefix(const PacketPrefix& prefix) {
  if (prefix.protocol_id != kProtocolId) return make_error(ErrorCode::kBadProtocolId, "not a Tickwire packet");
  if (prefix.version != kProtocolVersion) {
    return make_error(ErrorCode::kBadVersion, "protocol version " + std::to_string(prefix.version) + ", expected " +
                                                  std::to_string(kProtocolVersion));
  }
  return {};
}

std::uint64_t protocol_fingerprint(std::uint8_t version, std::uint64_t schema_hash) {
  // FNV-1a over the version byte and the schema hash's bytes: stable across
  // platforms and builds, which std::hash is not.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](std::uint8_t byte) {
    h ^= byte;
    h *= 0x100000001b3ULL;
  };
  mix(version);
  for (int i = 0; i < 8; ++i) mix(static_cast<std::uint8_t>(schema_hash >> (8 * i)));
  return h;
}

}  // namespace tickwire
