#include "scenario.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "input_log.h"
#include "stats.h"
#include "tickwire/core/bit_stream.h"
#include "tickwire/core/packet_channel.h"
#include "tickwire/core/packet_header.h"
#include "tickwire/timesync/client_time_provider.h"
#include "tickwire/timesync/input_arrival_tracker.h"
#include "tickwire/timesync/n4e_time_provider.h"
#include "tickwire/timesync/snapshot_timing.h"
#include "tickwire/timesync/time_system.h"
#include "tickwire/transport/sim_network.h"

namespace tickwire::bench {

namespace {

using timesync::TimeSystem;
using transport::Address;
using transport::Delivery;
using transport::TransportEvent;

constexpr std::size_t kMaxPacket = 1200;
constexpr Duration kServerStep = Duration::millis(1);
constexpr Duration kKeepAliveInterval = Duration::millis(50);

// The inputs of one packet: the newest tick and how many before it ride along.
struct InputPayload {
  std::uint32_t newest = 0;
  std::uint32_t count = 1;
};

template <class Stream>
bool serialize(Stream& s, InputPayload& p) {
  return s.bits(p.newest, 32) && s.integer(p.count, std::uint32_t{1}, kMaxInputsPerPacket);
}

// Netcode for Entities' snapshot header carries the server's command age;
// the bench's snapshot carries it after the time block, for the n4e
// provider. Bounded like any wire field.
constexpr std::int32_t kMaxCommandAge = 1 << 30;

template <class Stream>
bool serialize_command_age(Stream& s, std::int32_t& age) {
  return s.integer(age, -kMaxCommandAge, kMaxCommandAge);
}

double millis_between(const NetworkTime& later, const NetworkTime& earlier) {
  return static_cast<double>((later - earlier).units()) / static_cast<double>(later.tick_rate()) / 1000.0;
}

struct Client {
  Client(std::size_t i, TimeSystem ts, std::size_t ticks) : index(i), time(std::move(ts)), log(ticks) {}

