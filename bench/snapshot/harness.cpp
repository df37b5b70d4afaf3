#include "harness.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "link.h"
#include "tickwire/core/bit_stream.h"
#include "tickwire/core/packet_channel.h"
#include "tickwire/core/packet_header.h"
#include "tickwire/snapshot/receiver.h"
#include "tickwire/snapshot/snapshot_header.h"
#include "tickwire/snapshot/world_state.h"

namespace tickwire::bench {

namespace {

using Clock = std::chrono::steady_clock;
using transport::Delivery;
using transport::TransportEvent;

constexpr std::uint32_t kInputHz = 60;
// ENet on loopback connects in milliseconds; SimNetwork in about a round trip.
constexpr Duration kConnectLimit = Duration::seconds(10);

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

std::unique_ptr<Link> make_link(const RunOptions& options) {
  if (options.transport == TransportKind::kSim) {
    return make_sim_link(
        {.loss = options.loss, .seed = options.seed, .unlimited = options.unlimited, .latency_ms = options.latency_ms});
  }
  if (options.unlimited) throw std::runtime_error("the ENet link keeps its payload limit");
  return make_enet_link({.loss = options.loss, .seed = options.seed});
}

struct Peers {
  PeerId server_side;  // the client, as the server knows it
  PeerId client_side;  // the server, as the client knows it
};

Peers connect(Link& link, Time& now) {
  if (!link.client().connect(link.server_address(), now)) throw std::runtime_error("connect failed");
  std::optional<PeerId> server_side;
  std::optional<PeerId> client_side;
  const Time deadline = now + kConnectLimit;
  while ((!server_side || !client_side) && now < deadline) {
    now = link.advance(now, now + Duration::millis(1));
    while (auto ev = link.server().poll(now)) {
      if (ev->type == TransportEvent::Type::kConnected) server_side = ev->peer;
    }
    while (auto ev = link.client().poll(now)) {
      if (ev->type == TransportEvent::Type::kConnected) client_side = ev->peer;
    }
  }
  if (!server_side || !client_side) throw std::runtime_error("no connection");
  return {*server_side, *client_side};
}

Direction per_second(std::uint64_t payload_bytes, Traffic wire, double seconds) {
  Direction d;
  d.payload_kbps = static_cast<double>(payload_bytes) * 8.0 / seconds / 1000.0;
  d.wire_kbps = static_cast<double>(wire.bytes) * 8.0 / seconds / 1000.0;
  d.datagrams_per_s = static_cast<double>(wire.datagrams) / seconds;
  return d;
}

}  // namespace

RunResult run_scene(Scene& scene, const RunOptions& options) {
  snapshot::World world(scene.schema());
  scene.setup(world);
  const auto warmup_ticks = static_cast<std::uint64_t>(options.warmup_seconds * scene.tick_rate());
  for (std::uint64_t i = 0; i < warmup_ticks; ++i) scene.step(world);

  const std::unique_ptr<Link> link = make_link(options);
  Time now = link->now();
  const Peers peers = connect(*link, now);
  snapshot::SenderConfig sender_config = options.sender;
  sender_config.tick_rate = scene.tick_rate();
  if (options.unlimited) sender_config.max_payload = 1 << 20;
  snapshot::SnapshotSender sender(scene.schema(), sender_config);
  snapshot::ReceiverConfig receiver_config;
  receiver_config.history_ticks = sender_config.history_ticks;
  receiver_config.codebook = sender_config.codebook;
  if (options.unlimited) receiver_config.max_payload = 1 << 20;
  snapshot::SnapshotReceiver receiver(scene.schema(), receiver_config);
  PacketChannel server_channel;
  PacketChannel client_channel;
  snapshot::WorldState state;
  std::vector<std::uint8_t> payload;

  RunResult result;
  result.scene = scene.name();
  result.transport = options.transport == TransportKind::kSim ? "sim" : "enet";
  result.wire = link->wire_kind();
  result.loss = options.loss;
  result.warmup_seconds = options.warmup_seconds;
  result.send_hz = scene.send_hz();
  std::vector<std::size_t> sizes;
  // What the sender recorded for each recent snapshot, copied as it was
  // sent: the sender may give a state up before its packet arrives. Kept
  // for twice the history: the client decodes nothing older.
  std::map<std::uint32_t, snapshot::WorldState> recorded;
  std::uint64_t down_payload = 0;
  std::uint64_t up_payload = 0;
  double encode_total = 0;
  double decode_total = 0;
  double capture_total = 0;
  std::uint64_t ages = 0;
  std::uint64_t with_baseline = 0;
  std::uint64_t ticks = 0;
  std::uint64_t captures = 0;
  const std::uint32_t every = scene.tick_rate() / scene.send_hz();
  const Traffic down_before = link->sent_by_server();
  const Traffic up_before = link->sent_by_client();

  const Time start = now;
  const Time end = start + Duration::micros(static_cast<std::int64_t>(options.seconds * 1e6));
  auto tick_time = [&](std::uint64_t k, std::uint32_t rate) {
    return start + Duration::micros(static_cast<std::int64_t>(k) * 1'000'000 / rate);
  };
  // Inputs go out at 60 Hz, offset from the server's ticks.
  auto input_time = [&](std::uint64_t k) { return tick_time(k, kInputHz) + Duration::millis(7); };
  std::uint64_t next_input = 0;
  for (; now <= end;
       now = link->advance(now, std::min(tick_time(ticks + 1, scene.tick_rate()), input_time(next_input)))) {
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
      // On a round trip beyond the history the sender keeps no state. The
      // copy drops the coding models: holding them would keep the coder's
      // model blocks from being recycled, and encoding would allocate.
      if (const snapshot::WorldState* view = sender.view(state.tick())) {
        snapshot::WorldState& copy = recorded[state.tick().value()];
        copy = *view;
        copy.set_models(nullptr);
      }
      while (!recorded.empty() && recorded.begin()->first + 2 * sender.config().history_ticks < state.tick().value()) {
        recorded.erase(recorded.begin());
      }
      if (options.train != nullptr) {
        const snapshot::WorldState* view = sender.view(state.tick());
        if (view != nullptr && view->models() != nullptr)
          options.train->add(*view->models(), sender.last_baseline_age());
      }
      sizes.push_back(payload.size());
      down_payload += payload.size();
      BitReader r(payload);
      snapshot::SnapshotHeader h;
      if (serialize(r, h) && h.has_baseline) {
        ages += h.age;
        ++with_baseline;
      }
      const auto datagram = frame(server_channel, PacketType::kSnapshot, now, payload);
      if (!link->server().send(peers.server_side, Delivery::kUnreliable, datagram, now)) {
        throw std::runtime_error("send refused");
      }
    }
    while (input_time(next_input) <= now) {
      ++next_input;
      BitWriter w(16);
      bool has_ack = receiver.newest().has_value();
      std::uint32_t ack = has_ack ? receiver.newest()->value() : 0;
      w.boolean(has_ack);
      if (has_ack) w.bits(ack, 32);
      std::uint32_t input = 0x5A5A5A5A;  // stands in for the game's input
      w.bits(input, 32);
      const auto body = w.take();
      up_payload += body.size();
      (void)link->client().send(peers.client_side, Delivery::kUnreliable,
                                frame(client_channel, PacketType::kInput, now, body), now);
    }
    while (auto ev = link->server().poll(now)) {
      if (ev->type != TransportEvent::Type::kReceived) continue;
      const auto body = unframe(server_channel, ev->data, now);
      if (!body) continue;
      BitReader r(*body);
      bool has_ack = false;
      std::uint32_t ack = 0;
      if (r.boolean(has_ack) && has_ack && r.bits(ack, 32)) sender.acknowledge(Tick(ack));
    }
    while (auto ev = link->client().poll(now)) {
      if (ev->type != TransportEvent::Type::kReceived) continue;
      const auto body = unframe(client_channel, ev->data, now);
      if (!body) continue;
      const auto t0 = Clock::now();
      const auto decoded = receiver.receive(*body);
      decode_total += micros_since(t0);
      if (!decoded) continue;
      const Tick got = decoded.value();
      const auto sent = recorded.find(got.value());
      if (sent == recorded.end()) {
        ++result.unverified;
      } else if (!receiver.state(got)->same_content(sent->second, scene.schema())) {
        ++result.mismatches;
      }
    }
  }

  // The span the counters cover: exactly the requested one in virtual
  // time; with ENet, up to the last pass of the loop.
  result.seconds = options.transport == TransportKind::kSim ? options.seconds : (now - start).seconds_f();
  result.down = per_second(down_payload, link->sent_by_server() - down_before, result.seconds);
  result.up = per_second(up_payload, link->sent_by_client() - up_before, result.seconds);
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
