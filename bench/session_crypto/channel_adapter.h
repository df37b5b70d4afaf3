#pragma once
// The one place the benchmark touches the sealed-datagram layer
// (transport/src/sealed_channel.h; docs/wire-format.md, "Sealed
// datagrams"): seal a payload into a datagram, open one back, with either
// of the session ciphers, and ask a replay window alone whether a datagram
// would be new. Everything the benchmark times goes through these classes.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sealed_channel.h"
#include "session_params.h"

namespace tickwire::bench {

inline constexpr std::size_t kDatagramOverhead = transport::kSealOverheadBytes;

// The ciphers a session can seal with on this CPU: ChaCha20-Poly1305
// always, AES-256-GCM where the CPU has AES instructions (the handshake
// picks it when both ends do).
std::vector<transport::SessionCipher> available_ciphers();
const char* cipher_name(transport::SessionCipher cipher);     // for the table
const char* cipher_json_id(transport::SessionCipher cipher);  // for the JSON

// One end of a session, as the transport holds it: seals with
// params.keys.send, opens with params.keys.receive, with params.cipher.
class BenchChannel {
 public:
  explicit BenchChannel(const transport::SessionParams& params);

  // Writes the sealed datagram for a session payload into `out` (at least
  // payload.size() + kDatagramOverhead bytes); returns its size.
  std::size_t seal(std::span<const std::uint8_t> payload, std::span<std::uint8_t> out);

  // The payload's size when `datagram` names this connection, verifies and
  // is new (written to `out`, at least the datagram's size); nullopt when
  // it is forged, replayed or of another connection.
  std::optional<std::size_t> open(std::span<const std::uint8_t> datagram, std::span<std::uint8_t> out);

 private:
  transport::SealedChannel channel_;
};

// A receiver's replay window on its own, fed the datagrams that opened, so
// that its check can be timed apart from the cryptography.
class BenchWindow {
 public:
  void accept(std::span<const std::uint8_t> datagram);
  // Would a datagram with this header be taken as new if it verified?
  bool would_accept(std::span<const std::uint8_t> datagram) const;

 private:
  transport::ReplayWindow window_;
};

}  // namespace tickwire::bench
