#pragma once
// The net graph: the client's figures sampled every kSampleInterval and
// kept for the last kWindow, as plots a player reads while playing. Rates
// (bandwidth, snapshots, corrections) are the change of the client's
// counters over each interval; levels (RTT, lead) are read as they stand.
// The same samples feed the overlay and the --stats-json file.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "tickwire/client/client.h"
#include "tickwire/transport/transport.h"

namespace tickwire::viewer {

// What the graph reads once per frame.
struct GraphReading {
  Time now;
  const client::ClientStats* stats = nullptr;
  std::uint64_t replayed_ticks = 0;          // prediction's, for the mean rollback depth
  std::optional<transport::WireStats> wire;  // the socket's, headers included
  double predicted_seconds = 0.0;            // the predicted time, for the time scale
  std::optional<Duration> target_lead;       // the time provider's filtered target
};

// One plotted series.
enum class Series : std::uint8_t {
  kRttMs,
  kJitterMs,
  kLossPercent,
  kLeadMs,
  kTargetLeadMs,
  kInterpolationDelayMs,
  kTimeScale,
  kSnapshotsPerSecond,
  kWireInKbps,
  kWireOutKbps,
  kPayloadInKbps,
  kPayloadOutKbps,
  kMispredictionsPerSecond,
  kRollbacksPerSecond,
  kRollbackDepth,  // mean ticks replayed per rollback in the interval
  kLateInputsPerSecond,
  kMissingInputsPerSecond,
  kHardResets,  // in the interval
  kCount,
};
inline constexpr std::size_t kSeriesCount = static_cast<std::size_t>(Series::kCount);
const char* series_name(Series s);
const char* series_key(Series s);  // snake_case, for JSON
const char* series_unit(Series s);

class NetGraph {
 public:
  static constexpr Duration kSampleInterval = Duration::millis(100);
  static constexpr std::size_t kSamples = 100;  // 10 s

  // Takes a sample when one is due. True when it did.
  bool observe(const GraphReading& reading);

  // Oldest first, for ImGui::PlotLines: `count()` values from `offset()`.
  const float* values(Series s) const { return values_[static_cast<std::size_t>(s)].data(); }
  std::size_t count() const { return count_; }
  std::size_t offset() const { return count_ < kSamples ? 0 : next_; }
  // The newest sample of a series; 0 before any.
  float latest(Series s) const;

  // Sums of the per-interval changes plotted so far: they add up to the
  // client's counters, which is how a test sees the graph tells the truth.
  struct Totals {
    std::uint64_t mispredictions = 0;
    std::uint64_t rollbacks = 0;
    std::uint64_t late_inputs = 0;
    std::uint64_t missing_inputs = 0;
    std::uint64_t hard_resets = 0;
    std::uint64_t snapshots = 0;
    std::uint64_t wire_bytes_in = 0;
    std::uint64_t payload_bytes_in = 0;
  };
  const Totals& totals() const { return totals_; }
  std::uint64_t samples_taken() const { return samples_taken_; }
  // The client's stats as read for the newest sample.
  const client::ClientStats& stats_at_latest() const { return last_stats_; }

  // Draws the overlay (an ImGui window; net_graph_overlay.cpp).
  void draw_overlay(bool* open) const;

 private:
  void push(const std::array<float, kSeriesCount>& sample);

  std::array<std::array<float, kSamples>, kSeriesCount> values_{};
  std::size_t count_ = 0;
  std::size_t next_ = 0;
  std::uint64_t samples_taken_ = 0;
  Totals totals_;
  // The previous sample's counters.
  std::optional<GraphReading> last_;
  client::ClientStats last_stats_;
};

}  // namespace tickwire::viewer
