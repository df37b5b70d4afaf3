#pragma once
// The figures of a run, kept apart from the network so they can be tested:
// each bot reports BotFigures, the Recorder samples the fleet once per
// interval into a time series, and summarize() turns the end state into
// the Summary the table, the JSON and the HTML report all print.
//
// Rates are per connected bot: divided by the seconds each bot actually
// spent connected, so bots that ramp in late, churn or drop out do not
// dilute them.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "corrections.h"
#include "tickwire/bots/bots.h"
#include "tickwire/timesync/input_margins.h"

namespace tickwire::bots {

// What crossed a bot's socket (transport::WireStats): its transport's
// headers, acknowledgements, pings and handshake beside the payload that
// bytes_in and bytes_out count. Zero for a bot without a socket.
struct WireFigures {
  std::uint64_t datagrams_in = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t datagrams_out = 0;
  std::uint64_t bytes_out = 0;
};

// One bot at one instant: counters since the bot started (over every
// client it used, when it rejoined), gauges as they are now.
struct BotFigures {
  bool connected = false;
  // The client's time system has started: it has a round trip and a lead.
  // Bots still connecting or syncing have neither, and are left out of the
  // time figures rather than counted as zero.
  bool synced = false;
  double rtt_ms = 0.0;
  double jitter_ms = 0.0;
  double loss = 0.0;
  double lead_ms = 0.0;
  double interpolation_delay_ms = 0.0;

  double connected_seconds = 0.0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t snapshots = 0;
  std::uint64_t predicted_ticks = 0;  // inputs sampled and sent
  std::uint64_t mispredictions = 0;
  std::uint64_t rollbacks = 0;
  std::uint32_t max_rollback_depth = 0;
  std::uint64_t late_inputs = 0;
  std::uint64_t missing_inputs = 0;
  std::uint64_t hard_resets = 0;
  std::uint64_t sync_checks = 0;
  std::uint64_t desyncs = 0;
  WireFigures wire;
  // How early the inputs reached the server (timesync/input_margins.h):
  // every margin the server reported, those known exactly, and the whole
  // seconds in which more than 1% of the inputs sent were late.
  timesync::MarginHistogram margins;
  std::uint64_t margins_exact = 0;
  std::uint64_t late_burst_seconds = 0;
  ShotFigures shots;  // hitscan shots of the shooter scripts
  CorrectionFigures corrections;
};

// Adds the counters of `from` into `into` (gauges untouched); the maximum
// rollback depth is the larger of the two, the margins are merged.
void add_counters(BotFigures& into, const BotFigures& from);

// One interval of the time series, over the bots connected at its end.
struct SeriesPoint {
  double t = 0.0;  // seconds since the run started
  std::size_t connected = 0;
  double rtt_p50_ms = 0.0;
  double rtt_p99_ms = 0.0;
  double lead_ms = 0.0;                 // mean
  double interpolation_delay_ms = 0.0;  // mean
  double mispredictions_per_min = 0.0;  // per connected bot, over the interval
  std::uint64_t late_inputs = 0;        // every bot, during the interval
  std::uint64_t missing_inputs = 0;
  double kbps_in = 0.0;  // per connected bot, over the interval
  double kbps_out = 0.0;
  // The margins the server reported during the interval, every bot's
  // pooled: their median and the margin 99% of them reach (the 1st
  // percentile); absent when none came.
  std::uint64_t margins = 0;
  std::optional<double> margin_p50_ms;
  std::optional<double> margin_p99_ms;
  std::size_t late_burst_bots = 0;  // bots whose client closed a late-burst second
};

class Recorder {
 public:
  // Figures of every bot at `t` seconds; call at a steady interval.
  void sample(double t, std::span<const BotFigures> bots);

  const std::vector<SeriesPoint>& series() const { return series_; }
  // Every RTT seen, one per connected bot per sample.
  const std::vector<double>& rtt_samples_ms() const { return rtt_ms_; }
  double jitter_mean_ms() const { return mean(jitter_ms_sum_); }
  double loss_mean() const { return mean(loss_sum_); }
  double lead_mean_ms() const { return mean(lead_ms_sum_); }
  double interpolation_delay_mean_ms() const { return mean(interpolation_ms_sum_); }

 private:
  double mean(double sum) const { return rtt_ms_.empty() ? 0.0 : sum / static_cast<double>(rtt_ms_.size()); }

