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

}  // namespace tickwire
