#pragma once
// The one place the benchmark touches the sealed-datagram layer
// (docs/wire-format.md, "Sealed datagrams"): seal a payload into a datagram,
// open one back, and ask the replay window alone whether a datagram would be
// new. Everything the benchmark times goes through this class.
//
// Until the transport's own sealed channel is in the tree, this is a
// stand-in written to the same format with the same libsodium calls
// (ChaCha20-Poly1305 IETF, a 64-bit packet number as the nonce, a 256-bit
// replay window that moves only after a datagram verifies).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "session_params.h"

namespace tickwire::bench {

// Header (6) and tag (16).
inline constexpr std::size_t kDatagramOverhead = 22;

class BenchChannel {
 public:
  // One end of a session: seals with params.keys.send, opens with
  // params.keys.receive.
  explicit BenchChannel(const transport::SessionParams& params);

  // Writes the sealed datagram for `payload` into `out` (at least
  // payload.size() + kDatagramOverhead bytes); returns its size.
  std::size_t seal(std::span<const std::uint8_t> payload, std::span<std::uint8_t> out);

  // The payload's size when `datagram` verifies and is new (written to
  // `out`); nullopt when it is forged, replayed or of another connection.
  std::optional<std::size_t> open(std::span<const std::uint8_t> datagram, std::span<std::uint8_t> out);

  // The replay window's question alone, no cryptography and no change:
  // would a datagram with this header be taken as new if it verified?
  bool would_accept(std::span<const std::uint8_t> datagram) const;

 private:
  std::uint64_t rebuild_packet_number(std::span<const std::uint8_t> datagram) const;
  bool is_new(std::uint64_t packet_number) const;
  void mark_received(std::uint64_t packet_number);

  transport::SessionParams params_;
  std::uint64_t next_send_ = 0;
  bool received_any_ = false;
  std::uint64_t highest_received_ = 0;
  std::array<std::uint64_t, 4> window_{};  // bit i: highest_received_ - i arrived
};

}  // namespace tickwire::bench
