#include "stats_reporter.h"

#include <algorithm>

namespace tickwire::server_app {
namespace {

std::int64_t percentile(std::vector<std::int64_t>& v, double p) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

StatsReporter::StatsReporter(Duration interval, const std::string& json_path, std::shared_ptr<spdlog::logger> log,
                             Time now)
    : interval_(interval), log_(std::move(log)), json_requested_(!json_path.empty()), last_(now), start_(now) {
  if (json_requested_) json_.open(json_path, std::ios::out | std::ios::app);
}

void StatsReporter::record_tick(Duration took, bool overran) {
  tick_us_.push_back(took.micros());
  if (overran) ++overruns_;
}

void StatsReporter::maybe_report(const server::ServerStats& s, Time now) {
  if (interval_ <= Duration::zero() || now - last_ < interval_) return;
  const double secs = (now - last_).seconds_f();
  const std::int64_t p50 = percentile(tick_us_, 0.50);
  const std::int64_t p99 = percentile(tick_us_, 0.99);
  const std::int64_t max = tick_us_.empty() ? 0 : *std::max_element(tick_us_.begin(), tick_us_.end());
  const auto kbps = [secs](std::uint64_t bytes) { return static_cast<double>(bytes) * 8.0 / 1000.0 / secs; };
  const double kbps_in = kbps(s.bytes_in - previous_.bytes_in);
  const double kbps_out = kbps(s.bytes_out - previous_.bytes_out);
  log_->info(
      "stats: clients={} tick={} tick_us p50={} p99={} max={} overruns={} skipped={} in={:.1f}kbps out={:.1f}kbps "
      "bad={}",
      s.clients, s.tick.value(), p50, p99, max, overruns_, s.ticks_skipped, kbps_in, kbps_out, s.bad_packets());
  if (json_.is_open()) {
    json_ << "{\"t\":" << (now - start_).seconds_f() << ",\"clients\":" << s.clients << ",\"tick\":" << s.tick.value()
          << ",\"tick_us_p50\":" << p50 << ",\"tick_us_p99\":" << p99 << ",\"tick_us_max\":" << max
          << ",\"ticks_overrun\":" << overruns_ << ",\"ticks_skipped\":" << s.ticks_skipped
          << ",\"bytes_in\":" << s.bytes_in << ",\"bytes_out\":" << s.bytes_out << ",\"packets_in\":" << s.packets_in
          << ",\"packets_out\":" << s.packets_out << ",\"connects\":" << s.connects << ",\"denials\":" << s.denials
          << ",\"disconnects\":" << s.disconnects << ",\"bad_packets\":" << s.bad_packets() << "}\n";
    json_.flush();
  }
  tick_us_.clear();
  previous_ = s;
  last_ = now;
}

}  // namespace tickwire::server_app
