#pragma once
// The wire protocol spoken by hand, for the evil bots: valid packets built
// with the project's own encoders, and the broken ones a modified or
// hostile client would send instead. Bytes in, bytes out; no network.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "game_setup.h"
#include "tickwire/core/handshake.h"
#include "tickwire/core/packet_channel.h"
#include "tickwire/core/tick.h"
#include "tickwire/core/time.h"
#include "tickwire/transport/link_model.h"

namespace tickwire::bots {

class PacketForge {
 public:
  // `game` must outlive the forge.
  explicit PacketForge(const GameSetup& game) : game_(&game) {}

  // The Hello an honest client of the game sends.
  std::vector<std::uint8_t> hello(const std::string& name) const;
  // The server's Welcome, or nothing for any other message.
  static std::optional<Welcome> welcome(std::span<const std::uint8_t> bytes);

  // Takes in the header of a packet from the server, so that ours carry
  // acks and echoes as a real client's do.
  void receive(std::span<const std::uint8_t> bytes, Time now);

  // An input packet of `count` (1..64) neutral inputs from `first_tick`.
  std::vector<std::uint8_t> inputs(Tick first_tick, std::size_t count, Time now);
  // One input whose codes are all ones wherever that lies outside the
  // field's range: what reaches the wire from a client that sends NaN or
  // infinities unclamped (the encoder would clamp them). Empty when the
  // input type has no field with such codes.
  std::vector<std::uint8_t> out_of_range_input(Tick first_tick, Time now);
  std::vector<std::uint8_t> keep_alive(Time now);
  // A keep-alive carrying `sequence` instead of the next number: one far
  // ahead of the receiver's window moves it there, if it is accepted.
  std::vector<std::uint8_t> keep_alive_numbered(std::uint16_t sequence, Time now);

 private:
  const GameSetup* game_;
  PacketChannel channel_;
};

// `length` random bytes.
std::vector<std::uint8_t> random_bytes(transport::SimRng& rng, std::size_t length);

}  // namespace tickwire::bots
