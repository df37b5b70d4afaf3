#include "evil_packets.h"

#include "tickwire/core/keep_alive.h"
#include "tickwire/core/serialize.h"
#include "tickwire/prediction/input_packet.h"

namespace tickwire::bots {
namespace {

constexpr std::size_t kMaxDatagram = 1200;

}  // namespace

std::vector<std::uint8_t> PacketForge::hello(const std::string& name) const {
  PacketPrefix prefix;
  prefix.type = PacketType::kHello;
  Hello body{game_->hello_fingerprint, name.substr(0, kMaxClientNameLength)};
  BitWriter w(256);
  serialize(w, prefix);
  serialize(w, body);
  return w.take();
}

std::optional<Welcome> PacketForge::welcome(std::span<const std::uint8_t> bytes) {
  BitReader r(bytes);
  PacketPrefix prefix;
  Welcome body;
  if (!serialize(r, prefix) || !check_prefix(prefix) || prefix.type != PacketType::kWelcome) return std::nullopt;
  if (!serialize(r, body) || !r.finish()) return std::nullopt;
  return body;
}

void PacketForge::receive(std::span<const std::uint8_t> bytes, Time now) {
  BitReader r(bytes);
  PacketHeader header;
  if (serialize(r, header) && check_prefix(header.prefix)) (void)channel_.receive(header, now);
}

std::vector<std::uint8_t> PacketForge::inputs(Tick first_tick, std::size_t count, Time now) {
  prediction::InputPacket packet;
  packet.first_tick = first_tick;
  packet.inputs.assign(count, snapshot::Record(game_->schema, game_->input_type));
  PacketHeader header = channel_.next_header(PacketType::kInput, now);
  BitWriter w(kMaxDatagram);
  if (!serialize(w, header) || !prediction::serialize_input_packet(w, packet, game_->schema, game_->input_type))
    return {};
  return w.take();
}

std::vector<std::uint8_t> PacketForge::out_of_range_input(Tick first_tick, Time now) {
  const snapshot::TypeSpec& spec = game_->schema.type(game_->input_type);
  PacketHeader header = channel_.next_header(PacketType::kInput, now);
  BitWriter w(kMaxDatagram);
  // The body's layout by hand (input_packet.h): first tick, count - 1,
  // no snapshot ack, then the one input's codes in their declared bits.
  std::uint32_t first = first_tick.value();
  std::uint32_t count_minus_one = 0;
  bool has_ack = false;
  if (!serialize(w, header) || !w.bits(first, 32) || !w.bits(count_minus_one, 6) || !w.boolean(has_ack)) return {};
  bool any_outside = false;
  for (const snapshot::ComponentSpec& c : spec.components) {
    if (c.bits == 0) continue;
    const std::uint32_t all_ones = c.bits >= 32 ? 0xFFFFFFFFU : (1U << c.bits) - 1U;
    const bool outside = all_ones > c.max_code;
    any_outside = any_outside || outside;
    std::uint32_t code = outside ? all_ones : 0U;
    if (!w.bits(code, c.bits)) return {};
  }
  if (!any_outside) return {};
  return w.take();
}

std::vector<std::uint8_t> PacketForge::keep_alive(Time now) {
  PacketHeader header = channel_.next_header(PacketType::kKeepAlive, now);
  KeepAlive body;
  BitWriter w(64);
  if (!serialize(w, header) || !serialize(w, body)) return {};
  return w.take();
}

std::vector<std::uint8_t> PacketForge::keep_alive_numbered(std::uint16_t sequence, Time now) {
  PacketHeader header = channel_.next_header(PacketType::kKeepAlive, now);
  header.sequence = Sequence(sequence);
  KeepAlive body;
  BitWriter w(64);
  if (!serialize(w, header) || !serialize(w, body)) return {};
  return w.take();
}

std::vector<std::uint8_t> random_bytes(transport::SimRng& rng, std::size_t length) {
  std::vector<std::uint8_t> bytes(length);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(rng.next());
  return bytes;
}

}  // namespace tickwire::bots
