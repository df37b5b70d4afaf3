#include "tickwire/timesync/n4e_time_provider.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "tickwire/timesync/client_measurements.h"

// Arithmetic follows NetworkTimeSystem.OnUpdate (com.unity.netcode 1.x) line
// for line: its casts to uint and int truncate, its integer divisions
// truncate toward zero (as C++'s do), and its float arithmetic is done here
// in double, which changes nothing measurable.

namespace tickwire::timesync {

namespace {

// Past this many ticks of error the prediction falls back to the round trip
// and, further off, jumps; the interpolation tick jumps; the interpolation
// delay is set outright. NetworkTimeSystem's literal 10s.
constexpr double kLargeErrorTicks = 10.0;
// The measured snapshot spacing is believed up to this many send intervals.
constexpr double kMaxSpacingIntervals = 6.0;
// NetworkSnapshotAck's smoothing of the round trip (TCP's).
constexpr double kRttGain = 0.125;
constexpr double kRttDeviationGain = 0.25;
// NetworkTimeSystemData.UpdateWithLastSnapshot's gain: "double the TCP spec".
constexpr double kSnapshotGain = 0.25;

const ClientMeasurements& measurements_of(const ProviderInputs& in) {
  if (in.client == nullptr) throw std::logic_error("N4eTimeProvider needs client measurements");
  return *in.client;
}

std::int64_t millis_of(Time t) { return t.micros() / 1000; }

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("N4eTimeProviderConfig: ") + what);
}

// (uint)x of a non-negative float: truncation.
std::int64_t whole(double x) { return static_cast<std::int64_t>(x); }

double lerp(double a, double b, double t) { return a + (b - a) * t; }

}  // namespace

void validate(const N4eTimeProviderConfig& c) {
  require(c.max_predict_ahead_time_ms <= 500, "max_predict_ahead_time_ms must be at most 500");
  require(c.prediction_time_scale_min >= 0.01 && c.prediction_time_scale_min < 1.0,
          "prediction_time_scale_min must be in [0.01, 1)");
  require(c.prediction_time_scale_max >= 1.0 && c.prediction_time_scale_max <= 2.0,
          "prediction_time_scale_max must be in [1, 2]");
  require(c.interpolation_time_scale_min >= 0.01 && c.interpolation_time_scale_min <= 1.0,
          "interpolation_time_scale_min must be in [0.01, 1]");
  require(c.interpolation_time_scale_max >= 1.0 && c.interpolation_time_scale_max <= 2.0,
          "interpolation_time_scale_max must be in [1, 2]");
  require(c.command_age_correction_fraction > 0.0 && c.command_age_correction_fraction < 1.0,
          "command_age_correction_fraction must be in (0, 1)");
  require(c.interpolation_delay_jitter_scale >= 0.0 && c.interpolation_delay_jitter_scale <= 3.0,
          "interpolation_delay_jitter_scale must be in [0, 3]");
  require(
      c.interpolation_delay_max_delta_ticks_fraction >= 0.0 && c.interpolation_delay_max_delta_ticks_fraction <= 1.0,
      "interpolation_delay_max_delta_ticks_fraction must be in [0, 1]");
  require(c.interpolation_delay_correction_fraction >= 0.0 && c.interpolation_delay_correction_fraction <= 1.0,
          "interpolation_delay_correction_fraction must be in [0, 1]");
  require(c.target_command_slack <= 64 && c.forced_input_latency_ticks <= 64 && c.interpolation_time_net_ticks <= 64,
          "tick counts must be at most 64");
  require(c.interpolation_time_ms <= 10000, "interpolation_time_ms must be at most 10000");
  require(c.network_tick_rate <= NetworkTime::kMaxTickRate, "network_tick_rate is too high");
}

// ---------------------------------------------------------------------------
// N4eCommandAge

void N4eCommandAge::on_input(Tick newest) {
  if (!newest_ || newest > *newest_) newest_ = newest;
}

