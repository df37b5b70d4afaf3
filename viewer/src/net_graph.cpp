#include "net_graph.h"

#include <algorithm>
#include <cstdio>

namespace tickwire::viewer {

namespace {

struct SeriesInfo {
  const char* name;
  const char* key;
  const char* unit;
};

constexpr std::array<SeriesInfo, kSeriesCount> kInfo = {{
    {"RTT", "rtt_ms", "ms"},
    {"jitter", "jitter_ms", "ms"},
    {"loss", "loss_percent", "%"},
    {"lead", "lead_ms", "ms"},
    {"target lead", "target_lead_ms", "ms"},
    {"interp delay", "interpolation_delay_ms", "ms"},
    {"time scale", "time_scale", "x"},
    {"snapshots", "snapshots_per_s", "/s"},
    {"wire in", "wire_in_kbps", "kbit/s"},
    {"wire out", "wire_out_kbps", "kbit/s"},
    {"payload in", "payload_in_kbps", "kbit/s"},
    {"payload out", "payload_out_kbps", "kbit/s"},
    {"mispredictions", "mispredictions_per_s", "/s"},
    {"rollbacks", "rollbacks_per_s", "/s"},
    {"rollback depth", "rollback_depth_ticks", "ticks"},
    {"late inputs", "late_inputs_per_s", "/s"},
    {"missing inputs", "missing_inputs_per_s", "/s"},
    {"hard resets", "hard_resets", ""},
}};

float kbps(std::uint64_t bytes, double seconds) {
  return static_cast<float>(static_cast<double>(bytes) * 8e-3 / seconds);
}

float per_second(std::uint64_t count, double seconds) {
  return static_cast<float>(static_cast<double>(count) / seconds);
}

// A counter that went backwards (a new session) counts from zero.
std::uint64_t delta(std::uint64_t now, std::uint64_t before) { return now >= before ? now - before : now; }

}  // namespace

const char* series_name(Series s) { return kInfo[static_cast<std::size_t>(s)].name; }
const char* series_key(Series s) { return kInfo[static_cast<std::size_t>(s)].key; }
const char* series_unit(Series s) { return kInfo[static_cast<std::size_t>(s)].unit; }

float NetGraph::latest(Series s) const {
  if (count_ == 0) return 0.0F;
  return values_[static_cast<std::size_t>(s)][(next_ + kSamples - 1) % kSamples];
}

bool NetGraph::observe(const GraphReading& r) {
  if (r.stats == nullptr) return false;
  if (!last_) {
    last_ = r;
    last_stats_ = *r.stats;
    return false;
  }
  const Duration elapsed = r.now - last_->now;
  if (elapsed <= Duration::zero() || elapsed < kSampleInterval) return false;
  const double dt = elapsed.seconds_f();
  const client::ClientStats& s = *r.stats;
  const client::ClientStats& p = last_stats_;
  std::array<float, kSeriesCount> v{};
  auto set = [&v](Series k, double x) { v[static_cast<std::size_t>(k)] = static_cast<float>(x); };
  set(Series::kRttMs, s.rtt.millis_f());
  set(Series::kJitterMs, s.jitter.millis_f());
  set(Series::kLossPercent, s.loss * 100.0);
  set(Series::kLeadMs, s.lead.millis_f());
  set(Series::kTargetLeadMs, r.target_lead ? r.target_lead->millis_f() : 0.0);
  set(Series::kInterpolationDelayMs, s.interpolation_delay.millis_f());
  set(Series::kTimeScale, (r.predicted_seconds - last_->predicted_seconds) / dt);
  const std::uint64_t snapshots = delta(s.snapshots, p.snapshots);
  set(Series::kSnapshotsPerSecond, per_second(snapshots, dt));
  std::uint64_t wire_in = 0;
  if (r.wire && last_->wire) {
    wire_in = delta(r.wire->bytes_received, last_->wire->bytes_received);
    set(Series::kWireInKbps, kbps(wire_in, dt));
    set(Series::kWireOutKbps, kbps(delta(r.wire->bytes_sent, last_->wire->bytes_sent), dt));
  }
  const std::uint64_t payload_in = delta(s.bytes_in, p.bytes_in);
  set(Series::kPayloadInKbps, kbps(payload_in, dt));
  set(Series::kPayloadOutKbps, kbps(delta(s.bytes_out, p.bytes_out), dt));
  const std::uint64_t mispredictions = delta(s.mispredictions, p.mispredictions);
  const std::uint64_t rollbacks = delta(s.rollbacks, p.rollbacks);
  const std::uint64_t replayed = delta(r.replayed_ticks, last_->replayed_ticks);
  const std::uint64_t late = delta(s.late_inputs, p.late_inputs);
  const std::uint64_t missing = delta(s.missing_inputs, p.missing_inputs);
  const std::uint64_t resets = delta(s.hard_resets, p.hard_resets);
  set(Series::kMispredictionsPerSecond, per_second(mispredictions, dt));
  set(Series::kRollbacksPerSecond, per_second(rollbacks, dt));
  set(Series::kRollbackDepth, rollbacks > 0 ? static_cast<double>(replayed) / static_cast<double>(rollbacks) : 0.0);
  set(Series::kLateInputsPerSecond, per_second(late, dt));
  set(Series::kMissingInputsPerSecond, per_second(missing, dt));
  set(Series::kHardResets, static_cast<double>(resets));
  push(v);
  totals_.mispredictions += mispredictions;
  totals_.rollbacks += rollbacks;
  totals_.late_inputs += late;
  totals_.missing_inputs += missing;
  totals_.hard_resets += resets;
  totals_.snapshots += snapshots;
  totals_.wire_bytes_in += wire_in;
  totals_.payload_bytes_in += payload_in;
  last_ = r;
  last_stats_ = s;
  return true;
}

void NetGraph::push(const std::array<float, kSeriesCount>& sample) {
  for (std::size_t i = 0; i < kSeriesCount; ++i) values_[i][next_] = sample[i];
  next_ = (next_ + 1) % kSamples;
  count_ = std::min(count_ + 1, kSamples);
  ++samples_taken_;
}

}  // namespace tickwire::viewer
