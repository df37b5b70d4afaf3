#include "metrics.h"

#include <algorithm>
#include <cmath>

#include "tickwire/transport/transport.h"

namespace tickwire::bots {
namespace {

double per_minute(std::uint64_t count, double connected_seconds) {
  return connected_seconds > 0.0 ? static_cast<double>(count) * 60.0 / connected_seconds : 0.0;
}

double kbps(std::uint64_t bytes, double connected_seconds) {
  return connected_seconds > 0.0 ? static_cast<double>(bytes) * 8.0 / 1000.0 / connected_seconds : 0.0;
}

double ratio(std::uint64_t part, std::uint64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// Wire figures kept apart from the rest (see WireFigures).
void add_wire_counters(WireFigures& into, const WireFigures& from) {
  into.datagrams_in += from.datagrams_in;
  into.bytes_in += from.bytes_in;
  into.datagrams_out += from.datagrams_out;
  into.bytes_out += from.bytes_out;
}

void summarize_wire(Summary& s, const BotFigures& totals) {
  using transport::kIpv4UdpHeaderBytes;
  const WireFigures& w = totals.wire;
  s.wire_kbps_in = kbps(w.bytes_in + w.datagrams_in * kIpv4UdpHeaderBytes, totals.connected_seconds);
  s.wire_kbps_out = kbps(w.bytes_out + w.datagrams_out * kIpv4UdpHeaderBytes, totals.connected_seconds);
  if (totals.connected_seconds > 0.0) {
    s.wire_datagrams_in = static_cast<double>(w.datagrams_in) / totals.connected_seconds;
    s.wire_datagrams_out = static_cast<double>(w.datagrams_out) / totals.connected_seconds;
  }
}

}  // namespace

void add_counters(BotFigures& into, const BotFigures& from) {
  into.connected_seconds += from.connected_seconds;
  into.bytes_in += from.bytes_in;
  into.bytes_out += from.bytes_out;
  into.snapshots += from.snapshots;
  into.predicted_ticks += from.predicted_ticks;
  into.mispredictions += from.mispredictions;
  into.rollbacks += from.rollbacks;
  into.max_rollback_depth = std::max(into.max_rollback_depth, from.max_rollback_depth);
  into.late_inputs += from.late_inputs;
  into.missing_inputs += from.missing_inputs;
  into.hard_resets += from.hard_resets;
  into.sync_checks += from.sync_checks;
  into.desyncs += from.desyncs;
  add_wire_counters(into.wire, from.wire);
  into.margins.merge(from.margins);
  into.margins_exact += from.margins_exact;
  into.late_burst_seconds += from.late_burst_seconds;
  add_shot_figures(into.shots, from.shots);
  add_correction_counts(into.corrections, from.corrections);
}

std::optional<double> margin_p50_ms(const timesync::MarginHistogram& h) {
  const auto q = h.quantile(0.50);
  return q ? std::optional<double>(q->millis_f()) : std::nullopt;
}

std::optional<double> margin_p99_ms(const timesync::MarginHistogram& h) {
  const auto q = h.quantile(0.01);
  return q ? std::optional<double>(q->millis_f()) : std::nullopt;
}

MarginSummary summarize_margins(std::span<const BotFigures> bots) {
  MarginSummary m;
  std::vector<double> p50s;
  std::uint64_t exact = 0;
  for (std::size_t i = 0; i < bots.size(); ++i) {
    const BotFigures& f = bots[i];
    BotMargins b;
    b.bot = i;
    b.inputs = f.margins.count();
    b.exact = f.margins_exact;
    b.p50_ms = margin_p50_ms(f.margins);
    b.p99_ms = margin_p99_ms(f.margins);
    b.late_inputs = f.late_inputs;
    b.late_burst_seconds = f.late_burst_seconds;
    m.inputs += b.inputs;
    exact += b.exact;
    m.late_burst_seconds += b.late_burst_seconds;
    m.late_burst_seconds_max = std::max(m.late_burst_seconds_max, b.late_burst_seconds);
    if (b.p50_ms && b.p99_ms) {
      ++m.bots_reported;
      p50s.push_back(*b.p50_ms);
      m.p99_ms = m.p99_ms ? std::min(*m.p99_ms, *b.p99_ms) : *b.p99_ms;
    }
    m.bots.push_back(b);
  }
  if (!p50s.empty()) m.p50_ms = percentile(std::move(p50s), 0.50);
  m.exact_fraction = ratio(std::min(exact, m.inputs), m.inputs);
  return m;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(std::clamp(p, 0.0, 1.0) * static_cast<double>(values.size()));
  const auto index = static_cast<std::size_t>(std::max(rank, 1.0)) - 1;
  return values[std::min(index, values.size() - 1)];
}

void Recorder::sample(double t, std::span<const BotFigures> bots) {
  SeriesPoint point;
  point.t = t;
  BotFigures totals;
  std::vector<double> rtts;
  double lead = 0.0;
  double interpolation = 0.0;
  for (const BotFigures& bot : bots) {
    add_counters(totals, bot);
    if (!bot.connected) continue;
    ++point.connected;
    if (!bot.synced) continue;
    rtts.push_back(bot.rtt_ms);
    lead += bot.lead_ms;
    interpolation += bot.interpolation_delay_ms;
    rtt_ms_.push_back(bot.rtt_ms);
    jitter_ms_sum_ += bot.jitter_ms;
    loss_sum_ += bot.loss;
    lead_ms_sum_ += bot.lead_ms;
    interpolation_ms_sum_ += bot.interpolation_delay_ms;
  }
  if (!rtts.empty()) {
    const auto n = static_cast<double>(rtts.size());
    point.rtt_p50_ms = percentile(rtts, 0.50);
    point.rtt_p99_ms = percentile(rtts, 0.99);
    point.lead_ms = lead / n;
    point.interpolation_delay_ms = interpolation / n;
  }
  const double connected_seconds = totals.connected_seconds - previous_.connected_seconds;
  point.mispredictions_per_min = per_minute(totals.mispredictions - previous_.mispredictions, connected_seconds);
  point.late_inputs = totals.late_inputs - previous_.late_inputs;
  point.missing_inputs = totals.missing_inputs - previous_.missing_inputs;
  point.kbps_in = kbps(totals.bytes_in - previous_.bytes_in, connected_seconds);
  point.kbps_out = kbps(totals.bytes_out - previous_.bytes_out, connected_seconds);
  const timesync::MarginHistogram interval = totals.margins.since(previous_.margins);
  point.margins = interval.count();
  point.margin_p50_ms = margin_p50_ms(interval);
  point.margin_p99_ms = margin_p99_ms(interval);
  previous_burst_seconds_.resize(std::max(previous_burst_seconds_.size(), bots.size()), 0);
  for (std::size_t i = 0; i < bots.size(); ++i) {
    if (bots[i].late_burst_seconds > previous_burst_seconds_[i]) ++point.late_burst_bots;
    previous_burst_seconds_[i] = bots[i].late_burst_seconds;
  }
  series_.push_back(point);
  previous_ = std::move(totals);
}

Summary summarize(const Recorder& recorder, std::span<const BotFigures> bots, Outcome outcome, double seconds,
                  std::uint32_t tick_rate) {
  BotFigures totals;
  for (const BotFigures& bot : bots) add_counters(totals, bot);
  Summary s;
  s.seconds = seconds;
  s.connected_seconds = totals.connected_seconds;
  for (const auto& [reason, count] : outcome.disconnects) s.disconnect_count += count;
  s.connected_fraction = ratio(outcome.connected_ever, outcome.bots);
  s.rtt_p50_ms = percentile(recorder.rtt_samples_ms(), 0.50);
  s.rtt_p99_ms = percentile(recorder.rtt_samples_ms(), 0.99);
  s.rtt_max_ms = percentile(recorder.rtt_samples_ms(), 1.0);
  s.jitter_mean_ms = recorder.jitter_mean_ms();
  s.loss_mean = recorder.loss_mean();
  s.lead_mean_ms = recorder.lead_mean_ms();
  s.interpolation_delay_mean_ms = recorder.interpolation_delay_mean_ms();
  s.mispredictions = totals.mispredictions;
  s.mispredictions_per_min = per_minute(totals.mispredictions, totals.connected_seconds);
  s.rollbacks = totals.rollbacks;
  s.max_rollback_depth = totals.max_rollback_depth;
  s.predicted_ticks = totals.predicted_ticks;
  s.connected_ticks = static_cast<std::uint64_t>(std::llround(totals.connected_seconds * tick_rate));
  s.late_inputs = totals.late_inputs;
  s.missing_inputs = totals.missing_inputs;
  s.late_input_fraction = ratio(totals.late_inputs, totals.predicted_ticks);
  s.missing_input_fraction = ratio(totals.missing_inputs, s.connected_ticks);
  s.hard_resets = totals.hard_resets;
  s.kbps_in = kbps(totals.bytes_in, totals.connected_seconds);
  s.kbps_out = kbps(totals.bytes_out, totals.connected_seconds);
  summarize_wire(s, totals);
  s.snapshots_per_second =
      totals.connected_seconds > 0.0 ? static_cast<double>(totals.snapshots) / totals.connected_seconds : 0.0;
  s.sync_checks = totals.sync_checks;
  s.desyncs = totals.desyncs;
  s.margins = summarize_margins(bots);
  s.shots = totals.shots;
  if (s.shots.on_target > 0) s.hit_registration = ratio(s.shots.on_target_hits, s.shots.on_target);
  if (s.shots.off_target > 0) s.false_hits = ratio(s.shots.off_target_hits, s.shots.off_target);
  std::vector<CorrectionFigures> corrections;
  std::vector<double> connected;
  for (const BotFigures& bot : bots) {
    corrections.push_back(bot.corrections);
    connected.push_back(bot.connected_seconds);
  }
  s.corrections = summarize_corrections(corrections, connected);
  s.outcome = std::move(outcome);
  return s;
}

}  // namespace tickwire::bots
