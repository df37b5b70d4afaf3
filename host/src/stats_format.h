#pragma once
// The pure parts of the periodic stats: percentiles, one interval's figures
// and their two renderings (a readable log line and a JSON line). Kept free
// of clocks, files and the server so they can be tested on their own.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tickwire::host {

// The nearest-rank percentile (p in [0, 1]) of `values`, which it reorders;
// 0 for no values. p = 1 is the maximum, and with fewer than 100 values p99
// is the maximum too, so a single slow tick is never hidden.
std::int64_t percentile(std::vector<std::int64_t>& values, double p);

// A running total and how much it grew over the interval.
struct Counter {
  std::uint64_t total = 0;
  std::uint64_t delta = 0;
};

// One interval's report. Times in microseconds, rates over the interval.
struct IntervalStats {
  double t = 0.0;  // seconds since start
  std::uint64_t tick = 0;
  std::size_t clients = 0;
  std::int64_t tick_us_p50 = 0;
  std::int64_t tick_us_p99 = 0;
  std::int64_t tick_us_max = 0;
  std::int64_t late_start_us_p99 = 0;
  std::int64_t late_start_us_max = 0;
  Counter ticks_overrun;
  Counter ticks_skipped;
  Counter bytes_in;
  Counter bytes_out;
  Counter packets_in;
  Counter packets_out;
  double kbps_in = 0.0;  // payload: what the server handed the transport
  double kbps_out = 0.0;
  // At the socket: every datagram the transport sent or read (ENet's and
  // session datagrams) with 28 bytes of IP and UDP headers each.
  double wire_kbps_in = 0.0;
  double wire_kbps_out = 0.0;
  double pps_in = 0.0;
  double pps_out = 0.0;
  Counter snapshots;
  Counter late_inputs;
  Counter missing_inputs;
  Counter rejected_inputs;
  // Lag compensation: view-time claims replaced by the server's estimate,
  // and rewinds clamped into the window.
  Counter view_replaced;
  Counter view_clamped;
  Counter bad_packets;
  Counter connects;
  Counter denials;
  Counter disconnects;
  // Microseconds of work by phase (server::PhaseTimes), totals.
  std::uint64_t receive_us = 0;
  std::uint64_t simulate_us = 0;
  std::uint64_t relevancy_us = 0;
  std::uint64_t encode_us = 0;
  std::uint64_t send_us = 0;
  std::uint64_t shared_bits_hits = 0;  // totals (ServerStats)
  std::uint64_t shared_bits_misses = 0;
  std::uint64_t views_held = 0;  // now, summed over clients (ServerStats)
  std::int64_t longest_reference_span = 0;
  std::uint64_t rss_kb = 0;
  std::uint64_t heap_kb = 0;  // in use by the allocator's count (memory.h)
  // Address validation, totals: traffic of addresses that never proved
  // they receive at their address, and what became of it.
  std::uint64_t unvalidated_bytes_in = 0;
  std::uint64_t unvalidated_bytes_out = 0;
  std::uint64_t challenges_sent = 0;
  std::uint64_t challenges_over_budget = 0;
  std::uint64_t bad_cookies = 0;
  std::uint64_t connects_dropped = 0;
  std::uint64_t pending_connects = 0;
  // Datagrams no session's keys opened, totals by reason (ValidationStats):
  // forged or stray traffic, dropped before any player's state was touched.
  std::uint64_t dropped_unsealed = 0;
  std::uint64_t dropped_unknown_connection = 0;
  std::uint64_t dropped_wrong_source = 0;
  std::uint64_t dropped_failed_to_verify = 0;
  std::uint64_t dropped_replayed = 0;
  std::uint64_t dropped_foreign_slot = 0;
  // Who is hosted (GameInfo), in the JSON line.
  std::string game;
  std::string game_version;
};

// One JSON object on one line (with the newline); counters as totals.
std::string format_json_line(const IntervalStats& s);
// One readable line, counters as +delta/total.
std::string format_text_line(const IntervalStats& s);

// The resident set in KiB from the text of /proc/self/statm.
std::optional<std::uint64_t> rss_kb_from_statm(std::string_view statm, std::uint64_t page_bytes);

}  // namespace tickwire::host