  std::vector<SeriesPoint> series_;
  std::vector<double> rtt_ms_;
  double jitter_ms_sum_ = 0.0;
  double loss_sum_ = 0.0;
  double lead_ms_sum_ = 0.0;
  double interpolation_ms_sum_ = 0.0;
  BotFigures previous_;                                // the fleet's counters at the previous sample
  std::vector<std::uint64_t> previous_burst_seconds_;  // each bot's, at the previous sample
};

// One bot's input margins over the run. p50: half its inputs reached the
// server at least this early; p99: 99% did (the low tail, the 1st
// percentile). Absent for a bot the server never reported on.
struct BotMargins {
  std::size_t bot = 0;       // index
  std::uint64_t inputs = 0;  // inputs with a margin (their report arrived)
  std::uint64_t exact = 0;   // of those, known exactly (the rest count at their report's worst)
  std::optional<double> p50_ms;
  std::optional<double> p99_ms;
  std::uint64_t late_inputs = 0;
  std::uint64_t late_burst_seconds = 0;
};

// The fleet's: the median of the bots' p50, the worst (smallest) of their
// p99, and late-burst seconds summed over the bots and of the worst bot.
struct MarginSummary {
  std::vector<BotMargins> bots;
  std::size_t bots_reported = 0;  // bots with a p50 and a p99
  std::optional<double> p50_ms;
  std::optional<double> p99_ms;
  std::uint64_t inputs = 0;
  double exact_fraction = 0.0;  // of the inputs with a margin
  std::uint64_t late_burst_seconds = 0;
  std::uint64_t late_burst_seconds_max = 0;
};

MarginSummary summarize_margins(std::span<const BotFigures> bots);
// A histogram's median and 1st percentile, in ms.
std::optional<double> margin_p50_ms(const timesync::MarginHistogram& h);
std::optional<double> margin_p99_ms(const timesync::MarginHistogram& h);

// How the bots' connections went, counted by the runtime.
struct Outcome {
  std::size_t bots = 0;
  std::size_t connected_ever = 0;                    // bots that got a Welcome at least once
  std::size_t still_connected = 0;                   // at the end, before saying goodbye
  std::map<std::string, std::uint64_t> disconnects;  // not asked for, by reason
  std::map<std::string, std::uint64_t> denials;      // by reason
  std::uint64_t churn_leaves = 0;                    // asked for by the script
  std::string first_desync;                          // described, when any
};

struct Summary {
  Outcome outcome;
  double seconds = 0.0;            // the run's length
  double connected_seconds = 0.0;  // summed over bots
  std::uint64_t disconnect_count = 0;
  double connected_fraction = 0.0;
  double rtt_p50_ms = 0.0;
  double rtt_p99_ms = 0.0;
  double rtt_max_ms = 0.0;
  double jitter_mean_ms = 0.0;
  double loss_mean = 0.0;
  double lead_mean_ms = 0.0;
  double interpolation_delay_mean_ms = 0.0;
  std::uint64_t mispredictions = 0;
  double mispredictions_per_min = 0.0;  // per connected bot
  std::uint64_t rollbacks = 0;
  std::uint32_t max_rollback_depth = 0;
  std::uint64_t predicted_ticks = 0;
  std::uint64_t connected_ticks = 0;  // server ticks the bots were connected for
  std::uint64_t late_inputs = 0;
  std::uint64_t missing_inputs = 0;
  double late_input_fraction = 0.0;     // late inputs / inputs sent
  double missing_input_fraction = 0.0;  // missing inputs / server ticks connected
  std::uint64_t hard_resets = 0;
  double kbps_in = 0.0;  // per connected bot
  double kbps_out = 0.0;
  // The same at the socket, with 28 bytes of IP and UDP headers per
  // datagram, as a packet capture counts them.
  double wire_kbps_in = 0.0;
  double wire_kbps_out = 0.0;
  double wire_datagrams_in = 0.0;  // per connected bot per second
  double wire_datagrams_out = 0.0;
  double snapshots_per_second = 0.0;  // per connected bot
  std::uint64_t sync_checks = 0;
  std::uint64_t desyncs = 0;
  MarginSummary margins;
  // Hitscan shots (shooting.h): registration = on-target shots the server
  // counted as hits / on-target shots judged; false hits = off-target
  // shots counted as hits / off-target shots judged. Absent without shots.
  ShotFigures shots;
  std::optional<double> hit_registration;
  std::optional<double> false_hits;
  CorrectionSummary corrections;
};

// `bots`: every bot's figures at the end; `tick_rate`: the server's.
Summary summarize(const Recorder& recorder, std::span<const BotFigures> bots, Outcome outcome, double seconds,
                  std::uint32_t tick_rate);

// The p-quantile (0..1) by nearest rank; 0 for none.
double percentile(std::vector<double> values, double p);

}  // namespace tickwire::bots