  std::size_t index;
  Address address;
  std::unique_ptr<transport::Transport> endpoint;
  std::optional<PeerId> server;
  bool connected = false;
  PacketChannel channel;
  TimeSystem time;
  // The provider, when it is Netcode for Entities': it also reads the
  // server's command age. Owned by `time`.
  timesync::N4eTimeProvider* n4e = nullptr;
  // Local clock: local = origin + (true - start) * (1 + drift).
  double drift = 0;
  double origin_us = 0;
  double first_frame_local_us = 0;
  std::int64_t frame = 0;
  std::optional<Time> started_at;  // true time the time system initialized
  std::optional<Tick> first_tick;
  Time last_sent;
  std::unique_ptr<ClientRedundancy> redundancy;
  std::optional<Time> resend_at;  // local time the last input packet goes out again
  InputPayload last_inputs;
  std::optional<NetworkTime> newest_received;
  InputLog log;
  // figures
  std::vector<double> interp_delay_ms;
  std::uint64_t frames = 0;
  std::uint64_t starved = 0;
  std::vector<double> offset_abs_ms;
  double offset_sum_ms = 0;
  SignCounter predicted_signs;
  SignCounter interpolation_signs;
  std::uint64_t resets_after = 0;
  std::uint64_t resets_total = 0;
  double measured_seconds = 0;
};

struct ServerPeer {
  std::size_t client = 0;
  PacketChannel channel;
  timesync::InputArrivalTracker tracker;
  timesync::N4eCommandAge command_age;
};

class Harness {
 public:
  Harness(const BenchProfile& profile, ProviderKind provider, const RunConfig& config)
      : profile_(profile),
        config_(config),
        net_(config.seed),
        server_time_(TimeSystem::server(timesync::TimeSystemConfig{config.tick_rate, 8, {}})),
        start_(Time::from_micros(1'000'000)),
        end_(start_ + config.length),
        frame_us_(1e6 / config.frame_rate) {
    if (config.send_rate == 0 || config.send_rate > config.tick_rate || config.tick_rate % config.send_rate != 0) {
      throw std::invalid_argument("the snapshot rate must divide the tick rate");
    }
    send_interval_ = config.tick_rate / config.send_rate;
    const std::size_t ticks =
        static_cast<std::size_t>(config.length.seconds_f() * config.tick_rate) + 16 * config.tick_rate;
    server_ = net_.create_endpoint(server_address_);
    const std::vector<LinkStep> schedule = link_schedule(profile, config.length);
    const ProviderSettings settings{config.send_rate, config.adaptive_late_rate, config.adaptive_late_event_cost_ms,
                                    config.adaptive_hold};
    for (std::uint32_t i = 0; i < config.clients; ++i) {
      auto made = make_provider(provider, settings);
      auto* n4e = dynamic_cast<timesync::N4eTimeProvider*>(made.get());
      auto c = std::make_unique<Client>(
          i, TimeSystem::client(timesync::TimeSystemConfig{config.tick_rate, 8, {}}, std::move(made)), ticks);
      c->n4e = n4e;
      c->redundancy = std::make_unique<ClientRedundancy>(config.redundancy);
      c->address = Address{"client" + std::to_string(i), 7000};
      c->endpoint = net_.create_endpoint(c->address);
      c->drift = profile.drift_ppm * 1e-6;
      c->origin_us = 5e6 * static_cast<double>(i + 1);  // each client's clock has its own epoch
      // Staggered joins: clients never share a frame phase.
      const double join_true_us = 200'000.0 + 37'000.0 * static_cast<double>(i);
      c->first_frame_local_us = c->origin_us + join_true_us * (1.0 + c->drift);
      net_.set_link(c->address, server_address_, profile.up);
      net_.set_link(server_address_, c->address, profile.down);
      for (const LinkStep& step : schedule) {
        const Address a = c->address;
        const Address s = server_address_;
        net_.schedule(start_ + step.at, [a, s, step](transport::SimNetwork& n) {
          n.set_link(a, s, step.up);
          n.set_link(s, a, step.down);
        });
      }
      clients_.push_back(std::move(c));
    }
    if (!config.trace_path.empty()) {
      trace_ = std::make_unique<std::ofstream>(config.trace_path);
      *trace_ << "t_s,lead_ms,target_lead_ms,interp_behind_ms,target_delay_ms,offset_err_ms,p_corr,i_corr,rtt_min_ms,"
                 "missed,late,fit_err_ms\n";
    }
  }

  RunResult run() {
    Time next_server = start_;
    while (true) {
      Client* next = nullptr;
      Time next_frame = end_ + Duration::seconds(1);
      for (auto& c : clients_) {
        const Time t = frame_true_time(*c);
        if (t < next_frame) {
          next_frame = t;
          next = c.get();
        }
      }
      if (next_server <= next_frame) {
        if (next_server > end_) break;
        server_step(next_server);
        next_server += kServerStep;
      } else {
        if (next == nullptr || next_frame > end_) break;
        client_frame(*next, next_frame);
        ++next->frame;
      }
    }
    return collect();
  }

 private:
  // What the client's clock reads at true time t: its oscillator (which may
  // drift) plus any jump the clock has made.
  Time local_time(const Client& c, Time t) const {
    return Time::from_micros(std::llround(c.origin_us + static_cast<double>((t - start_).micros()) * (1.0 + c.drift))) +
           profile_.clock_jump(t - start_);
  }
  Time frame_true_time(const Client& c) const {
    const double local = c.first_frame_local_us + frame_us_ * static_cast<double>(c.frame);
    return start_ + Duration::micros(std::llround((local - c.origin_us) / (1.0 + c.drift)));
  }
  NetworkTime server_truth(Time t) const { return NetworkTime::from_duration(config_.tick_rate, t - start_); }

  // ---- server ----

