#pragma once
// Progress while a run goes on: on a terminal, one line rewritten in place
// after every sample; otherwise (a log, a CI job) a plain line every few
// seconds, so logs stay readable.

#include <cstdint>
#include <cstdio>
#include <string>

#include "metrics.h"

namespace tickwire::bots {

struct ProgressState {
  std::size_t bots = 0;
  double elapsed_s = 0.0;
  double remaining_s = 0.0;
  std::uint64_t late_inputs = 0;  // so far, every bot
};

// "12/32 bots  rtt p50 45.1 p99 61.0 ms  lead 52.0 ms  late 3  mispred 4.1/min  in 25.0 out 9.1 kbps  10/30 s"
std::string progress_line(const SeriesPoint& latest, const ProgressState& state);

class Progress {
 public:
  // `out` is written to; `live`: a terminal, rewritten in place.
  Progress(std::FILE* out, bool live, double plain_interval_s = 5.0);
  // True when `out` is a terminal.
  static bool is_terminal(std::FILE* out);

  void update(const SeriesPoint& latest, const ProgressState& state);
  // Ends the live line so what follows starts on its own.
  void finish();

 private:
  std::FILE* out_;
  bool live_;
  double plain_interval_s_;
  double last_plain_s_ = -1e9;
  std::size_t last_width_ = 0;
};

}  // namespace tickwire::bots
