// The client's game session, from the Welcome on: snapshots in, the time
// system's ticks, prediction and inputs out, and what to draw each frame.
// Connection and handshake are in client.cpp.

#include <algorithm>

#include "tickwire/client/client.h"
#include "tickwire/core/client_report.h"
#include "tickwire/core/keep_alive.h"
#include "tickwire/core/serialize.h"
#include "tickwire/prediction/input_packet.h"
#include "tickwire/snapshot/world_state.h"
#include "tickwire/timesync/client_time_provider.h"
#include "tickwire/timesync/snapshot_timing.h"

namespace tickwire::client {

namespace {
constexpr std::size_t kMaxPacket = 1200;
}  // namespace

void Client::start_session() {
  channel_ = PacketChannel();
  timesync::TimeSystemConfig tc;
  tc.tick_rate = tick_rate_;
  tc.max_ticks_per_update = config_.max_ticks_per_update;
  timesync::ClientTimeProviderConfig pc_time;
  pc_time.measure_interpolation = !config_.thin;  // a thin client draws nothing
  // Before the server's first arrival reports, nothing measured says that
  // the first input of a batch waits input_interval - 1 ticks to leave.
  pc_time.initial_lead_margin += NetworkTime::from_tick(tick_rate_, Tick(config_.input_interval - 1)).since_zero();
  auto provider = config_.time_provider ? config_.time_provider(tick_rate_)
                                        : std::make_unique<timesync::ClientTimeProvider>(pc_time);
  time_ = std::make_unique<timesync::TimeSystem>(timesync::TimeSystem::client(tc, std::move(provider)));
  prediction::PredictionConfig pc;
  pc.input_type = game_.input_type();
  pc.player = prediction::PlayerId{*client_id_};
  pc.tick_rate = tick_rate_;
  pc.max_replay_ticks = config_.max_replay_ticks;
  pc.inputs = config_.inputs;
  // inputs.redundancy counts packets an input may ride in; a packet of N
  // ticks reaches N times as far back, within what one packet may carry.
  pc.inputs.redundancy = static_cast<std::uint32_t>(std::min<std::size_t>(
      std::size_t{config_.inputs.redundancy} * config_.input_interval, prediction::kMaxInputsPerPacket));
  pc.smoothing = config_.smoothing;
  pc.spawn_confirm_ticks = config_.spawn_confirm_ticks;
  game_.motion_fields(pc.motion);
  draw_metrics_ = DrawMetrics(game_.schema(), pc.motion, config_.visual_pop_distance);
  prediction_ = std::make_unique<prediction::ClientPrediction>(game_.schema(), game_, sampler_, pc);
  prediction_->set_checks(config_.prediction_checks);
  prediction_->set_smoothing(draw_options_.smoothing);
  start_correction_causes();
  redundancy_ = prediction::InputRedundancy(config_.input_redundancy);  // a new session learns its uplink anew
  resend_at_.reset();
  ticks_unsent_ = 0;
  receiver_.reset();
  authoritative_.clear();
  authoritative_tick_.reset();
  newest_server_tick_.reset();
  avatar_.reset();
  view_.clear();
  first_sequence_.reset();
  newest_sequence_.reset();
  packets_accepted_ = 0;
  expected_packets_ = 0;
  last_report_.reset();
  switch_blend_.emplace(game_.schema(), pc.motion, config_.prediction_switch_blend);
}

void Client::handle_unreliable(std::span<const std::uint8_t> bytes, Time now) {
  if (state_ != ClientState::kConnected) return;
  BitReader r(bytes);
  PacketHeader header;
  if (!serialize(r, header) || !check_prefix(header.prefix).ok()) {
    ++stats_.bad_packets;
    return;
  }
  if (header.prefix.type == PacketType::kSnapshot) {
    handle_snapshot(header, r, bytes, now);
    return;
  }
  KeepAlive body;
  if (header.prefix.type != PacketType::kKeepAlive || !serialize(r, body) || !r.finish()) {
    ++stats_.bad_packets;
    return;
  }
  (void)accept_header(header, now);
}

bool Client::accept_header(const PacketHeader& header, Time now) {
  if (channel_.receive(header, now) != PacketChannel::Verdict::kAccept) return false;
  // Loss from the server's sequence numbers: every number between the
  // first and the newest should have arrived once.
  if (!first_sequence_) first_sequence_ = header.sequence;
  if (!newest_sequence_ || Sequence::distance(header.sequence, *newest_sequence_) > 0) {
    expected_packets_ +=
        newest_sequence_ ? static_cast<std::uint64_t>(Sequence::distance(header.sequence, *newest_sequence_)) : 1;
    newest_sequence_ = header.sequence;
  }
  ++packets_accepted_;
  channel_.take_acked(acked_);
  for (Sequence s : acked_) {
    prediction_->inputs().on_acked(s);
    redundancy_.on_acked(s, now);
  }
  return true;
}

void Client::handle_snapshot(const PacketHeader& header, BitReader& r, std::span<const std::uint8_t> bytes, Time now) {
  timesync::SnapshotTimeBlock block;
  if (!serialize(r, block) || !r.align()) {
    ++stats_.bad_packets;
    return;
  }
  if (!accept_header(header, now)) return;
  timesync::SnapshotReceipt receipt{now, block.timing, std::nullopt, block.feedback};
  if (auto sample = channel_.take_rtt_sample()) receipt.rtt = sample->rtt;
  time_->on_snapshot(receipt);
  if (!newest_server_tick_ || block.timing.server_tick > *newest_server_tick_) {
    newest_server_tick_ = block.timing.server_tick;
    ++stats_.server_ticks_heard;
  }
  auto decoded = receiver_.receive(bytes.subspan(r.bits_read() / 8));
  if (!decoded) return;  // counted by the receiver
  if (!authoritative_tick_ || decoded.value() > *authoritative_tick_) apply_snapshot(decoded.value());
}

void Client::apply_snapshot(Tick tick) {
  const snapshot::WorldState* state = receiver_.state(tick);
  if (state == nullptr) return;
  if (config_.thin) {
    // Decoded and held as a baseline, which is all a thin client needs;
    // prediction, never given a server state, only samples inputs.
    authoritative_tick_ = tick;
    return;
  }
  // What this snapshot tells prediction about: every entity refreshed at
  // this tick, and every entity that is gone.
  carried_.clear();
  const auto entities = state->entities();
  std::size_t i = 0;
  authoritative_.for_each([&](EntityId id) {
    while (i < entities.size() && entities[i].id < id) ++i;
    if (i == entities.size() || entities[i].id != id) {
      carried_.push_back(id);
      events_.push_back({ClientEvent::Type::kEntityDespawned, transport::DisconnectReason::kUnknown, id,
                         *authoritative_.type_of(id)});
    }
  });
  for (const snapshot::EntityState& e : entities) {
    if (e.updated == tick) carried_.push_back(e.id);
    if (!authoritative_.contains(e.id) || authoritative_.type_of(e.id) != e.type) {
      events_.push_back({ClientEvent::Type::kEntitySpawned, transport::DisconnectReason::kUnknown, e.id, e.type});
    }
  }
  snapshot::restore(*state, authoritative_);
  authoritative_tick_ = tick;
  update_predicted_set();
  set_correction_context();
  prediction_->on_authoritative(tick, authoritative_, carried_);
}

void Client::update_predicted_set() {
  const prediction::PlayerId me{*client_id_};
  avatar_ = game_.avatar(authoritative_, me);
  wanted_.clear();
  game_.predicted_entities(authoritative_, me, wanted_);
  std::sort(wanted_.begin(), wanted_.end());
  wanted_.erase(std::unique(wanted_.begin(), wanted_.end()), wanted_.end());
  // Starts predicting each with its role; other players' entities may stay
  // interpolated (client_switching.cpp).
  std::erase_if(wanted_, [&](EntityId id) { return !predict_wanted(id, me); });
  // Server entities this player no longer predicts go back to the
  // snapshots; predicted spawns (ids above the server's range) stay.
  const std::uint32_t server_ids = prediction::PredictionConfig{}.server_max_entities;
  drop_.clear();
  for (EntityId id : prediction_->predicted_entities()) {
    if (id.value < server_ids && !std::binary_search(wanted_.begin(), wanted_.end(), id)) drop_.push_back(id);
  }
  for (EntityId id : drop_) {
    switch_timeline(id);
    prediction_->stop_predicting(id);
  }
}

void Client::run_session(Time now) {
  time_->update(now, [&](const timesync::TickContext& ctx) {
    // Each input claims the interpolation time that goes with its tick:
    // where this client draws the others while the player acts on them.
    prediction_->sample_and_simulate(ctx.tick, ctx.interpolation);
    if (++ticks_unsent_ >= config_.input_interval) send_inputs(now);
  });
  draw(now);
  refresh_stats(now);
  if (time_->initialized() && (!last_report_ || now - *last_report_ >= kReportInterval)) send_report(now);
}

void Client::send_report(Time now) {
  last_report_ = now;
  auto clamp32 = [](std::uint64_t v) { return static_cast<std::uint32_t>(std::min<std::uint64_t>(v, UINT32_MAX)); };
  ClientReport report;
  report.mispredictions = clamp32(stats_.mispredictions);
  report.rollbacks = clamp32(stats_.rollbacks);
  report.hard_resets = clamp32(stats_.hard_resets);
  report.max_rollback_depth =
      static_cast<std::uint16_t>(std::min<std::uint32_t>(stats_.max_rollback_depth, kMaxReportedRollbackDepth));
  report.rtt_us = static_cast<std::uint32_t>(
      std::clamp<std::int64_t>(stats_.rtt.micros(), 0, static_cast<std::int64_t>(kMaxReportedRttMicros)));
  PacketHeader header = channel_.next_header(PacketType::kReport, now);
  BitWriter w(kMaxPacket);
  if (serialize(w, header) && serialize(w, report)) (void)send_packet(w.data(), now);
}

bool Client::send_input_packet(Time now) {
  // The packet and its bytes reuse the last one's storage: a client sends
  // one every tick, or every input_interval ticks.
  prediction::InputPacket& packet = input_packet_;
  // Each input rides in copies() packets: with input_interval ticks a
  // packet, that is input_interval times as many ticks back.
  const std::uint32_t ticks = redundancy_.copies() * config_.input_interval;
  if (!prediction_->make_input_packet(receiver_.newest(), ticks, packet)) return false;
  PacketHeader header = channel_.next_header(PacketType::kInput, now);
  BitWriter w(kMaxPacket, std::move(packet_bytes_));
  const bool written =
      serialize(w, header) && prediction::serialize_input_packet(w, packet, game_.schema(), game_.input_type());
  const bool sent = written && send_packet(w.data(), now);
  if (!written) log_->error("input packet does not encode: {}", w.error() ? w.error()->detail : "unknown");
  packet_bytes_ = w.take();
  if (!sent) return false;
  prediction_->inputs().on_sent(header.sequence, packet);
  redundancy_.on_sent(header.sequence, now);
  return true;
}

void Client::send_inputs(Time now) {
  if (send_input_packet(now)) ticks_unsent_ = 0;
  resend_at_.reset();
  if (redundancy_.resend()) {
    const auto tick_us = static_cast<double>(NetworkTime::from_tick(tick_rate_, Tick(1)).since_zero().micros());
    resend_at_ = now + Duration::micros(std::llround(tick_us * config_.input_redundancy.resend_after_ticks));
  }
}

void Client::resend_inputs(Time now) {
  // The same inputs again (fewer, if some were acknowledged meanwhile) in a
  // packet of their own: a new sequence, so its fate is judged on its own.
  resend_at_.reset();
  if (send_input_packet(now)) ++stats_.input_resends;
}

void Client::set_draw_options(const DrawOptions& options) {
  draw_options_ = options;
  if (prediction_) prediction_->set_smoothing(options.smoothing);
}

void Client::draw(Time now) {
  if (!time_->initialized() || config_.thin) return;
  // Without prediction the interpolator owns every entity, and removes the
  // predicted spawns the server has not sent.
  const bool predict = draw_options_.prediction;
  if (predict) prediction_->render(time_->predicted_time(), view_);
  double at = time_->interpolation_time().ticks_f();
  if (!draw_options_.interpolation) {
    if (auto newest = receiver_.newest()) at = static_cast<double>(newest->value());
  }
  interpolator_.sample(receiver_, at, view_,
                       [this, predict](EntityId id) { return predict && prediction_->predicts(id); });
  if (switch_blend_) switch_blend_->apply(view_, now);
  draw_metrics_.frame(view_, now);
}

void Client::refresh_stats(Time now) {
  const timesync::ClientMeasurements& m = *time_->measurements();
  if (m.rtt().has_sample()) {
    stats_.rtt = m.rtt().smoothed();
    stats_.rtt_min = m.rtt().min();
  }
  stats_.jitter = m.downlink_jitter();
  stats_.loss = expected_packets_ > 0 ? 1.0 - static_cast<double>(std::min(packets_accepted_, expected_packets_)) /
                                                  static_cast<double>(expected_packets_)
                                      : 0.0;
  if (auto lead = time_->lead()) stats_.lead = *lead;
  if (auto server = time_->server_time())
    stats_.interpolation_delay = (*server - time_->interpolation_time()).since_zero();
  stats_.late_inputs = m.stats().late;
  stats_.missing_inputs = m.stats().missed;
  stats_.hard_resets = time_->stats().hard_resets;
  // Packets each input rides in: ticks a packet reaches back, per tick of
  // the interval.
  stats_.input_copies =
      std::min(redundancy_.copies() * config_.input_interval, prediction_->inputs().config().redundancy) /
      config_.input_interval;
  stats_.input_loss_burst = redundancy_.stats().longest_burst;
  stats_.input_loss = redundancy_.loss_rate();
  const timesync::InputMarginMonitor& margins = m.input_margins();
  // The quantiles walk the histogram: only when a report added to it.
  if (margins.histogram().count() != stats_.input_margins) {
    stats_.input_margins = margins.histogram().count();
    stats_.input_margins_exact = margins.exact();
    stats_.input_margin_p50 = margins.histogram().quantile(0.50).value_or(Duration::zero());
    stats_.input_margin_p99 = margins.histogram().quantile(0.01).value_or(Duration::zero());
  }
  stats_.late_inputs_last_second = margins.late_last_second();
  stats_.late_burst_seconds = margins.late_burst_seconds();
  const prediction::PredictionStats& p = prediction_->stats();
  stats_.predicted_ticks = p.predicted_ticks;
  stats_.mispredictions = p.mispredictions;
  stats_.mispredictions_by_cause = p.corrections_by_cause;
  stats_.mispredictions_by_type.assign(p.corrections_by_type.begin(), p.corrections_by_type.end());
  stats_.rollbacks = p.replays;
  stats_.max_rollback_depth = p.max_replay_depth;
  stats_.snapshots = receiver_.stats().decoded;
  stats_.snapshots_dropped = receiver_.stats().dropped_total();
  refresh_draw_stats(now);
}

const snapshot::World* Client::predicted_world() const { return prediction_ ? &prediction_->world() : nullptr; }

std::optional<Tick> Client::predicted_tick() const {
  return prediction_ ? prediction_->predicted_tick() : std::nullopt;
}

double Client::partial_tick() const { return time_ ? time_->predicted_time().fraction() : 0.0; }

}  // namespace tickwire::client
