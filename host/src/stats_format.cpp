#include "stats_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "tickwire/core/logging.h"

namespace tickwire::host {

std::int64_t percentile(std::vector<std::int64_t>& values, double p) {
  if (values.empty()) return 0;
  const double n = static_cast<double>(values.size());
  // The epsilon keeps p * n from landing just above a whole rank through
  // rounding (0.99 * 100 must be rank 99, not 100).
  const double rank = std::ceil(std::clamp(p, 0.0, 1.0) * n - 1e-9);
  const auto k = static_cast<std::size_t>(std::clamp(rank - 1.0, 0.0, n - 1.0));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

std::string format_json_line(const IntervalStats& s) {
  return fmt::format(
      "{{\"t\":{:.3f},\"tick\":{},\"clients\":{},\"tick_us_p50\":{},\"tick_us_p99\":{},\"tick_us_max\":{},"
      "\"late_start_us_p99\":{},\"late_start_us_max\":{},\"ticks_overrun\":{},\"ticks_skipped\":{},"
      "\"bytes_in\":{},\"bytes_out\":{},\"packets_in\":{},\"packets_out\":{},\"kbps_in\":{:.1f},\"kbps_out\":{:.1f},"
      "\"wire_kbps_in\":{:.1f},\"wire_kbps_out\":{:.1f},"
      "\"snapshots\":{},\"late_inputs\":{},\"missing_inputs\":{},\"rejected_inputs\":{},\"bad_packets\":{},"
      "\"connects\":{},\"denials\":{},\"disconnects\":{},\"rss_kb\":{},\"heap_kb\":{},\"unvalidated_bytes_in\":{},"
      "\"unvalidated_bytes_out\":{},\"challenges_sent\":{},\"challenges_over_budget\":{},\"bad_cookies\":{},"
      "\"connects_dropped\":{},\"pending_connects\":{},\"receive_us\":{},\"simulate_us\":{},\"relevancy_us\":{},"
      "\"encode_us\":{},\"send_us\":{},\"view_replaced\":{},\"view_clamped\":{},\"shared_bits_hits\":{},"
      "\"shared_bits_misses\":{},\"views_held\":{},\"longest_reference_span\":{},\"dropped_unsealed\":{},"
      "\"dropped_unknown_connection\":{},\"dropped_wrong_source\":{},\"dropped_failed_to_verify\":{},"
      "\"dropped_replayed\":{},\"dropped_foreign_slot\":{},\"game\":\"{}\",\"game_version\":\"{}"
      "\"}}\n",
      s.t, s.tick, s.clients, s.tick_us_p50, s.tick_us_p99, s.tick_us_max, s.late_start_us_p99, s.late_start_us_max,
      s.ticks_overrun.total, s.ticks_skipped.total, s.bytes_in.total, s.bytes_out.total, s.packets_in.total,
      s.packets_out.total, s.kbps_in, s.kbps_out, s.wire_kbps_in, s.wire_kbps_out, s.snapshots.total,
      s.late_inputs.total, s.missing_inputs.total, s.rejected_inputs.total, s.bad_packets.total, s.connects.total,
      s.denials.total, s.disconnects.total, s.rss_kb, s.heap_kb, s.unvalidated_bytes_in, s.unvalidated_bytes_out,
      s.challenges_sent, s.challenges_over_budget, s.bad_cookies, s.connects_dropped, s.pending_connects, s.receive_us,
      s.simulate_us, s.relevancy_us, s.encode_us, s.send_us, s.view_replaced.total, s.view_clamped.total,
      s.shared_bits_hits, s.shared_bits_misses, s.views_held, s.longest_reference_span, s.dropped_unsealed,
      s.dropped_unknown_connection, s.dropped_wrong_source, s.dropped_failed_to_verify, s.dropped_replayed,
      s.dropped_foreign_slot, json_escape(s.game), json_escape(s.game_version));
}

std::string format_text_line(const IntervalStats& s) {
  const auto c = [](const Counter& counter) { return fmt::format("+{}/{}", counter.delta, counter.total); };
  return fmt::format(
      "stats: tick={} clients={} tick_us p50={} p99={} max={} late_start_us p99={} max={} overrun={} skipped={} "
      "in={:.1f}kbps/{:.0f}pps out={:.1f}kbps/{:.0f}pps snapshots={} inputs late={} missing={} rejected={} "
      "bad_packets={} rss={}KiB heap={}KiB unvalidated in={}B out={}B connects_dropped={} bad_cookies={} "
      "unopened={} view_times replaced={} clamped={}",
      s.tick, s.clients, s.tick_us_p50, s.tick_us_p99, s.tick_us_max, s.late_start_us_p99, s.late_start_us_max,
      c(s.ticks_overrun), c(s.ticks_skipped), s.kbps_in, s.pps_in, s.kbps_out, s.pps_out, c(s.snapshots),
      c(s.late_inputs), c(s.missing_inputs), c(s.rejected_inputs), c(s.bad_packets), s.rss_kb, s.heap_kb,
      s.unvalidated_bytes_in, s.unvalidated_bytes_out, s.connects_dropped, s.bad_cookies,
      s.dropped_unsealed + s.dropped_unknown_connection + s.dropped_wrong_source + s.dropped_failed_to_verify +
          s.dropped_replayed + s.dropped_foreign_slot,
      c(s.view_replaced), c(s.view_clamped));
}

std::optional<std::uint64_t> rss_kb_from_statm(std::string_view statm, std::uint64_t page_bytes) {
  // statm is "size resident shared text lib data dt", in pages.
  const auto space = statm.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view rest = statm.substr(space + 1);
  std::uint64_t pages = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), pages);
  if (ec != std::errc() || end == rest.data()) return std::nullopt;
  return pages * page_bytes / 1024;
}

}  // namespace tickwire::host
