#pragma once
// What one step measured, and how it is worked out from the server's
// per-second stats lines and CPU samples taken as each line appeared.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tickwire::bench {

// The fields of one server --stats-json line the benchmark reads.
struct StatsLine {
  double t = 0;  // seconds since the server started
  double tick = 0;
  double clients = 0;
  double tick_us_p50 = 0;
  double tick_us_p99 = 0;
  double tick_us_max = 0;
  double ticks_overrun = 0;
  double ticks_skipped = 0;
  double packets_in = 0;
  double kbps_in = 0;
  double kbps_out = 0;
  // At the server's socket, with IP and UDP headers; 0 from a server that
  // does not report them.
  double wire_kbps_in = 0;
  double wire_kbps_out = 0;
  double late_inputs = 0;
  double missing_inputs = 0;
  double disconnects = 0;
  // Optional: absent from servers that do not report them (0 then).
  double receive_us = 0;  // the server's own timing of its phases, totals
  double simulate_us = 0;
  double relevancy_us = 0;
  double encode_us = 0;
  double send_us = 0;
  double rss_kb = 0;
  double heap_kb = 0;     // what the server's allocator counts in use
  double views_held = 0;  // summed over clients, now
  double longest_reference_span = 0;
};

// The value of "key" in a flat JSON object, searched from `from`.
std::optional<double> json_number(std::string_view text, std::string_view key, std::size_t from = 0);
std::optional<StatsLine> parse_stats_line(std::string_view line);

// A stats line with the CPU time the processes had used when it was read.
struct Sample {
  StatsLine line;
  double server_cpu_us = 0;
  double bots_cpu_us = 0;
  double wall_s = 0;  // the benchmark's clock when it was read
};

// One step's figures. The first group is the JSON of the step.
struct StepFigures {
  int bots = 0;
  double tick_ms_p50 = 0;  // median of the per-second p50s in the window
  double tick_ms_p99 = 0;  // largest of the per-second p99s in the window
  std::uint64_t ticks_overrun = 0;
  double server_cpu_us_per_client_tick = 0;
  double late_input_rate = 0;          // the server's missing inputs / (clients x ticks)
  double payload_kbps_per_client = 0;  // in + out, what the server handed its transport
  // At the server's socket, with IP and UDP headers, per direction.
  double wire_kbps_in_per_client = 0;
  double wire_kbps_out_per_client = 0;
  std::uint64_t disconnects = 0;
  bool holds = false;

  // For the table and the diagnosis.
  double window_s = 0;
  double ticks = 0;
  double clients_mean = 0;
  double clients_min = 0;
  double tick_ms_max = 0;
  std::uint64_t ticks_skipped = 0;
  std::uint64_t server_late_inputs = 0;
  double server_core_load = 0;     // CPU seconds per second on the server's core
  double bots_core_load = 0;       // the same for both bots processes together
  double bots_late_fraction = -1;  // the bots' own figure over their whole run; -1 unknown
  // Packets the server received per client per second: about
  // expected_packets_per_s when the bots keep up, less when their core is
  // the limit.
  double packets_in_per_client_s = 0;
  double expected_packets_per_s = 60;  // one input packet a frame at 60 Hz, or every input_interval ticks
  // Where the server's time went, by its own clock, per client tick.
  double receive_us_per_client_tick = 0;
  double simulate_us_per_client_tick = 0;
  double relevancy_us_per_client_tick = 0;
  double encode_us_per_client_tick = 0;
  double send_us_per_client_tick = 0;
  double rss_mb = 0;              // the server's resident set at the end of the window
  double rss_kb_per_client = -1;  // above its resident set before any bot came; -1 unknown
  // The part of it the allocator counts in use, above the same before any
  // bot came: the rest of the resident set is memory freed and kept, not
  // yet trimmed, or outside the heap. -1 unknown.
  double heap_kb_per_client = -1;
  // States the server's senders held per client (mean over the window's
  // lines), and the longest reference span its shared probe chose (the
  // largest in the window): where the memory per client goes.
  double views_per_client = 0;
  double longest_reference_span = 0;
  // The bots processes' CPU per bot-frame: per input the server received
  // (in time or late), one per bot per frame run.
  double bots_cpu_us_per_bot_frame = 0;
  std::string error;  // why the step could not be measured
};

struct Targets {
  double tick_ms_p99 = 8.0;
  double late_input_rate = 1e-3;
  double cpu_us_per_client_tick = 15.0;  // at 128 bots
  double cpu_us_per_client_tick_at_512 = 12.0;
  double rss_kb_per_client = 100.0;     // at every step (64 relevant entities)
  double thin_bot_us_per_frame = 10.0;  // so that 1,000 thin bots fit on one core
};

// The server's memory before any bot came, from its first stats line.
struct IdleMemory {
  double rss_kb = 0;
  double heap_kb = 0;  // 0 from a server that does not report it
};

// The step's figures over the samples after `baseline` (whose totals are
// subtracted); sets `error` when there are too few. `idle`: the server's
// memory before any bot came, if known.
StepFigures compute_figures(int bots, const std::vector<Sample>& window, const Sample& baseline, const Targets& targets,
                            std::optional<IdleMemory> idle = std::nullopt);

}  // namespace tickwire::bench
