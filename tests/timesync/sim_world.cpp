#include "sim_world.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "tickwire/core/bit_stream.h"
#include "tickwire/core/packet_header.h"

namespace tickwire::timesync::testing {

namespace {

using transport::Address;
using transport::Delivery;
using transport::TransportEvent;

Address server_address() { return Address{"server", 1}; }
constexpr Duration kServerStep = Duration::millis(1);
constexpr std::uint32_t kRedundancy = 3;

struct InputPayload {
  std::uint32_t newest = 0;
  std::uint32_t count = 1;
};

template <class Stream>
bool serialize(Stream& s, InputPayload& p) {
  return s.bits(p.newest, 32) && s.integer(p.count, std::uint32_t{1}, kRedundancy);
}

}  // namespace

struct SimWorld::Client {
  SimClientConfig config;
  Address address;
  std::unique_ptr<transport::Transport> endpoint;
  std::optional<PeerId> server;
  bool connected = false;
  PacketChannel channel;
  std::optional<TimeSystem> time;
  std::int64_t frame = 0;
  double origin_us = 0;  // the client's clock at true time zero
  std::optional<Tick> first_tick;
  Time last_sent;
  // Per tick: true time sent, first arrival and when the server ran it.
  std::map<Tick::Rep, Time> sent, arrived, consumed;
};

SimWorld::SimWorld(std::uint64_t seed) : net_(seed), now_(Time::from_micros(1'000'000)), next_server_step_(now_) {
  server_ = net_.create_endpoint(server_address());
  server_time_.emplace(TimeSystem::server(TimeSystemConfig{kTickRate, 8, {}}));
  epoch_ = now_;
}

SimWorld::~SimWorld() = default;

std::size_t SimWorld::add_client(SimClientConfig config) {
  auto c = std::make_unique<Client>();
  c->address = Address{"client" + std::to_string(clients_.size()), 2};
  c->endpoint = net_.create_endpoint(c->address);
  c->time.emplace(TimeSystem::client(TimeSystemConfig{kTickRate, 8, {}}, config.provider()));
  c->origin_us = 3e6 * static_cast<double>(clients_.size() + 1);
  net_.set_link(c->address, server_address(), config.up);
  net_.set_link(server_address(), c->address, config.down);
  c->config = std::move(config);
  clients_.push_back(std::move(c));
  return clients_.size() - 1;
}

NetworkTime SimWorld::truth(Time t) const { return NetworkTime::from_duration(kTickRate, t - epoch_); }

TimeSystem& SimWorld::time(std::size_t client) { return *clients_.at(client)->time; }

void SimWorld::jump_server(std::int64_t ticks) {
  const Tick next = truth(now_).tick() + ticks + 1;
  server_time_.emplace(TimeSystem::server(TimeSystemConfig{kTickRate, 8, {}}, next));
  // The new timeline reads `next` at the next server step.
  epoch_ = next_server_step_ - Duration::micros(std::llround(static_cast<double>(next.value()) * 1e6 / kTickRate));
}

void SimWorld::set_route(std::size_t client, const transport::LinkConditions& up,
                         const transport::LinkConditions& down) {
  net_.set_link(clients_.at(client)->address, server_address(), up);
  net_.set_link(server_address(), clients_.at(client)->address, down);
}

Time SimWorld::frame_time(const Client& c) const {
  const double rate = 1.0 + c.config.drift_ppm * 1e-6;
  const double first_local = c.origin_us + static_cast<double>(c.config.join_at.micros()) * rate;
  const double local = first_local + 1e6 / c.config.frame_rate * static_cast<double>(c.frame);
  return Time::from_micros(1'000'000 + std::llround((local - c.origin_us) / rate));
}

void SimWorld::run_for(Duration span) {
  const Time end = now_ + span;
  while (true) {
    Client* next = nullptr;
    Time next_frame = end + Duration::seconds(1);
    for (auto& c : clients_) {
      if (const Time t = frame_time(*c); t < next_frame) {
        next_frame = t;
        next = c.get();
      }
    }
    if (next_server_step_ <= next_frame) {
      if (next_server_step_ > end) break;
      now_ = next_server_step_;
      server_step(now_);
      next_server_step_ += kServerStep;
    } else {
      if (next == nullptr || next_frame > end) break;
      now_ = next_frame;
      client_frame(*next, now_);
      ++next->frame;
    }
  }
  now_ = end;
}

void SimWorld::server_step(Time t) {
  while (auto e = server_->poll(t)) {
    if (e->type == TransportEvent::Type::kConnected) {
      for (std::size_t i = 0; i < clients_.size(); ++i) {
        if (clients_[i]->address == e->address) {
          peers_.emplace(e->peer.value(), Peer{i, PacketChannel(), InputArrivalTracker({kTickRate, 256})});
        }
      }
      continue;
    }
    if (e->type != TransportEvent::Type::kReceived) continue;
    auto it = peers_.find(e->peer.value());
    if (it == peers_.end()) continue;
    BitReader r(e->data);
    PacketHeader h;
    if (!serialize(r, h) || it->second.channel.receive(h, t) != PacketChannel::Verdict::kAccept) continue;
    if (h.prefix.type != PacketType::kInput) continue;
    InputPayload p;
    if (!serialize(r, p)) continue;
    Client& c = *clients_[it->second.client];
    for (std::uint32_t k = 0; k < p.count && k <= p.newest; ++k) {
      c.arrived.try_emplace(p.newest - k, t);
      it->second.tracker.on_input(Tick(p.newest - k), truth(t));
    }
  }
  server_time_->update(t, [&](const TickContext& ctx) {
    for (auto& [id, peer] : peers_) {
      Client& c = *clients_[peer.client];
      const auto arrival = c.arrived.find(ctx.tick.value());
      peer.tracker.on_tick_consumed(ctx.tick, arrival != c.arrived.end());
      c.consumed.try_emplace(ctx.tick.value(), t);
      BitWriter w(256);
      PacketHeader h = peer.channel.next_header(PacketType::kSnapshot, t);
      SnapshotTimeBlock block{SnapshotTiming::from(truth(t)), std::nullopt};
      block.feedback = peer.tracker.make_report(block.timing.server_tick);
      if (!serialize(w, h) || !serialize(w, block)) throw std::logic_error("snapshot does not encode");
      (void)server_->send(PeerId(id), Delivery::kUnreliable, w.data(), t);
    }
  });
}

void SimWorld::client_frame(Client& c, Time t) {
  const double rate = 1.0 + c.config.drift_ppm * 1e-6;
  const Time local = Time::from_micros(
      std::llround(c.origin_us + static_cast<double>((t - Time::from_micros(1'000'000)).micros()) * rate));
  if (!c.server) {
    auto peer = c.endpoint->connect(server_address(), t);
    if (!peer) throw std::runtime_error("connect failed: " + peer.error().detail);
    c.server = peer.value();
  }
  while (auto e = c.endpoint->poll(t)) {
    if (e->type == TransportEvent::Type::kConnected) c.connected = true;
    if (e->type != TransportEvent::Type::kReceived) continue;
    BitReader r(e->data);
    PacketHeader h;
    if (!serialize(r, h) || c.channel.receive(h, local) != PacketChannel::Verdict::kAccept) continue;
    SnapshotTimeBlock block;
    if (!serialize(r, block)) continue;
    SnapshotReceipt receipt{local, block.timing, std::nullopt, block.feedback};
    if (auto sample = c.channel.take_rtt_sample()) receipt.rtt = sample->rtt;
    c.time->on_snapshot(receipt);
  }
  if (!c.connected) return;

  auto send = [&](PacketType type, std::optional<InputPayload> payload) {
    BitWriter w(256);
    PacketHeader h = c.channel.next_header(type, local);
    if (!serialize(w, h) || (payload && !serialize(w, *payload))) throw std::logic_error("input does not encode");
    (void)c.endpoint->send(*c.server, Delivery::kUnreliable, w.data(), t);
    c.last_sent = local;
  };
  Frame frame{t, local, {}, {}, {}, {}};
  TimeSystem& ts = *c.time;
  frame.update = ts.update(local, [&](const TickContext& ctx) {
    frame.ticks.push_back(ctx);
    frame.seen_predicted.push_back(ts.predicted_time());
    frame.seen_interpolation.push_back(ts.interpolation_time());
    if (!c.first_tick) c.first_tick = ctx.tick;
    c.sent.try_emplace(ctx.tick.value(), t);
    const auto since_first = static_cast<std::uint32_t>(ctx.tick - *c.first_tick);
    send(PacketType::kInput, InputPayload{ctx.tick.value(), std::min(kRedundancy, since_first + 1)});
  });
  if (!ts.initialized() && local - c.last_sent >= Duration::millis(50)) send(PacketType::kKeepAlive, std::nullopt);
  if (on_frame) {
    for (std::size_t i = 0; i < clients_.size(); ++i) {
      if (clients_[i].get() == &c) on_frame(i, frame);
    }
  }
}

SimWorld::InputCount SimWorld::inputs(std::size_t client, Time from, Time to) const {
  const Client& c = *clients_.at(client);
  InputCount n;
  for (const auto& [tick, sent] : c.sent) {
    if (sent < from || sent >= to) continue;
    const auto consumed = c.consumed.find(tick);
    if (consumed == c.consumed.end()) continue;
    ++n.inputs;
    const auto arrived = c.arrived.find(tick);
    if (arrived != c.arrived.end() && arrived->second <= consumed->second) ++n.on_time;
  }
  return n;
}

}  // namespace tickwire::timesync::testing