  void server_step(Time t) {
    while (auto e = server_->poll(t)) {
      if (e->type == TransportEvent::Type::kConnected) {
        for (auto& c : clients_) {
          if (c->address == e->address) {
            peers_.emplace(
                e->peer.value(),
                ServerPeer{c->index, PacketChannel(), timesync::InputArrivalTracker({config_.tick_rate, 256}), {}});
          }
        }
      } else if (e->type == TransportEvent::Type::kReceived) {
        server_receive(e->peer, e->data, t);
      }
    }
    server_time_.update(t, [&](const timesync::TickContext& ctx) {
      for (auto& [id, peer] : peers_) {
        Client& c = *clients_[peer.client];
        peer.tracker.on_tick_consumed(ctx.tick, c.log.arrived_by(ctx.tick, t));
        peer.command_age.on_tick(ctx.tick);
        c.log.consumed(ctx.tick, t);
        if (ctx.tick.value() % send_interval_ == 0) send_snapshot(PeerId(id), peer, t);
      }
    });
  }

  void server_receive(PeerId id, const std::vector<std::uint8_t>& bytes, Time t) {
    const auto it = peers_.find(id.value());
    if (it == peers_.end()) return;
    ServerPeer& peer = it->second;
    BitReader r(bytes);
    PacketHeader h;
    if (!serialize(r, h) || !check_prefix(h.prefix)) return;
    if (peer.channel.receive(h, t) != PacketChannel::Verdict::kAccept) return;
    if (h.prefix.type != PacketType::kInput) return;
    InputPayload p;
    if (!serialize(r, p)) return;
    Client& c = *clients_[peer.client];
    const NetworkTime now = server_truth(t);
    peer.command_age.on_input(Tick(p.newest));
    for (std::uint32_t k = 0; k < p.count && k <= p.newest; ++k) {
      const Tick tick(p.newest - k);
      c.log.first_arrival(tick, t);
      peer.tracker.on_input(tick, now);
    }
  }

  void send_snapshot(PeerId id, ServerPeer& peer, Time t) {
    BitWriter w(kMaxPacket);
    PacketHeader h = peer.channel.next_header(PacketType::kSnapshot, t);
    timesync::SnapshotTimeBlock block;
    block.timing = timesync::SnapshotTiming::from(server_truth(t));
    block.feedback = peer.tracker.make_report(block.timing.server_tick);
    std::int32_t age = peer.command_age.value();
    if (!serialize(w, h) || !serialize(w, block) || !serialize_command_age(w, age)) {
      throw std::logic_error("snapshot does not encode");
    }
    (void)server_->send(id, Delivery::kUnreliable, w.data(), t);
  }

  // ---- clients ----

  void client_frame(Client& c, Time t) {
    const Time local = local_time(c, t);
    if (!c.server) {
      auto peer = c.endpoint->connect(server_address_, t);
      if (!peer) throw std::runtime_error("connect failed: " + peer.error().detail);
      c.server = *peer;
    }
    while (auto e = c.endpoint->poll(t)) {
      if (e->type == TransportEvent::Type::kConnected) c.connected = true;
      if (e->type == TransportEvent::Type::kReceived) client_receive(c, e->data, local);
    }
    if (!c.connected) return;
    if (c.resend_at && local >= *c.resend_at) {
      // The runtime's second sending, at the first frame it is due.
      c.resend_at.reset();
      const Tick newest(c.last_inputs.newest);
      send_input(c, InputPayload{newest.value(), c.redundancy->inputs_for(newest, c.last_inputs.count)}, t, local);
    }

    const timesync::UpdateResult r = c.time.update(local, [&](const timesync::TickContext& ctx) {
      if (!c.first_tick) c.first_tick = ctx.tick;
      c.log.sent(ctx.tick, t);
      const auto sent = static_cast<std::uint32_t>(ctx.tick - *c.first_tick) + 1;
      c.last_inputs = InputPayload{ctx.tick.value(), sent};
      send_input(c, InputPayload{ctx.tick.value(), c.redundancy->inputs_for(ctx.tick, sent)}, t, local);
      c.resend_at.reset();
      if (const auto after = c.redundancy->resend_after_ticks()) {
        c.resend_at = local + Duration::micros(std::llround(*after * 1e6 / config_.tick_rate));
      }
    });
    if (r.initialized) c.started_at = t;
    if (!c.started_at) {
      if (local - c.last_sent >= kKeepAliveInterval) send_keep_alive(c, t, local);
      return;
    }
    measure(c, r, t);
  }