void N4eCommandAge::on_tick(Tick tick) {
  if (!newest_) return;
  const std::int64_t age = (tick - *newest_) * 256;
  age_ = std::clamp<std::int64_t>((age_ * 7 + age) / 8, INT32_MIN, INT32_MAX);
}

// ---------------------------------------------------------------------------
// N4eCommandAgeFromMargins

void N4eCommandAgeFromMargins::on_report(const InputFeedback::Lead* arrivals, std::uint64_t newly_missed) {
  std::uint64_t steps = 0;
  const auto take = [&](std::int64_t age_units) {
    if (steps++ < kMaxSteps) step(age_units);
  };
  for (std::uint64_t i = 0; i < newly_missed && steps < kMaxSteps; ++i) take(kLeadUnitsPerTick);
  if (arrivals == nullptr) return;
  // -floor(margin in ticks), in 1/256 tick: floor division of the units.
  const auto age_of = [](std::int64_t margin_units) {
    const std::int64_t whole_ticks = margin_units >= 0 ? margin_units / kLeadUnitsPerTick
                                                       : -((-margin_units + kLeadUnitsPerTick - 1) / kLeadUnitsPerTick);
    return -whole_ticks * kLeadUnitsPerTick;
  };
  const std::size_t listed = std::min(arrivals->spread_count(), arrivals->spreads.size());
  take(age_of(arrivals->units));
  for (std::size_t i = 0; i < listed; ++i) take(age_of(std::int64_t{arrivals->units} + arrivals->spreads[i]));
  const std::uint64_t covered = arrivals->inputs;
  for (std::uint64_t i = 1 + listed; i < covered && steps < kMaxSteps; ++i) take(age_of(arrivals->units));
}

void N4eCommandAgeFromMargins::step(std::int64_t age_units) {
  age_ = std::clamp<std::int64_t>((age_ * 7 + age_units) / 8, INT32_MIN, INT32_MAX);
}

// ---------------------------------------------------------------------------
// N4eTimeProvider

N4eTimeProvider::N4eTimeProvider(N4eTimeProviderConfig config) : config_(config) { validate(config_); }

bool N4eTimeProvider::ready(const ProviderInputs& in) const {
  return measurements_of(in).newest().has_value() && has_rtt_;
}

void N4eTimeProvider::on_snapshot(const ProviderInputs& /*in*/, const SnapshotObservation& obs) {
  if (config_.command_age_from_margins) {
    // Every report counts (each covers its own inputs); the age the
    // provider steers by is the newest average, as with the original's.
    age_from_margins_.on_report(obs.arrivals ? &*obs.arrivals : nullptr, obs.newly_missed);
    server_command_age_ = age_from_margins_.value();
  }
  // NetworkSnapshotAck.UpdateRemoteTime: only a packet not older than the
  // last one updates the round trip, from millisecond stamps.
  if (!obs.newest || !obs.rtt) return;
  const std::int64_t whole_ms = obs.rtt->micros() / 1000;  // its stamps are whole milliseconds
  const auto sample_ms = static_cast<double>(whole_ms);
  if (!has_rtt_ || estimated_rtt_ms_ == 0) {
    estimated_rtt_ms_ = sample_ms;
  } else {
    estimated_rtt_ms_ = estimated_rtt_ms_ * (1 - kRttGain) + sample_ms * kRttGain;
  }
  deviation_rtt_ms_ =
      deviation_rtt_ms_ * (1 - kRttDeviationGain) + std::fabs(sample_ms - estimated_rtt_ms_) * kRttDeviationGain;
  has_rtt_ = true;
}

