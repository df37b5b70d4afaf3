// The server's tick loop: inputs in, simulate, capture, snapshots out.
// Connections and the handshake are in server_peers.cpp.

#include "tickwire/server/server.h"

#include <algorithm>
#include <stdexcept>

#include "encode_pool.h"
#include "slot.h"
#include "tickwire/core/handshake.h"
#include "tickwire/core/serialize.h"
#include "tickwire/core/view_claim.h"
#include "tickwire/snapshot/codebook.h"
#include "tickwire/snapshot/world_state.h"
#include "tickwire/timesync/snapshot_timing.h"
#include "view_judge.h"

namespace tickwire::server {

using transport::Delivery;

namespace {

constexpr std::size_t kMaxTimings = 4096;

ServerConfig validated(ServerConfig config, const prediction::NetGame& game) {
  config.validate();
  if (!config.snapshot_codebook && !config.adaptive_snapshot_models && !config.codebook_trainer) {
    config.snapshot_codebook = game.snapshot_codebook();
  }
  if (config.snapshot_codebook && !snapshot::codebook_fits(*config.snapshot_codebook, game.schema())) {
    throw std::invalid_argument("server config: the snapshot codebook was made for another schema, or is not usable");
  }
  if (config.snapshot_codebook && config.codebook_trainer) {
    throw std::invalid_argument(
        "server config: a codebook and a codebook trainer together (coded with a codebook, "
        "snapshots keep no models to train on)");
  }
  if (!game.supports_tick_rate(config.tick_rate)) {
    throw std::invalid_argument("server config: the game does not run at " + std::to_string(config.tick_rate) +
                                " ticks per second");
  }
  return config;
}

timesync::TimeSystemConfig time_config(const ServerConfig& config) {
  timesync::TimeSystemConfig t;
  t.tick_rate = config.tick_rate;
  t.max_ticks_per_update = static_cast<std::uint32_t>(config.max_catch_up_ticks);
  return t;
}

}  // namespace

std::uint64_t ServerStats::bad_packets() const {
  std::uint64_t total = 0;
  for (auto n : bad_packets_by_reason) total += n;
  return total;
}

Server::Server(std::unique_ptr<transport::Transport> transport, prediction::NetGame& game, ServerConfig config,
               Time now)
    : transport_(std::move(transport)),
      game_(game),
      config_(validated(std::move(config), game)),
      time_(timesync::TimeSystem::server(time_config(config_), Tick(0))),
      last_update_(now),
      send_divisor_(config_.tick_rate / config_.send_rate),
      world_(game.schema()),
      history_(2 * static_cast<std::size_t>(config_.snapshot_history_ticks)) {
  if (!transport_) throw std::invalid_argument("server: transport is null");
  log_ = config_.logger ? config_.logger : Logging::null_logger("server");
  fingerprint_ =
      protocol_fingerprint(kProtocolVersion, snapshot::with_codebook(config_.schema_hash.value_or(game.schema().hash()),
                                                                     config_.snapshot_codebook.get(), game.schema()));
  game_.set_tick_rate(config_.tick_rate);
  game_.populate(world_);
  world_.quantize();
  // Tick 0 is the populated world; the first simulated tick is 1.
  time_.update(now);
  history_.capture(world_, tick_);
  if (config_.snapshot_codebook) {
    bit_caches_.resize(std::max<std::size_t>(1, config_.workers));
    codebook_tables_ = snapshot::hold_codebook_tables(config_.snapshot_codebook, game.schema());
    reference_probe_ = std::make_unique<snapshot::SharedReferenceProbe>(game.schema());
  }
  if (config_.workers > 1) {
    encoders_ = std::make_unique<EncodePool>(config_.workers);
    encode_job_ = [this](std::size_t i, std::size_t worker) { encode_snapshot(*sending_[i], encode_now_, worker); };
  }
}

Server::~Server() = default;

NetworkTime Server::server_time_at(Time now) const {
  const Duration since = now > last_update_ ? now - last_update_ : Duration::zero();
  return time_.predicted_time() + since;
}

Time Server::next_tick_time() const {
  const NetworkTime next = NetworkTime::from_tick(config_.tick_rate, tick_ + 1);
  return last_update_ + (next - time_.predicted_time()).since_zero();
}

void Server::charge(std::uint64_t& phase, Time& mark) {
  const auto& clock = config_.phase_clock ? config_.phase_clock : config_.clock;
  if (!clock) return;
  const Time t = clock();
  if (t > mark) phase += static_cast<std::uint64_t>((t - mark).micros());
  mark = t;
}

void Server::update(Time now) {
  Time phase = mark();
  while (auto event = transport_->poll(now)) {
    handle_event(*event, now);
    transport_->recycle(std::move(event->data));
  }
  charge(stats_.phases.receive_us, phase);
  // The callback captures two pointers, which std::function holds without
  // allocating: the server updates hundreds of times a second.
  struct Update {
    NetworkTime present;
    Time now;
  };
  const Update u{server_time_at(now), now};
  time_.update(now, [this, &u](const timesync::TickContext& ctx) {
    const Time started = config_.clock ? config_.clock() : u.now;
    run_tick(ctx, u.now);
    if (!config_.clock) return;
    // How late the tick started: behind the present when the update came,
    // plus the work done in this update before it.
    const Duration lateness = (u.present - ctx.predicted).since_zero() + (started - u.now);
    const Duration took = config_.clock() - started;
    if (lateness + took > ctx.predicted.tick_interval()) ++stats_.ticks_overrun;
    const TickTiming timing{ctx.tick, lateness, took};
    if (timings_.size() < kMaxTimings) {
      timings_.push_back(timing);
    } else {  // a ring of the newest, the oldest at timings_next_
      timings_[timings_next_] = timing;
      timings_next_ = (timings_next_ + 1) % kMaxTimings;
    }
  });
  last_update_ = std::max(last_update_, now);
  for (const auto& event : time_.take_events()) {
    if (event.type != timesync::TimeEventType::kCapped) continue;
    // The loop fell too far behind: the time it could not catch up is
    // dropped rather than run as a burst that would make the next frame
    // later still.
    const auto interval = NetworkTime::from_tick(config_.tick_rate, Tick(1)).since_zero();
    const auto skipped = static_cast<std::uint64_t>((-event.predicted_jump).micros() / interval.micros());
    stats_.ticks_skipped += skipped;
    log_->warn("tick loop fell behind; dropped {} ticks of time", skipped);
  }
  check_timeouts(now);
  // The flush is where ENet hands each queued datagram to the kernel.
  phase = mark();
  transport_->flush(now);
  charge(stats_.phases.send_us, phase);
}

void Server::run_tick(const timesync::TickContext& ctx, Time now) {
  tick_ = ctx.tick;
  ++stats_.ticks_run;
  if (shutting_down_) return;
  Time phase = mark();
  tick_inputs_.clear();
  for (auto& [peer, slot] : slots_) {
    if (!slot->welcomed()) continue;
    if (!slot->first_input_tick || tick_ < *slot->first_input_tick) {
      tick_inputs_.push_back({slot->player, slot->neutral.get(), true, std::nullopt, std::nullopt});
      continue;
    }
    const prediction::ConsumedInput in = slot->queue->consume(tick_);
    slot->tracker->on_tick_consumed(tick_, !in.fallback);
    count_inputs(*slot);
    std::optional<NetworkTime> view;
    if (in.view) view = claimed_view_time(tick_, *in.view, config_.tick_rate);
    std::optional<NetworkTime> rewind;
    if (!in.fallback) {
      const Duration rtt = slot->has_rtt ? slot->rtt : Duration::zero();
      rewind =
          slot->view_judge
              ->decide(tick_, view, rtt, config_.assumed_interpolation_delay, config_.max_rewind, config_.tick_rate)
              .time;
      slot->stats.rewind = slot->view_judge->stats();
    }
    tick_inputs_.push_back({slot->player, in.input, in.fallback, view, rewind});
  }
  prediction::step_authoritative(game_, world_, tick_, prediction::Inputs(tick_inputs_));
  history_.capture(world_, tick_);
  charge(stats_.phases.simulate_us, phase);
  // Each client hears from us every send_divisor_ ticks, and clients are
  // spread over those ticks so no single tick carries every send.
  sending_.clear();
  for (auto& [peer, slot] : slots_) {
    if (slot->welcomed() && (slot->id + tick_.value()) % send_divisor_ == 0) sending_.push_back(slot.get());
  }
  if (sending_.empty()) return;
  // Relevancy, encoding and sending each run over every client in turn:
  // each is timed as one block, and encoding touches no game state, so
  // it could run on other threads.
  game_.before_snapshots(world_);
  for (Slot* slot : sending_) {
    snapshot::Relevancy relevant = game_.relevancy(world_, slot->player);
    if (relevant.listed()) {
      // The game's list lives only until its next call: keep a copy.
      slot->relevant_ids.assign(relevant.ids().begin(), relevant.ids().end());
      relevant = snapshot::Relevancy::of_ids(slot->relevant_ids);
    }
    slot->sender->set_relevancy(std::move(relevant));
  }
  charge(stats_.phases.relevancy_us, phase);
  if (reference_probe_) reference_probe_->update(history_, tick_);
  if (encoders_) {
    // Each job touches only its own client's sender, channel and buffers.
    encode_now_ = now;
    encoders_->run(sending_.size(), encode_job_);
  } else {
    for (Slot* slot : sending_) encode_snapshot(*slot, now, 0);
  }
  if (config_.codebook_trainer) {  // charged to encoding, which it follows
    for (const Slot* slot : sending_) {
      const snapshot::WorldState* view = slot->sender->view(tick_);
      if (view != nullptr && view->models() != nullptr) {
        config_.codebook_trainer->add(*view->models(), slot->sender->last_baseline_age());
      }
    }
  }
  if (!bit_caches_.empty()) {
    stats_.shared_bits_hits = stats_.shared_bits_misses = 0;
    for (const snapshot::EntityBitsCache& c : bit_caches_) {
      stats_.shared_bits_hits += c.hits();
      stats_.shared_bits_misses += c.misses();
    }
  }
  charge(stats_.phases.encode_us, phase);
  for (Slot* slot : sending_) send_snapshot(*slot, now);
  charge(stats_.phases.send_us, phase);
}

// Builds the whole snapshot packet in the slot's own buffers; an empty
// packet means there is nothing to send.
void Server::encode_snapshot(Slot& slot, Time now, std::size_t worker) {
  slot.sender->encode(history_, tick_, slot.payload, bit_caches_.empty() ? nullptr : &bit_caches_[worker]);
  timesync::SnapshotTimeBlock block{timesync::SnapshotTiming::from(server_time_at(now)), std::nullopt};
  if (slot.first_input_tick) block.feedback = slot.tracker->make_report(tick_);
  PacketHeader header = slot.channel.next_header(PacketType::kSnapshot, now);
  BitWriter w(transport::TransportLimits{}.max_unreliable_payload, std::move(slot.packet));
  const bool fits = serialize(w, header) && serialize(w, block) && w.fixed_bytes(slot.payload);
  slot.packet = w.take();
  if (!fits) {
    // The sender keeps within max_snapshot_bytes, so only a config whose
    // snapshot budget leaves no room for the headers lands here.
    log_->error("snapshot for client {} does not fit a datagram ({} byte payload)", slot.id, slot.payload.size());
    slot.packet.clear();
  }
}

void Server::send_snapshot(Slot& slot, Time now) {
  if (slot.packet.empty()) return;
  if (send_packet(slot, slot.packet, now)) {
    ++slot.stats.snapshots;
    ++stats_.snapshots;
  }
}

void Server::count_inputs(Slot& slot) {
  const prediction::InputQueueStats& q = slot.queue->stats();
  slot.stats.inputs = q.accepted;
  slot.stats.redundant_inputs = q.duplicates;
  slot.stats.missing_inputs = q.missing;
  slot.stats.late_inputs = q.late;
  // Inputs older than anything the queue remembers (the first packet's
  // redundant copies of ticks already past) are stale, not refused.
  slot.stats.rejected_inputs = q.invalid + q.too_far_ahead;
}

bool Server::send_packet(Slot& slot, std::span<const std::uint8_t> bytes, Time now) {
  if (!transport_->send(slot.peer, Delivery::kUnreliable, bytes, now).ok()) return false;
  ++slot.stats.packets_out;
  slot.stats.bytes_out += bytes.size();
  ++stats_.packets_out;
  stats_.bytes_out += bytes.size();
  return true;
}

void Server::take_tick_timings(std::vector<TickTiming>& out) {
  const auto oldest = timings_.begin() + static_cast<std::ptrdiff_t>(timings_next_);
  out.assign(oldest, timings_.end());
  out.insert(out.end(), timings_.begin(), oldest);
  timings_.clear();
  timings_next_ = 0;
}

std::optional<ServerEvent> Server::poll_event() {
  if (events_.empty()) return std::nullopt;
  ServerEvent e = std::move(events_.front());
  events_.pop_front();
  return e;
}

std::size_t Server::connected_clients() const {
  return static_cast<std::size_t>(
      std::count_if(slots_.begin(), slots_.end(), [](const auto& kv) { return kv.second->welcomed(); }));
}

ServerStats Server::stats() const {
  ServerStats s = stats_;
  s.tick = tick_;
  s.clients = connected_clients();
  for (const auto& [peer, slot] : slots_) {
    if (!slot->welcomed()) continue;
    s.missing_inputs += slot->stats.missing_inputs;
    s.late_inputs += slot->stats.late_inputs;
    s.rejected_inputs += slot->stats.rejected_inputs;
    add_rewind_stats(s.rewind, slot->stats.rewind);
    if (slot->stats.reported) s.reported_mispredictions += slot->stats.reported->mispredictions;
    if (slot->sender) s.views_held += slot->sender->views_held();
  }
  if (reference_probe_) s.longest_reference_span = reference_probe_->longest_span();
  return s;
}

std::vector<ClientStats> Server::client_stats() const {
  std::vector<ClientStats> out;
  for (const auto& [peer, slot] : slots_) {
    if (slot->welcomed()) out.push_back(slot->stats);
  }
  return out;
}

}  // namespace tickwire::server