  void send_input(Client& c, InputPayload p, Time t, Time local) {
    BitWriter w(kMaxPacket);
    PacketHeader h = c.channel.next_header(PacketType::kInput, local);
    if (!serialize(w, h) || !serialize(w, p)) throw std::logic_error("input does not encode");
    (void)c.endpoint->send(*c.server, Delivery::kUnreliable, w.data(), t);
    c.redundancy->on_sent(h.sequence, Tick(p.newest), local);
    c.last_sent = local;
  }

  void send_keep_alive(Client& c, Time t, Time local) {
    BitWriter w(kMaxPacket);
    PacketHeader h = c.channel.next_header(PacketType::kKeepAlive, local);
    if (!serialize(w, h)) throw std::logic_error("keep-alive does not encode");
    (void)c.endpoint->send(*c.server, Delivery::kUnreliable, w.data(), t);
    c.last_sent = local;
  }

  void client_receive(Client& c, const std::vector<std::uint8_t>& bytes, Time local) {
    BitReader r(bytes);
    PacketHeader h;
    if (!serialize(r, h) || !check_prefix(h.prefix) || h.prefix.type != PacketType::kSnapshot) return;
    if (c.channel.receive(h, local) != PacketChannel::Verdict::kAccept) return;
    for (const Sequence acked : c.channel.take_acked()) c.redundancy->on_acked(acked, local);
    timesync::SnapshotTimeBlock block;
    std::int32_t age = 0;
    if (!serialize(r, block) || !serialize_command_age(r, age)) return;
    const NetworkTime sent = block.timing.at(config_.tick_rate);
    const bool newest = !c.newest_received || sent > *c.newest_received;
    // Netcode for Entities takes the age from each snapshot it accepts, and
    // it accepts only ones newer than what it has.
    if (newest && c.n4e != nullptr) c.n4e->on_command_age(age);
    timesync::SnapshotReceipt receipt{local, block.timing, std::nullopt, block.feedback};
    if (auto sample = c.channel.take_rtt_sample()) receipt.rtt = sample->rtt;
    c.time.on_snapshot(receipt);
    if (newest) c.newest_received = sent;
  }

  void measure(Client& c, const timesync::UpdateResult& r, Time t) {
    const bool settled = t - *c.started_at >= config_.convergence;
    if (r.hard_reset) {
      ++c.resets_total;
      if (settled) ++c.resets_after;
    }
    if (c.newest_received) {
      const double delay = millis_between(*c.newest_received, c.time.interpolation_time());
      c.interp_delay_ms.push_back(delay);
      ++c.frames;
      if (delay < 0) ++c.starved;
    }
    if (c.index == 0 && trace_) write_trace(c, t);
    if (!settled) return;
    c.predicted_signs.add(c.time.timelines().predicted_correction);
    c.interpolation_signs.add(c.time.timelines().interpolation_correction);
    if (const auto estimate = c.time.server_time()) {
      const double error = millis_between(*estimate, server_truth(t));
      c.offset_abs_ms.push_back(std::fabs(error));
      c.offset_sum_ms += error;
    }
    c.measured_seconds = (t - *c.started_at - config_.convergence).seconds_f();
  }

