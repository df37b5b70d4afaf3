#include "tickwire/timesync/client_time_provider.h"

#include <algorithm>
#include <stdexcept>

#include "tickwire/timesync/client_measurements.h"

namespace tickwire::timesync {

namespace {

// Samples before the round-trip deviation means something: at 60 a second,
// an eighth of a second.
constexpr std::uint64_t kTrustedDeviationSamples = 8;

SteeringConfig with_mode(SteeringConfig c, ClientTimeMode mode) {
  c.hard_reset_only = c.hard_reset_only || mode == ClientTimeMode::kHardResetOnly;
  return c;
}

const ClientMeasurements& measurements_of(const ProviderInputs& in) {
  if (in.client == nullptr) throw std::logic_error("ClientTimeProvider needs client measurements");
  return *in.client;
}

}  // namespace

ClientTimeProvider::ClientTimeProvider(ClientTimeProviderConfig config)
    : config_(config),
      lead_(config.lead),
      interpolation_(config.interpolation),
      rises_(config.recurring_rises),
      lead_filter_(config.lead_filter),
      delay_filter_(config.delay_filter),
      predicted_(with_mode(config.predicted_steering, config.mode)),
      interpolated_(with_mode(config.interpolation_steering, config.mode)) {}

bool ClientTimeProvider::ready(const ProviderInputs& in) const {
  const ClientMeasurements& m = measurements_of(in);
  return m.clock().has_estimate() && m.rtt().has_sample();
}

Duration ClientTimeProvider::raw_lead(const ClientMeasurements& m) const {
  if (const auto need = lead_.required()) return *need + config_.lead_safety;
  // RFC 6298 starts the deviation at half the first round trip, far too
  // generous here; it counts only once a few samples back it.
  const Duration deviation = m.rtt().samples() >= kTrustedDeviationSamples ? m.rtt().deviation() : Duration::zero();
  return m.rtt().min() / 2 + deviation * 4 + config_.initial_lead_margin;
}

Duration ClientTimeProvider::raw_delay(const ClientMeasurements& m) const {
  if (const auto delay = interpolation_.required_delay()) return *delay + config_.delay_safety;
  const Duration deviation = m.rtt().samples() >= kTrustedDeviationSamples ? m.rtt().deviation() : Duration::zero();
  return deviation * 2 + config_.initial_delay;
}

void ClientTimeProvider::initialize(Timelines& t, const ProviderInputs& in) {
  const ClientMeasurements& m = measurements_of(in);
  const NetworkTime server = *m.clock().server_time(in.now);
  lead_filter_.reset(in.now, raw_lead(m));
  delay_filter_.reset(in.now, raw_delay(m));
  t.predicted = server + *lead_filter_.value();
  t.interpolation = server - *delay_filter_.value();
  t.predicted_correction = 0;
  t.interpolation_correction = 0;
  clock_steps_seen_ = m.clock().steps();
}

void ClientTimeProvider::forget_if_clock_stepped(const ClientMeasurements& m) {
  // After a step of the server clock, needs and ages measured across it are
  // meaningless: start learning again.
  if (m.clock().steps() == clock_steps_seen_) return;
  clock_steps_seen_ = m.clock().steps();
  lead_.clear();
  interpolation_.clear();
  rises_.clear();
  holding_ = false;
  lead_learning_ = true;
}

void ClientTimeProvider::on_snapshot(const ProviderInputs& in, const SnapshotObservation& obs) {
  const ClientMeasurements& m = measurements_of(in);
  forget_if_clock_stepped(m);
  if (obs.need) lead_.add(obs.received, *obs.need);
  rises_.on_late(obs.received, obs.newly_late);
  if (obs.newest && config_.measure_interpolation) {
    const auto server = m.clock().server_time(obs.received);
    const Time previous = obs.previous_frame.value_or(obs.received);
    const auto server_before = m.clock().server_time(previous);
    if (server && server_before) {
      interpolation_.add(obs.received, obs.sent, *server, previous, *server_before,
                         obs.frame_interval.value_or(Duration::zero()));
    }
  }
}

Advance ClientTimeProvider::advance(Timelines& t, const ProviderInputs& in, Duration elapsed) {
  const ClientMeasurements& m = measurements_of(in);
  forget_if_clock_stepped(m);
  const NetworkTime server = *m.clock().server_time(in.now);

  // While the estimators are still learning, follow them directly: their
  // early answers are deliberately generous, and holding a generous target
  // for the release time would only add latency.
  // When learning ends the margin it carried goes at once: it was an
  // allowance for ignorance, not a measured need.
  const bool learning_ended = lead_learning_ && !lead_.learning() && lead_.samples() > 0;
  lead_learning_ = lead_.learning();
  Duration raw = raw_lead(m);
  // Not while learning: the requirement is then the largest need seen plus
  // a margin, and its steps are what learning finds, not a route changing.
  if (lead_.settled() && !lead_.learning()) {
    // `holding_` as the last frame left it: a rise met under the hold.
    rises_.observe(in.now, raw, holding_);
    const auto floor = rises_.floor(in.now, raw, config_.lead.late_event_cost);
    holding_ = floor && *floor > raw;
    if (holding_) raw = *floor;
  } else {
    holding_ = false;
  }
  const Duration lead = lead_.settled() && !learning_ended ? lead_filter_.update(in.now, raw) : raw;
  if (!lead_.settled() || learning_ended) lead_filter_.reset(in.now, lead);
  const Duration delay = interpolation_.required_delay() ? delay_filter_.update(in.now, raw_delay(m)) : raw_delay(m);
  if (!interpolation_.required_delay()) delay_filter_.reset(in.now, delay);

  // Jump only when typical inputs are late now (the level rose past the
  // timeline, as after a route change); a rise of the tail is precaution
  // and is steered.
  std::optional<NetworkTime> urgent;
  if (lead_.samples() > 0) urgent = server + lead_.level() + config_.lead_safety;
  const double base = m.clock().rate();
  bool reset = predicted_.advance(t.predicted, server + lead, elapsed, base, urgent);
  reset = interpolated_.advance(t.interpolation, server - delay, elapsed, base) || reset;
  t.predicted_correction = predicted_.correction();
  t.interpolation_correction = interpolated_.correction();
  return reset ? Advance::kHardReset : Advance::kSmooth;
}

std::optional<NetworkTime> ClientTimeProvider::server_time(const ProviderInputs& in) const {
  return measurements_of(in).clock().server_time(in.now);
}

}  // namespace tickwire::timesync