N4eTimeProvider::Shape N4eTimeProvider::shape(std::uint32_t tick_rate) {
  Shape s;
  s.rate = tick_rate;
  const auto rate = static_cast<std::int64_t>(tick_rate);
  const std::int64_t net_rate = config_.network_tick_rate == 0 ? rate : config_.network_tick_rate;
  s.rtt_in_ticks = (whole(estimated_rtt_ms_ * static_cast<double>(rate)) + 999) / 1000;
  const std::int64_t input_target_ticks = s.rtt_in_ticks + config_.target_command_slack;
  const std::int64_t max_allowed_prediction_ticks = (config_.max_predict_ahead_time_ms * rate + 999) / 1000;
  const std::int64_t forced_by_max_predict_ahead =
      std::max<std::int64_t>(0, input_target_ticks - max_allowed_prediction_ticks);
  effective_forced_input_latency_ticks_ =
      std::max<std::int64_t>(forced_by_max_predict_ahead, config_.forced_input_latency_ticks);
  s.predict_ahead_ticks = input_target_ticks - effective_forced_input_latency_ticks_;
  s.send_interval_ticks = (rate + net_rate - 1) / net_rate;  // CalculateNetworkSendRateInterval
  s.interpolation_time_ticks = config_.interpolation_time_ms != 0
                                   ? (config_.interpolation_time_ms * net_rate + 999) / 1000
                                   : config_.interpolation_time_net_ticks;  // CalculateInterpolationBufferTimeInTicks
  return s;
}

void N4eTimeProvider::initialize(Timelines& t, const ProviderInputs& in) {
  // NetworkTimeSystemData.InitWithFirstSnapshot.
  const ClientMeasurements& m = measurements_of(in);
  const Shape s = shape(m.tick_rate());
  const std::int64_t snapshot = m.newest()->sent.tick().value();
  const auto interval = static_cast<double>(s.send_interval_ticks);
  latest_snapshot_ = snapshot;
  latest_snapshot_estimate_ = snapshot;
  latest_snapshot_age_ = 0;
  predict_target_tick_ = snapshot + s.predict_ahead_ticks;
  sub_predict_target_tick_ = 0;
  avg_delta_sim_ticks_ = interval;
  dev_delta_sim_ticks_ = deviation_rtt_ms_ * interval / 1000.0;
  // As written: 1000 / (interval x tick rate) ms, not interval x 1000 / tick
  // rate; the first few snapshots' spacing soon replaces it.
  avg_packet_inter_arrival_ms_ = 1000.0 / (interval * static_cast<double>(s.rate));
  current_interpolation_frames_ =
      static_cast<double>(s.interpolation_time_ticks) * interval + 2.0 * dev_delta_sim_ticks_;
  interpolate_target_tick_ = snapshot - whole(current_interpolation_frames_);
  last_timestamp_ms_ = millis_of(in.now);
  command_age_adjustment_.fill(0.0);
  write(t);
  t.predicted_correction = 0;
  t.interpolation_correction = 0;
}

void N4eTimeProvider::update_with_last_snapshot(std::int64_t now_ms, std::int64_t snapshot_tick) {
  const std::int64_t snapshot_age = latest_snapshot_estimate_ - snapshot_tick;
  const auto snapshot_delta_sim_ticks = static_cast<double>(snapshot_tick - latest_snapshot_);
  const auto delta_timestamp = static_cast<double>(now_ms - last_timestamp_ms_);
  last_timestamp_ms_ = now_ms;
  latest_snapshot_age_ = (latest_snapshot_age_ * 7 + snapshot_age * 256) / 8;
  latest_snapshot_ = snapshot_tick;
  avg_delta_sim_ticks_ = lerp(avg_delta_sim_ticks_, snapshot_delta_sim_ticks, kSnapshotGain);
  dev_delta_sim_ticks_ =
      lerp(dev_delta_sim_ticks_, std::fabs(snapshot_delta_sim_ticks - avg_delta_sim_ticks_), kSnapshotGain);
  avg_packet_inter_arrival_ms_ = lerp(avg_packet_inter_arrival_ms_, delta_timestamp, kSnapshotGain);
}

