#include "harness.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "tickwire/core/bit_stream.h"
#include "tickwire/core/packet_channel.h"
#include "tickwire/core/packet_header.h"
#include "tickwire/snapshot/receiver.h"
#include "tickwire/snapshot/snapshot_header.h"
#include "tickwire/snapshot/world_state.h"
#include "tickwire/transport/sim_network.h"

namespace tickwire::bench {

namespace {

using Clock = std::chrono::steady_clock;
using transport::Address;
using transport::Delivery;
using transport::TransportEvent;

constexpr std::int64_t kIpUdpHeader = 28;

double micros_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

std::vector<std::uint8_t> frame(PacketChannel& channel, PacketType type, Time now, std::span<const std::uint8_t> body) {
  PacketHeader header = channel.next_header(type, now);
  BitWriter w(64);
  serialize(w, header);
  w.align();
  std::vector<std::uint8_t> bytes = w.take();
  bytes.insert(bytes.end(), body.begin(), body.end());
  return bytes;
}

// The body after an accepted header, or nothing.
std::optional<std::span<const std::uint8_t>> unframe(PacketChannel& channel, std::span<const std::uint8_t> bytes,
                                                     Time now) {
  BitReader r(bytes);
  PacketHeader header;
  if (!serialize(r, header) || !r.align()) return std::nullopt;
  if (channel.receive(header, now) != PacketChannel::Verdict::kAccept) return std::nullopt;
  return bytes.subspan(r.bits_read() / 8);
}

}  // namespace

RunResult run_scene(Scene& scene, const RunOptions& options) {
  transport::SimNetwork net(options.seed);
  transport::LinkConditions link;
  link.latency = Duration::millis(25);
  link.jitter = Duration::millis(2);
  link.loss = options.loss;
  if (options.unlimited) link.mtu = 0;
  net.set_default_link(link);
  transport::SimEndpointConfig config;
  if (options.unlimited) config.limits.max_unreliable_payload = 1 << 20;
  const Address server_address{"server", 1};
  const Address client_address{"client", 1};
  auto server = net.create_endpoint(server_address, config);
  auto client = net.create_endpoint(client_address, config);

  Time now = Time::from_micros(1'000'000);
  if (!client->connect(server_address, now)) throw std::runtime_error("connect failed");
  std::optional<PeerId> server_peer;  // the server's id for the client
  std::optional<PeerId> client_peer;  // the client's id for the server
  for (int i = 0; i < 20'000 && (!server_peer || !client_peer); ++i) {
    now += Duration::millis(1);
    while (auto ev = server->poll(now)) {
      if (ev->type == TransportEvent::Type::kConnected) server_peer = ev->peer;
    }
    while (auto ev = client->poll(now)) {
      if (ev->type == TransportEvent::Type::kConnected) client_peer = ev->peer;
    }
  }
  if (!server_peer || !client_peer) throw std::runtime_error("no connection");

  snapshot::World world(scene.schema());
  scene.setup(world);
  snapshot::SenderConfig sender_config = options.sender;
  sender_config.tick_rate = scene.tick_rate();
  if (options.unlimited) sender_config.max_payload = 1 << 20;
  snapshot::SnapshotSender sender(scene.schema(), sender_config);
  snapshot::ReceiverConfig receiver_config;
  receiver_config.history_ticks = sender_config.history_ticks;
  if (options.unlimited) receiver_config.max_payload = 1 << 20;
  snapshot::SnapshotReceiver receiver(scene.schema(), receiver_config);
  PacketChannel server_channel;
  PacketChannel client_channel;
  snapshot::WorldState state;
  std::vector<std::uint8_t> payload;

  RunResult result;
  result.scene = scene.name();
  result.loss = options.loss;
  result.send_hz = scene.send_hz();
  std::vector<std::size_t> sizes;
  std::uint64_t payload_bytes = 0;
  std::uint64_t snapshot_datagrams = 0;
  std::uint64_t snapshot_datagram_bytes = 0;
  double encode_total = 0;
  double decode_total = 0;
  double capture_total = 0;
  std::uint64_t ages = 0;
  std::uint64_t with_baseline = 0;
  std::uint64_t ticks = 0;
  std::uint64_t captures = 0;
  const std::uint32_t every = scene.tick_rate() / scene.send_hz();
  const transport::SimLinkStats before = net.stats(server_address, client_address);

  const Time start = now;
  const auto total_us = static_cast<std::int64_t>(options.seconds * 1e6);
  auto tick_time = [&](std::uint64_t k, std::uint32_t rate) {
    return start + Duration::micros(static_cast<std::int64_t>(k) * 1'000'000 / rate);
  };
  std::uint64_t next_input = 0;
  for (std::int64_t us = 0; us <= total_us; us += 1000) {
    now = start + Duration::micros(us);
    while (tick_time(ticks + 1, scene.tick_rate()) <= now) {
      ++ticks;
      scene.step(world);
      if (ticks % every != 0) continue;
      auto t0 = Clock::now();
      capture(world, Tick(static_cast<Tick::Rep>(ticks)), state);
      capture_total += micros_since(t0);
      ++captures;
      t0 = Clock::now();
      sender.encode(state, payload);
      encode_total += micros_since(t0);
      sizes.push_back(payload.size());
      payload_bytes += payload.size();
      BitReader r(payload);
      snapshot::SnapshotHeader h;
      if (serialize(r, h) && h.has_baseline) {
        ages += h.age;
        ++with_baseline;
      }
      const auto datagram = frame(server_channel, PacketType::kSnapshot, now, payload);
      ++snapshot_datagrams;
      snapshot_datagram_bytes += datagram.size() + 5;  // SimNetwork's own framing: type and session
      if (!server->send(*server_peer, Delivery::kUnreliable, datagram, now)) throw std::runtime_error("send refused");
    }
    // Inputs go out at 60 Hz, offset from the server's ticks.
    while (tick_time(next_input, 60) + Duration::millis(7) <= now) {
      ++next_input;
      BitWriter w(16);
      bool has_ack = receiver.newest().has_value();
      std::uint32_t ack = has_ack ? receiver.newest()->value() : 0;
      w.boolean(has_ack);
      if (has_ack) w.bits(ack, 32);
      std::uint32_t input = 0x5A5A5A5A;  // stands in for the game's input
      w.bits(input, 32);
      const auto body = w.take();
      (void)client->send(*client_peer, Delivery::kUnreliable, frame(client_channel, PacketType::kInput, now, body),
                         now);
    }
    while (auto ev = server->poll(now)) {
      if (ev->type != TransportEvent::Type::kReceived) continue;
      const auto body = unframe(server_channel, ev->data, now);
      if (!body) continue;
      BitReader r(*body);
      bool has_ack = false;
      std::uint32_t ack = 0;
      if (r.boolean(has_ack) && has_ack && r.bits(ack, 32)) sender.acknowledge(Tick(ack));
    }
    while (auto ev = client->poll(now)) {
      if (ev->type != TransportEvent::Type::kReceived) continue;
      const auto body = unframe(client_channel, ev->data, now);
      if (!body) continue;
      const auto t0 = Clock::now();
      const auto decoded = receiver.receive(*body);
      decode_total += micros_since(t0);
      if (!decoded) continue;
      const Tick got = decoded.value();
      const snapshot::WorldState* sent = sender.view(got);
      if (sent == nullptr || !receiver.state(got)->same_content(*sent, scene.schema())) ++result.mismatches;
    }
  }

  const transport::SimLinkStats after = net.stats(server_address, client_address);
  const double seconds = options.seconds;
  const auto wire_bytes = static_cast<double>(after.bytes_sent - before.bytes_sent) +
                          static_cast<double>((after.sent - before.sent) * kIpUdpHeader);
  result.wire_kbps = wire_bytes * 8.0 / seconds / 1000.0;
  result.snapshot_wire_kbps =
      static_cast<double>(snapshot_datagram_bytes + snapshot_datagrams * kIpUdpHeader) * 8.0 / seconds / 1000.0;
  result.payload_kbps = static_cast<double>(payload_bytes) * 8.0 / seconds / 1000.0;
  std::sort(sizes.begin(), sizes.end());
  if (!sizes.empty()) {
    result.bytes_p50 = sizes[sizes.size() / 2];
    result.bytes_max = sizes.back();
  }
  result.snapshots = sender.stats().snapshots;
  result.full_snapshots = sender.stats().full_snapshots;
  result.deferred = sender.stats().changed_deferred;
  result.encode_us = result.snapshots > 0 ? encode_total / static_cast<double>(result.snapshots) : 0;
  result.capture_us = captures > 0 ? capture_total / static_cast<double>(captures) : 0;
  result.decoded = receiver.stats().decoded;
  result.dropped = receiver.stats().dropped_total();
  result.decode_us = result.decoded > 0 ? decode_total / static_cast<double>(receiver.stats().received) : 0;
  result.mean_baseline_age = with_baseline > 0 ? static_cast<double>(ages) / static_cast<double>(with_baseline) : 0;
  return result;
}

}  // namespace tickwire::bench