  void write_trace(Client& c, Time t) {
    if (t < next_trace_) return;
    next_trace_ = t + Duration::millis(100);
    const NetworkTime truth = server_truth(t);
    const auto* ours = dynamic_cast<const timesync::ClientTimeProvider*>(&c.time.provider());
    const auto& m = *c.time.measurements();
    *trace_ << (t - start_).seconds_f() << ',' << millis_between(c.time.timelines().predicted, truth) << ','
            << (ours && ours->target_lead() ? ours->target_lead()->millis_f() : 0.0) << ','
            << millis_between(truth, c.time.timelines().interpolation) << ','
            << (ours && ours->target_delay() ? ours->target_delay()->millis_f() : 0.0) << ','
            << (c.time.server_time() ? millis_between(*c.time.server_time(), truth) : 0.0) << ','
            << c.time.timelines().predicted_correction << ',' << c.time.timelines().interpolation_correction << ','
            << m.rtt().min().millis_f() << ',' << m.stats().missed << ',' << m.stats().late << ','
            << (m.clock().fitted_server_time(local_time(c, t))
                    ? millis_between(*m.clock().fitted_server_time(local_time(c, t)), truth)
                    : 0.0)
            << '\n';
  }

  RunResult collect() {
    RunResult r;
    std::vector<double> excess, interp, offset;
    std::uint64_t frames = 0, starved = 0, predicted_changes = 0, interpolation_changes = 0;
    double minutes = 0, offset_sum = 0;
    for (auto& c : clients_) {
      c->log.tally(r, excess);
      const InputLog::Seconds seconds = c->log.late_burst_seconds(start_, kLateBurstFraction);
      r.late_burst_seconds += seconds.late_burst;
      r.input_seconds += seconds.with_inputs;
      interp.insert(interp.end(), c->interp_delay_ms.begin(), c->interp_delay_ms.end());
      offset.insert(offset.end(), c->offset_abs_ms.begin(), c->offset_abs_ms.end());
      offset_sum += c->offset_sum_ms;
      frames += c->frames;
      starved += c->starved;
      r.hard_resets += c->resets_after;
      r.hard_resets_total += c->resets_total;
      predicted_changes += c->predicted_signs.changes();
      interpolation_changes += c->interpolation_signs.changes();
      minutes += c->measured_seconds / 60.0;
    }
    r.on_time_rate = ratio(r.on_time, r.inputs);
    r.reachable_rate = ratio(r.reached, r.inputs);
    r.mean_excess_lead_ms = mean(excess);
    r.p99_excess_lead_ms = percentile(excess, 0.99);
    r.interp_delay_ms_p50 = percentile(interp, 0.50);
    r.starved_frame_rate = ratio(starved, frames);
    if (minutes > 0) {
      r.predicted_sign_changes_per_min = static_cast<double>(predicted_changes) / minutes;
      r.interpolation_sign_changes_per_min = static_cast<double>(interpolation_changes) / minutes;
      r.scale_sign_changes_per_min = r.predicted_sign_changes_per_min + r.interpolation_sign_changes_per_min;
    }
    r.offset_error_ms_p99 = percentile(offset, 0.99);
    r.offset_error_ms_mean = offset.empty() ? 0 : offset_sum / static_cast<double>(offset.size());
    r.profile = profile_.name;
    r.send_hz = config_.send_rate;
    return r;
  }

  const BenchProfile& profile_;
  RunConfig config_;
  transport::SimNetwork net_;
  Address server_address_{"server", 7777};
  std::unique_ptr<transport::Transport> server_;
  TimeSystem server_time_;
  std::map<std::uint32_t, ServerPeer> peers_;
  std::vector<std::unique_ptr<Client>> clients_;
  Time start_;
  Time end_;
  double frame_us_;
  std::uint32_t send_interval_ = 1;
  std::unique_ptr<std::ofstream> trace_;
  Time next_trace_;
};

}  // namespace

RunResult run_scenario(const BenchProfile& profile, ProviderKind provider, const RunConfig& config) {
  const auto wall = std::chrono::steady_clock::now();
  Harness harness(profile, provider, config);
  RunResult r = harness.run();
  r.provider = to_string(provider);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
  return r;
}

}  // namespace tickwire::bench