double N4eTimeProvider::adjust_command_age(double command_age, std::int64_t rtt_in_ticks) {
  // The corrections of the last round trip are already on their way to
  // showing in the feedback; counting them again would overshoot.
  constexpr std::size_t kSlots = kCommandAgeAdjustmentLength;
  const auto current = static_cast<std::size_t>(static_cast<std::uint64_t>(latest_snapshot_) % kSlots);
  if (current != command_age_adjustment_slot_) {
    for (std::size_t i = (command_age_adjustment_slot_ + 1) % kSlots; i != (current + 1) % kSlots;
         i = (i + 1) % kSlots) {
      command_age_adjustment_[i] = 0;
    }
    command_age_adjustment_slot_ = current;
  }
  const auto count = static_cast<std::size_t>(std::clamp<std::int64_t>(rtt_in_ticks, 0, kSlots));
  for (std::size_t i = 0; i < count; ++i)
    command_age -= command_age_adjustment_[(kSlots + command_age_adjustment_slot_ - i) % kSlots];
  return command_age;
}

Advance N4eTimeProvider::advance(Timelines& t, const ProviderInputs& in, Duration elapsed) {
  const ClientMeasurements& m = measurements_of(in);
  const Shape s = shape(m.tick_rate());
  const double delta_seconds = elapsed.seconds_f();
  const double delta_ticks = delta_seconds * static_cast<double>(s.rate);

  const std::int64_t received = m.newest()->sent.tick().value();
  if (received != latest_snapshot_) update_with_last_snapshot(millis_of(in.now), received);
  // latestSnapshotAge holds the estimate's fraction and its correction at
  // once: whole ticks move into the estimate.
  latest_snapshot_age_ -= whole(delta_ticks * 256.0);
  std::int64_t delta = latest_snapshot_age_ / 256;
  if (delta < 0) {
    latest_snapshot_estimate_ += -delta;
    latest_snapshot_age_ -= delta * 256;
  } else if (delta > 0) {
    ++delta;
    latest_snapshot_estimate_ -= delta;
    latest_snapshot_age_ -= delta * 256;
  }

  bool jumped = false;
  double prediction_time_scale = 1.0;
  const auto step_predicted = [&](double scale) {
    sub_predict_target_tick_ += delta_ticks * scale;
    const std::int64_t whole_ticks = whole(sub_predict_target_tick_);
    sub_predict_target_tick_ -= static_cast<double>(whole_ticks);
    predict_target_tick_ += whole_ticks;
  };
  double command_age = server_command_age_ / 256.0 + config_.target_command_slack;
  command_age = adjust_command_age(command_age, s.rtt_in_ticks);
  if (std::fabs(command_age) < kLargeErrorTicks) {
    prediction_time_scale = std::clamp(1.0 + config_.command_age_correction_fraction * command_age,
                                       config_.prediction_time_scale_min, config_.prediction_time_scale_max);
    step_predicted(prediction_time_scale);
  } else {
    const std::int64_t current_predict = latest_snapshot_estimate_ + s.predict_ahead_ticks;
    const double predict_delta = static_cast<double>(current_predict - predict_target_tick_) - delta_ticks;
    if (std::fabs(predict_delta) > kLargeErrorTicks) {
      predict_target_tick_ = current_predict;
      sub_predict_target_tick_ = 0;
      command_age_adjustment_.fill(0.0);
      jumped = true;
    } else {
      prediction_time_scale = std::clamp(1.0 + config_.command_age_correction_fraction * predict_delta,
                                         config_.prediction_time_scale_min, config_.prediction_time_scale_max);
      step_predicted(prediction_time_scale);
    }
  }
  command_age_adjustment_[command_age_adjustment_slot_] += delta_ticks * (prediction_time_scale - 1.0);

  jumped = advance_interpolation(s, delta_ticks, delta_seconds) || jumped;
  write(t);
  t.predicted_correction = prediction_time_scale - 1.0;
  t.interpolation_correction = interpolation_time_scale_ - 1.0;
  return jumped ? Advance::kHardReset : Advance::kSmooth;
}

