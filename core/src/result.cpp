#include "tickwire/core/result.h"

namespace tickwire {

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::kTruncated: return "truncated";
    case ErrorCode::kOutOfRange: return "out_of_range";
    case ErrorCode::kTooLong: return "too_long";
    case ErrorCode::kBadProtocolId: return "bad_protocol_id";
    case ErrorCode::kBadVersion: return "bad_version";
    case ErrorCode::kBadPacketType: return "bad_packet_type";
    case ErrorCode::kMalformed: return "malformed";
    case ErrorCode::kTooLarge: return "too_large";
    case ErrorCode::kNotConnected: return "not_connected";
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kIo: return "io";
  }
  // A value outside the enumerators can only come from a cast; name it
  // rather than return null to a logger.
  return "unknown";
}

}  // namespace tickwire
