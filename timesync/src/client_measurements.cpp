#include "tickwire/timesync/client_measurements.h"

#include <cmath>
#include <stdexcept>

namespace tickwire::timesync {

namespace {

double to_micros(const NetworkTime& t) { return static_cast<double>(t.units()) / static_cast<double>(t.tick_rate()); }

// Difference of two wrapping 16-bit running totals; empty when `now` is not
// newer than `before` (a reordered or replayed report).
std::optional<std::uint16_t> total_delta(std::uint16_t now, std::uint16_t before) {
  const auto d = static_cast<std::uint16_t>(now - before);
  if (d >= 0x8000) return std::nullopt;
  return d;
}

}  // namespace

ClientMeasurements::ClientMeasurements(std::uint32_t tick_rate, MeasurementConfig config)
    : rate_(NetworkTime(tick_rate).tick_rate()),
      config_(config),
      rtt_(config.rtt),
      clock_(tick_rate, config.clock),
      sent_(config.sent_ticks_remembered),
      margins_(tick_rate, config.margins) {}

void ClientMeasurements::on_predicted_tick(Tick tick, Time at, Duration overshoot, bool after_jump) {
  sent_.insert(tick, SentTick{at, overshoot, after_jump});
  margins_.on_input_sent(at);
}

void ClientMeasurements::on_frame(Time at) {
  margins_.advance(at);
  if (previous_frame_ && at > *previous_frame_) {
    const auto interval = static_cast<double>((at - *previous_frame_).micros());
    // Gain 1/16: follows a change of frame rate within a quarter second at
    // 60 fps, and one long frame moves it little.
    frame_interval_us_ =
        frame_interval_us_ == 0 ? interval : frame_interval_us_ + (interval - frame_interval_us_) / 16.0;
  }
  if (!previous_frame_ || at > *previous_frame_) previous_frame_ = at;
}

SnapshotObservation ClientMeasurements::on_snapshot(const SnapshotReceipt& receipt) {
  ++stats_.snapshots;
  margins_.advance(receipt.received);
  SnapshotObservation obs{receipt.received, receipt.timing.at(rate_)};
  if (previous_frame_ && *previous_frame_ <= receipt.received) obs.previous_frame = previous_frame_;
  if (frame_interval_us_ > 0) obs.frame_interval = Duration::micros(std::llround(frame_interval_us_));

  obs.newest = !newest_ || obs.sent > newest_->sent;
  if (obs.newest) {
    newest_ = Seen{obs.sent, receipt.received};
    down_jitter_.add(static_cast<double>(receipt.received.micros()) - to_micros(obs.sent));
  } else {
    ++stats_.stale_snapshots;
  }

  if (receipt.rtt) {
    if (rtt_.add(receipt.received, *receipt.rtt)) {
      obs.rtt = receipt.rtt;
      // Only the newest snapshot's stamp is a fair clock sample: an older
      // one was overtaken and its echo may pair with another packet.
      if (obs.newest) clock_.add(receipt.received, obs.sent, *receipt.rtt);
      if (!first_sync_) first_sync_ = Sync{obs.sent, receipt.received, *receipt.rtt};
    } else {
      ++stats_.rejected_rtt;
    }
  }

  if (receipt.feedback) {
    take_totals(*receipt.feedback, obs);
    if (obs.newly_late > 0) margins_.on_late(obs.newly_late, receipt.received);
    if (const auto& lead = receipt.feedback->lead) {
      // A report about a tick we never sent (or long ago) is not ours.
      if (sent_.find(lead->input_tick) != nullptr) {
        margins_.on_report(*lead);
        obs.arrivals = *lead;
      }
      obs.need = need_of(*lead);
    }
  }
  return obs;
}

void ClientMeasurements::take_totals(const InputFeedback& f, SnapshotObservation& obs) {
  if (!missed_total_) {
    // The first report sets the base: what happened before is not ours to judge.
    missed_total_ = f.missed_total;
    late_total_ = f.late_total;
    return;
  }
  const auto missed = total_delta(f.missed_total, *missed_total_);
  const auto late = total_delta(f.late_total, *late_total_);
  if (!missed || !late) {
    ++stats_.stale_totals;
    return;
  }
  missed_total_ = f.missed_total;
  late_total_ = f.late_total;
  obs.newly_missed = *missed;
  obs.newly_late = *late;
  stats_.missed += *missed;
  stats_.late += *late;
}

std::optional<Duration> ClientMeasurements::need_of(const InputFeedback::Lead& lead) {
  const SentTick* sent = sent_.find(lead.input_tick);
  const auto epoch = clock_.epoch();
  // Feedback about a tick we have no record of (never sent, long ago, or a
  // forged tick) teaches nothing; neither does one sent before the server
  // clock stepped, since the step sits inside its measured delay.
  if (sent == nullptr || !epoch || sent->at < *epoch) {
    ++stats_.rejected_feedback;
    return std::nullopt;
  }
  if (sent->after_jump) return std::nullopt;
  const auto server_at_send = clock_.server_time(sent->at);
  if (!server_at_send) return std::nullopt;
  // Server time of arrival: the input's tick minus the reported margin.
  const double tick_us = 1e6 / static_cast<double>(rate_);
  const double arrival_us = (static_cast<double>(lead.input_tick.value()) -
                             static_cast<double>(lead.units) / static_cast<double>(kLeadUnitsPerTick)) *
                            tick_us;
  const double transit_us = arrival_us - to_micros(*server_at_send);
  up_jitter_.add(transit_us);
  return Duration::micros(std::llround(static_cast<double>(sent->overshoot.micros()) + transit_us));
}

}  // namespace tickwire::timesync
