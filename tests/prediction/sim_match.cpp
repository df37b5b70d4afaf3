#include "sim_match.h"

#include <stdexcept>

#include "tickwire/core/bit_stream.h"
#include "tickwire/core/packet_header.h"
#include "tickwire/prediction/input_packet.h"

namespace tickwire::prediction::testing {

namespace {

constexpr std::size_t kMaxPacket = 1200;

std::uint32_t player_of(const transport::Address& a) {
  // "client-N" is player N + 1; anything else (a hostile peer) is player 200.
  const std::string prefix = "client-";
  if (a.host.rfind(prefix, 0) == 0) return static_cast<std::uint32_t>(std::stoul(a.host.substr(prefix.size()))) + 1;
  return 200;
}

}  // namespace

SimMatch::SimMatch(MatchSetup setup, std::size_t clients, MatchSampler sampler)
    : setup_(setup), sampler_(std::move(sampler)), net_(setup.seed), server_world_(s_.schema) {
  net_.set_default_link(setup_.link);
  transport::SimEndpointConfig server_config;
  server_config.max_peers = 16;
  server_endpoint_ = net_.create_endpoint(server_address_, server_config);
  server_game_ = std::make_unique<TestGame>(s_);
  start_ = Time::from_micros(1'000'000);
  now_ = start_;
  const Duration tick = Duration::micros(1'000'000 / setup_.tick_rate);
  lead_ = setup_.link.latency + tick * setup_.lead_margin_ticks;
  for (std::size_t i = 0; i < clients; ++i) {
    Client c;
    c.index = i;
    c.player = PlayerId{static_cast<std::uint32_t>(i + 1)};
    c.address = transport::Address{"client-" + std::to_string(i), 5000};
    transport::SimEndpointConfig client_config;
    client_config.max_peers = 1;
    c.endpoint = net_.create_endpoint(c.address, client_config);
    c.game = std::make_unique<TestGame>(s_);
    PredictionConfig pc = setup_.prediction;
    pc.input_type = s_.input;
    pc.player = c.player;
    pc.tick_rate = setup_.tick_rate;
    c.prediction = std::make_unique<ClientPrediction>(
        s_.schema, *c.game, [this, i](Tick t, snapshot::Record& r) { sampler_(i, t, r); }, pc);
    c.auth = snapshot::World(s_.schema);
    c.drawn = snapshot::World(s_.schema, c.prediction->world_config());
    c.server = c.endpoint->connect(server_address_, now_).value();
    c.next_frame = now_;
    clients_.push_back(std::move(c));
  }
}

NetworkTime SimMatch::server_time(Time t) const { return NetworkTime::from_duration(setup_.tick_rate, t - start_); }

const SimMatch::Remote* SimMatch::remote(PlayerId player) const {
  for (const Remote& r : remotes_) {
    if (r.player == player) return &r;
  }
  return nullptr;
}

void SimMatch::run_for(Duration span) {
  const Time end = now_ + span;
  while (now_ < end) {
    now_ += setup_.step;
    for (Client& c : clients_) step_client(c, now_);
    if (extra_step) extra_step(now_);
    step_server(now_);
  }
}

void SimMatch::step_server(Time now) {
  while (auto e = server_endpoint_->poll(now)) {
    if (e->type == transport::TransportEvent::Type::kConnected) {
      const PlayerId player{player_of(e->address)};
      const EntityId avatar = server_world_.spawn(s_.player);
      server_world_.set(avatar, s_.owner, static_cast<std::int32_t>(player.value % 256));
      server_world_.set(avatar, s_.position, snapshot::Vec2{static_cast<float>(player.value) * 10.0F, 0.0F});
      server_world_.quantize();
      remotes_.push_back(Remote{e->address, e->peer, player, avatar, PacketChannel(),
                                InputQueue(s_.schema, s_.input, setup_.queue), 0});
    } else if (e->type == transport::TransportEvent::Type::kReceived) {
      for (Remote& r : remotes_) {
        if (r.peer == e->peer) on_server_packet(r, e->data, now);
      }
    }
  }
  while (server_time(now).tick() >= next_tick_) {
    const Tick tick = next_tick_;
    std::vector<PlayerInput> inputs;
    for (Remote& r : remotes_) {
      const ConsumedInput in = r.queue.consume(tick);
      inputs.push_back({r.player, in.input, in.fallback, std::nullopt, std::nullopt});
    }
    if (server_hook) server_hook(tick, server_world_);
    step_authoritative(*server_game_, server_world_, tick, Inputs(inputs));
    for (Remote& r : remotes_) {
      if (server_world_.contains(r.avatar)) {
        const auto slots = server_world_.slots(r.avatar);
        history_[r.player.value][tick.value()].assign(slots.begin(), slots.end());
      }
      send_snapshot(r, tick, now);
    }
    ++next_tick_;
  }
}

void SimMatch::on_server_packet(Remote& r, std::span<const std::uint8_t> bytes, Time now) {
  BitReader reader(bytes);
  PacketHeader header;
  if (!serialize(reader, header) || !check_prefix(header.prefix).ok() || header.prefix.type != PacketType::kInput) {
    ++r.bad_packets;
    return;
  }
  InputPacket packet;
  if (!serialize_input_packet(reader, packet, s_.schema, s_.input) || !reader.finish()) {
    ++r.bad_packets;  // out-of-range codes land here: never queued, never simulated
    return;
  }
  // As the server does: the header counts only once the whole packet
  // decoded, so garbage behind a plausible header cannot move the window.
  if (r.channel.receive(header, now) != PacketChannel::Verdict::kAccept) return;
  r.queue.receive(packet, next_tick_);
}

void SimMatch::send_snapshot(Remote& r, Tick tick, Time now) {
  BitWriter w(kMaxPacket);
  PacketHeader header = r.channel.next_header(PacketType::kSnapshot, now);
  serialize(w, header);
  std::uint32_t t = tick.value();
  std::uint32_t count = static_cast<std::uint32_t>(server_world_.size());
  w.bits(t, 32);
  w.bits(count, 16);
  server_world_.for_each([&](EntityId id) {
    std::uint32_t v = id.value;
    std::uint32_t type = server_world_.type_of(id)->value;
    w.bits(v, 32);
    w.bits(type, 16);
    for (std::uint32_t slot : server_world_.slots(id)) w.bits(slot, 32);
  });
  if (w.error()) throw std::logic_error("snapshot does not fit a datagram");
  (void)server_endpoint_->send(r.peer, transport::Delivery::kUnreliable, w.data(), now);
}

void SimMatch::on_client_packet(Client& c, std::span<const std::uint8_t> bytes, Time now) {
  BitReader reader(bytes);
  PacketHeader header;
  if (!serialize(reader, header) || !check_prefix(header.prefix).ok() || header.prefix.type != PacketType::kSnapshot) {
    ++c.bad_packets;
    return;
  }
  if (c.channel.receive(header, now) != PacketChannel::Verdict::kAccept) return;
  for (Sequence s : c.channel.take_acked()) c.prediction->inputs().on_acked(s);
  std::uint32_t tick = 0;
  std::uint32_t count = 0;
  if (!reader.bits(tick, 32) || !reader.bits(count, 16)) {
    ++c.bad_packets;
    return;
  }
  if (c.newest_snapshot && Tick(tick) <= *c.newest_snapshot) return;  // late or duplicated
  std::vector<EntityId> carried;
  std::vector<std::uint32_t> slots;
  // Mirror the server's entity set: anything not carried is gone.
  std::vector<EntityId> before;
  c.auth.for_each([&](EntityId id) { before.push_back(id); });
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint32_t id = 0;
    std::uint32_t type = 0;
    if (!reader.bits(id, 32) || !reader.bits(type, 16) ||
        !s_.schema.has_type(snapshot::TypeId{static_cast<std::uint16_t>(type)})) {
      ++c.bad_packets;
      return;
    }
    const snapshot::TypeId t{static_cast<std::uint16_t>(type)};
    slots.resize(s_.schema.type(t).stride());
    for (auto& v : slots) {
      if (!reader.bits(v, 32)) {
        ++c.bad_packets;
        return;
      }
    }
    const EntityId e{id};
    if (c.auth.type_of(e) != t) {
      c.auth.despawn(e);
      if (!c.auth.spawn_at(e, t)) {
        ++c.bad_packets;
        return;
      }
    }
    std::copy(slots.begin(), slots.end(), c.auth.slots(e).begin());
    carried.push_back(e);
  }
  for (EntityId id : before) {
    if (std::find(carried.begin(), carried.end(), id) == carried.end()) {
      c.auth.despawn(id);
      carried.push_back(id);  // carried as removed
    }
  }
  c.newest_snapshot = Tick(tick);
  if (!c.avatar) {
    for (EntityId id : c.auth.entities(s_.player)) {
      if (c.auth.get(id, s_.owner) == static_cast<std::int32_t>(c.player.value)) {
        c.avatar = id;
        c.prediction->predict(id);
      }
    }
  }
  c.prediction->on_authoritative(Tick(tick), c.auth, carried);
  sample_avatar(c, now);
}