bool N4eTimeProvider::advance_interpolation(const Shape& s, double delta_ticks, double delta_seconds) {
  // The delay: the configured buffer, or the snapshot spacing seen (ticks
  // between snapshot ticks, or their arrival interval) plus its deviation
  // if that is larger, within six send intervals.
  const auto interval = static_cast<double>(s.send_interval_ticks);
  const double delay_change_limit = delta_ticks * config_.interpolation_delay_max_delta_ticks_fraction;
  const double spacing_ticks = avg_delta_sim_ticks_ + dev_delta_sim_ticks_ * config_.interpolation_delay_jitter_scale;
  const double arrival_ticks = (avg_packet_inter_arrival_ms_ * static_cast<double>(s.rate) + 999.0) / 1000.0;
  const double desired_ticks = static_cast<double>(s.interpolation_time_ticks) * interval;
  const double measured_ticks = std::min(std::max(arrival_ticks, spacing_ticks), kMaxSpacingIntervals * interval);
  const double frames = std::max(desired_ticks, measured_ticks);
  if (std::fabs(frames - current_interpolation_frames_) > kLargeErrorTicks) {
    current_interpolation_frames_ = frames;
  } else {
    current_interpolation_frames_ +=
        std::clamp((frames - current_interpolation_frames_) * delta_seconds, -delay_change_limit, delay_change_limit);
  }

  std::int64_t target = latest_snapshot_estimate_ - whole(current_interpolation_frames_);
  // With forced input latency the predicted tick may fall behind the
  // interpolated one; the interpolation window stretches instead.
  if (effective_forced_input_latency_ticks_ > 0 && predict_target_tick_ < target) target = predict_target_tick_;
  const double target_delta =
      static_cast<double>(target - interpolate_target_tick_) - sub_interpolate_target_tick_ - delta_ticks;
  interpolation_time_scale_ = 1.0;
  // Only behind by 10 ticks jumps; ahead, the scale slows the tick down.
  if (target_delta < kLargeErrorTicks) {
    interpolation_time_scale_ = std::clamp(1.0 + target_delta * config_.interpolation_delay_correction_fraction,
                                           config_.interpolation_time_scale_min, config_.interpolation_time_scale_max);
    sub_interpolate_target_tick_ += delta_ticks * interpolation_time_scale_;
    const std::int64_t whole_ticks = whole(sub_interpolate_target_tick_);
    interpolate_target_tick_ += whole_ticks;
    sub_interpolate_target_tick_ -= static_cast<double>(whole_ticks);
    return false;
  }
  interpolate_target_tick_ = target;
  sub_interpolate_target_tick_ = 0;
  return true;
}

void N4eTimeProvider::write(Timelines& t) const {
  const std::uint32_t rate = t.predicted.tick_rate();
  t.predicted = NetworkTime::from_ticks_f(rate, static_cast<double>(predict_target_tick_) + sub_predict_target_tick_);
  t.interpolation =
      NetworkTime::from_ticks_f(rate, static_cast<double>(interpolate_target_tick_) + sub_interpolate_target_tick_);
}

std::optional<NetworkTime> N4eTimeProvider::server_time(const ProviderInputs& in) const {
  const ClientMeasurements& m = measurements_of(in);
  if (!m.newest() || !has_rtt_) return std::nullopt;
  // latestSnapshotEstimate less its pending fraction is the tick of the
  // snapshot expected now, sent half a round trip ago.
  const double expected =
      static_cast<double>(latest_snapshot_estimate_) - static_cast<double>(latest_snapshot_age_) / 256.0;
  return NetworkTime::from_ticks_f(m.tick_rate(), expected) + Duration::micros(std::llround(estimated_rtt_ms_ * 500.0));
}

}  // namespace tickwire::timesync
