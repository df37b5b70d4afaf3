#include "progress.h"

#include <unistd.h>

namespace tickwire::bots {

std::string progress_line(const SeriesPoint& p, const ProgressState& s) {
  char line[256];
  std::snprintf(line, sizeof line,
                "%zu/%zu bots  rtt p50 %.1f p99 %.1f ms  lead %.1f ms  late %llu  mispred %.1f/min  "
                "in %.1f out %.1f kbps  %.0f s, %.0f s left",
                p.connected, s.bots, p.rtt_p50_ms, p.rtt_p99_ms, p.lead_ms,
                static_cast<unsigned long long>(s.late_inputs), p.mispredictions_per_min, p.kbps_in, p.kbps_out,
                s.elapsed_s, s.remaining_s);
  return line;
}

Progress::Progress(std::FILE* out, bool live, double plain_interval_s)
    : out_(out), live_(live), plain_interval_s_(plain_interval_s) {}

bool Progress::is_terminal(std::FILE* out) { return ::isatty(::fileno(out)) != 0; }

void Progress::update(const SeriesPoint& latest, const ProgressState& state) {
  const std::string line = progress_line(latest, state);
  if (live_) {
    // Pad over the tail of a longer previous line.
    const std::size_t pad = last_width_ > line.size() ? last_width_ - line.size() : 0;
    std::fprintf(out_, "\r%s%*s", line.c_str(), static_cast<int>(pad), "");
    last_width_ = line.size();
  } else {
    if (state.elapsed_s - last_plain_s_ < plain_interval_s_) return;
    last_plain_s_ = state.elapsed_s;
    std::fprintf(out_, "progress: %s\n", line.c_str());
  }
  std::fflush(out_);
}

void Progress::finish() {
  if (live_ && last_width_ > 0) std::fprintf(out_, "\n");
  last_width_ = 0;
  std::fflush(out_);
}

}  // namespace tickwire::bots
