#include "stats_reporter.h"

#include <algorithm>

#include "memory.h"
#include "stats_format.h"

namespace tickwire::host {

StatsReporter::StatsReporter(Duration interval, const std::string& json_path, std::shared_ptr<spdlog::logger> log,
                             Time now)
    : interval_(interval), log_(std::move(log)), json_requested_(!json_path.empty()), last_(now), start_(now) {
  if (json_requested_) json_.open(json_path, std::ios::out | std::ios::app);
}

void StatsReporter::set_game(std::string name, std::string version) {
  game_ = std::move(name);
  game_version_ = std::move(version);
}

void StatsReporter::add_timings(const std::vector<server::TickTiming>& timings) {
  if (interval_ <= Duration::zero()) return;  // nothing will read them
  for (const auto& t : timings) {
    tick_us_.push_back(t.duration.micros());
    late_us_.push_back(t.lateness.micros());
  }
}

void StatsReporter::report(const server::ServerStats& s, const transport::ValidationStats& validation, Time now) {
  report(s, validation, transport::WireStats{}, now);
}

void StatsReporter::report(const server::ServerStats& s, const transport::ValidationStats& validation,
                           const transport::WireStats& wire, Time now) {
  const double secs = std::max((now - last_).seconds_f(), 1e-6);
  const server::ServerStats& p = previous_;
  const auto counter = [](std::uint64_t total, std::uint64_t before) { return Counter{total, total - before}; };
  const auto rate = [secs](const Counter& c) { return static_cast<double>(c.delta) / secs; };

  IntervalStats r;
  r.t = (now - start_).seconds_f();
  r.tick = s.tick.value();
  r.clients = s.clients;
  r.tick_us_p50 = percentile(tick_us_, 0.50);
  r.tick_us_p99 = percentile(tick_us_, 0.99);
  r.tick_us_max = percentile(tick_us_, 1.0);
  r.late_start_us_p99 = percentile(late_us_, 0.99);
  r.late_start_us_max = percentile(late_us_, 1.0);
  r.ticks_overrun = counter(s.ticks_overrun, p.ticks_overrun);
  r.ticks_skipped = counter(s.ticks_skipped, p.ticks_skipped);
  r.bytes_in = counter(s.bytes_in, p.bytes_in);
  r.bytes_out = counter(s.bytes_out, p.bytes_out);
  r.packets_in = counter(s.packets_in, p.packets_in);
  r.packets_out = counter(s.packets_out, p.packets_out);
  r.kbps_in = rate(r.bytes_in) * 8.0 / 1000.0;
  r.kbps_out = rate(r.bytes_out) * 8.0 / 1000.0;
  r.pps_in = rate(r.packets_in);
  r.pps_out = rate(r.packets_out);
  {
    using transport::kIpv4UdpHeaderBytes;
    const transport::WireStats w0 = previous_wire_.value_or(transport::WireStats{});
    const auto wire_kbps = [secs](std::uint64_t bytes, std::uint64_t datagrams) {
      return static_cast<double>(bytes + datagrams * kIpv4UdpHeaderBytes) / secs * 8.0 / 1000.0;
    };
    r.wire_kbps_in =
        wire_kbps(wire.bytes_received - w0.bytes_received, wire.datagrams_received - w0.datagrams_received);
    r.wire_kbps_out = wire_kbps(wire.bytes_sent - w0.bytes_sent, wire.datagrams_sent - w0.datagrams_sent);
    previous_wire_ = wire;
  }
  r.snapshots = counter(s.snapshots, p.snapshots);
  r.late_inputs = counter(s.late_inputs, p.late_inputs);
  r.missing_inputs = counter(s.missing_inputs, p.missing_inputs);
  r.rejected_inputs = counter(s.rejected_inputs, p.rejected_inputs);
  r.view_replaced = counter(s.rewind.replaced, p.rewind.replaced);
  r.view_clamped = counter(s.rewind.clamped, p.rewind.clamped);
  r.bad_packets = counter(s.bad_packets(), p.bad_packets());
  r.connects = counter(s.connects, p.connects);
  r.denials = counter(s.denials, p.denials);
  r.disconnects = counter(s.disconnects, p.disconnects);
  r.receive_us = s.phases.receive_us;
  r.simulate_us = s.phases.simulate_us;
  r.relevancy_us = s.phases.relevancy_us;
  r.encode_us = s.phases.encode_us;
  r.send_us = s.phases.send_us;
  r.shared_bits_hits = s.shared_bits_hits;
  r.shared_bits_misses = s.shared_bits_misses;
  r.views_held = s.views_held;
  r.longest_reference_span = s.longest_reference_span;
  r.rss_kb = resident_set_kb();
  r.heap_kb = heap_in_use_kb();
  r.unvalidated_bytes_in = validation.unvalidated_bytes_in;
  r.unvalidated_bytes_out = validation.unvalidated_bytes_out;
  r.challenges_sent = validation.challenges_sent;
  r.challenges_over_budget = validation.challenges_over_budget;
  r.bad_cookies = validation.bad_cookies;
  r.connects_dropped = validation.connects_dropped;
  r.pending_connects = validation.pending;
  r.dropped_unsealed = validation.unsealed_dropped;
  r.dropped_unknown_connection = validation.unknown_connection;
  r.dropped_wrong_source = validation.wrong_source;
  r.dropped_failed_to_verify = validation.failed_to_verify;
  r.dropped_replayed = validation.replayed;
  r.dropped_foreign_slot = validation.foreign_slot;
  r.game = game_;
  r.game_version = game_version_;

  log_->info("{}", format_text_line(r));
  if (json_.is_open()) {
    json_ << format_json_line(r);
    json_.flush();
  }
  tick_us_.clear();
  late_us_.clear();
  previous_ = s;
  last_ = now;
}

}  // namespace tickwire::host