void SimMatch::sample_avatar(Client& c, Time now) {
  if (!c.record || !c.avatar || !c.prediction->predicted_tick()) return;
  const auto slots = c.prediction->world().slots(*c.avatar);
  if (slots.empty()) return;
  c.samples.push_back({now, *c.prediction->predicted_tick(), {slots.begin(), slots.end()}});
}

void SimMatch::step_client(Client& c, Time now) {
  while (auto e = c.endpoint->poll(now)) {
    if (e->type == transport::TransportEvent::Type::kConnected) c.connected = true;
    if (e->type == transport::TransportEvent::Type::kReceived) on_client_packet(c, e->data, now);
  }
  if (!c.connected) return;
  const NetworkTime predicted = server_time(now + lead_);
  const Tick target = predicted.tick();
  if (!c.last_tick || target > *c.last_tick) {
    c.prediction->sample_and_simulate(target);
    c.last_tick = target;
    sample_avatar(c, now);
    if (auto packet = c.prediction->make_input_packet(c.newest_snapshot)) {
      BitWriter w(kMaxPacket);
      PacketHeader header = c.channel.next_header(PacketType::kInput, now);
      serialize(w, header);
      serialize_input_packet(w, *packet, s_.schema, s_.input);
      if (!w.error() && c.endpoint->send(*c.server, transport::Delivery::kUnreliable, w.data(), now).ok()) {
        c.prediction->inputs().on_sent(header.sequence, *packet);
      }
    }
  }
  if (now >= c.next_frame) {
    c.next_frame = c.next_frame + setup_.frame;
    c.prediction->render(predicted, c.drawn);
    if (c.record && c.avatar && c.drawn.contains(*c.avatar)) {
      c.frames.push_back({now, c.drawn.get(*c.avatar, s_.position)});
    }
  }
}

}  // namespace tickwire::prediction::testing
