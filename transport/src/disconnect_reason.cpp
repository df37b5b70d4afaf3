#include "tickwire/transport/transport.h"

namespace tickwire::transport {

const char* to_string(DisconnectReason reason) {
  switch (reason) {
    case DisconnectReason::kUnknown: return "unknown reason";
    case DisconnectReason::kRequested: return "disconnect requested";
    case DisconnectReason::kTimeout: return "timed out";
    case DisconnectReason::kServerShuttingDown: return "server shutting down";
    case DisconnectReason::kVersionMismatch: return "version mismatch";
    case DisconnectReason::kFingerprintMismatch: return "game schema mismatch";
    case DisconnectReason::kServerFull: return "server full";
    case DisconnectReason::kProtocolError: return "protocol error";
    case DisconnectReason::kHandshakeTimeout: return "handshake timed out";
    case DisconnectReason::kKicked: return "kicked";
    case DisconnectReason::kConnectFailed: return "could not connect";
    case DisconnectReason::kFlooding: return "flooding";
    case DisconnectReason::kTokenInvalid: return "connect token invalid";
    case DisconnectReason::kTokenExpired: return "connect token expired";
    case DisconnectReason::kTokenReused: return "connect token used from another address";
    case DisconnectReason::kTooManyConnections: return "too many connections";
    case DisconnectReason::kTokenRequired: return "connect token required";
    case DisconnectReason::kCodebookMismatch: return "snapshot codebook mismatch";
    case DisconnectReason::kServerKeyMismatch: return "server key mismatch";
    case DisconnectReason::kPlaintextRefused: return "unencrypted session refused";
  }
  // Only a cast can reach here; a phrase is friendlier to logs than null.
  return "unknown reason";
}

DisconnectReason disconnect_reason_from_wire(std::uint32_t code) {
  // The code comes from the remote side, so it is checked against the
  // enumerators rather than cast blindly.
  if (code <= static_cast<std::uint32_t>(kLastDisconnectReason)) {
    return static_cast<DisconnectReason>(code);
  }
  return DisconnectReason::kUnknown;
}

}  // namespace tickwire::transport
