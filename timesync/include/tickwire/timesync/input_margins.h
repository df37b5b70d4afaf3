#pragma once
// How early a client's inputs reach its server, as the server's feedback
// tells it (snapshot_timing.h): the distribution of input margins and the
// seconds in which too many inputs were late. Figures for people and
// tools; the time controller steers by the lead alone (lead_estimator.h).
//
// A margin is the server time an input's tick starts minus the server time
// its first copy arrived; negative for an input that came too late. Each
// report counts the inputs it covers and lists every margin of up to four
// (at 60 Hz inputs and 30 Hz snapshots a report covers two on average), so
// nearly every margin is known exactly. Of a larger report only the worst
// and the best are; the inputs between them are taken at the worst, so
// every quantile below is at or below the true one, never above. Inputs
// whose report was lost with its snapshot are not seen; inputs that never
// arrived have no margin (the server counts them missed).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "tickwire/core/time.h"
#include "tickwire/timesync/snapshot_timing.h"

namespace tickwire::timesync {

// Margins in bins of 0.5 ms from -250 ms to +750 ms, plus one bin below
// and one above for what falls outside: fine enough for millisecond
// figures, wide enough for any margin a client holds on purpose, and a
// fixed 8 KB once the first sample comes (nothing before).
class MarginHistogram {
 public:
  static constexpr std::int64_t kBinMicros = 500;
  static constexpr std::int64_t kMinMicros = -250'000;
  static constexpr std::int64_t kMaxMicros = 750'000;
  static constexpr std::size_t kBins = static_cast<std::size_t>((kMaxMicros - kMinMicros) / kBinMicros);

  void add(Duration margin, std::uint64_t count = 1);
  // Adds every sample of `other` (counts saturate).
  void merge(const MarginHistogram& other);
  // The samples added since `earlier`, a copy of this histogram taken
  // before; empty where `earlier` has more (not an earlier copy).
  MarginHistogram since(const MarginHistogram& earlier) const;

  std::uint64_t count() const { return count_; }
  std::uint64_t below_range() const { return bin(0); }
  std::uint64_t above_range() const { return bin(kBins + 1); }
  // The q-quantile (q in [0, 1]) by nearest rank: the smallest margin m
  // such that at least a share q of the samples are at or below it, as
  // the lower edge of its bin (so never above the true one); samples
  // outside the range give the range's edge. Empty without samples.
  // The low tail that "99% of inputs exceed" is quantile(0.01).
  std::optional<Duration> quantile(double q) const;

  bool operator==(const MarginHistogram&) const = default;

 private:
  std::uint64_t bin(std::size_t i) const { return bins_.empty() ? 0 : bins_[i]; }
  static std::size_t index_of(Duration margin);

  // Sums of kBlock bins each, so that a quantile skips to its block
  // instead of walking two thousand bins (the client reads two quantiles
  // per report).
  static constexpr std::size_t kBlock = 64;
  void recount();

  std::vector<std::uint32_t> bins_;    // kBins + 2 once used: [below, bins..., above]
  std::vector<std::uint64_t> blocks_;  // the bins' sums by block, sized with bins_
  std::uint64_t count_ = 0;
};

struct InputMarginConfig {
  // A second is a late burst when more than this share of the inputs sent
  // in it were reported late in it.
  double late_burst_fraction = 0.01;
};

class InputMarginMonitor {
 public:
  // Throws std::invalid_argument for a tick rate NetworkTime refuses or a
  // late burst fraction outside [0, 1].
  explicit InputMarginMonitor(std::uint32_t tick_rate, InputMarginConfig config = {});

  // A report's arrivals (a usable InputFeedback::Lead).
  void on_report(const InputFeedback::Lead& arrivals);
  // One of our inputs left at local time `at`.
  void on_input_sent(Time at);
  // The server's running totals said `count` more inputs were late,
  // learnt at local time `at`.
  void on_late(std::uint64_t count, Time at);
  // Closes the seconds that ended by `now` (the runtime calls it every
  // frame and snapshot, so a quiet second is closed too). The first call,
  // or the first input or late count, starts the first second.
  void advance(Time now);

  const MarginHistogram& histogram() const { return histogram_; }
  // Inputs whose margin the wire gave exactly; the rest of histogram()'s
  // samples are taken at their report's worst.
  std::uint64_t exact() const { return exact_; }
  std::uint64_t late() const { return late_; }
  // Whole seconds (of local time, from the first call) closed,
  // and of those the ones that were late bursts.
  std::uint64_t seconds() const { return seconds_; }
  std::uint64_t late_burst_seconds() const { return late_burst_seconds_; }
  // The last whole second closed: late inputs reported and inputs sent.
  std::uint32_t late_last_second() const { return late_last_second_; }
  std::uint32_t inputs_last_second() const { return inputs_last_second_; }

 private:
  void roll_to(Time at);

  std::uint32_t rate_;
  InputMarginConfig config_;
  MarginHistogram histogram_;
  std::uint64_t exact_ = 0;
  std::uint64_t late_ = 0;
  // The second being counted: its start, inputs sent and late reported.
  std::optional<Time> second_start_;
  std::uint64_t second_inputs_ = 0;
  std::uint64_t second_late_ = 0;
  std::uint64_t seconds_ = 0;
  std::uint64_t late_burst_seconds_ = 0;
  std::uint32_t late_last_second_ = 0;
  std::uint32_t inputs_last_second_ = 0;
};

}  // namespace tickwire::timesync
