#include "tickwire/timesync/input_arrival_tracker.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tickwire::timesync {

namespace {

InputArrivalTrackerConfig checked(InputArrivalTrackerConfig c) {
  c.tick_rate = NetworkTime(c.tick_rate).tick_rate();
  if (c.window_ticks < 8 || c.window_ticks > static_cast<std::uint32_t>(kMaxFeedbackTickOffset)) {
    throw std::invalid_argument("InputArrivalTrackerConfig: window_ticks must be in [8, 4095]");
  }
  return c;
}

}  // namespace

InputArrivalTracker::InputArrivalTracker(InputArrivalTrackerConfig config)
    : config_(checked(config)), ticks_(2 * static_cast<std::size_t>(config_.window_ticks)), flags_(ticks_.size(), 0) {}

std::uint8_t& InputArrivalTracker::record(Tick tick) {
  const std::size_t i = static_cast<std::size_t>(tick.value()) % ticks_.size();
  if ((flags_[i] & kHeld) == 0 || ticks_[i] != tick) {
    ticks_[i] = tick;
    flags_[i] = kHeld;
  }
  return flags_[i];
}

void InputArrivalTracker::on_input(Tick tick, const NetworkTime& arrival) {
  if (arrival.tick_rate() != config_.tick_rate || arrival.is_negative()) return;
  const double margin_ticks = static_cast<double>(tick.value()) - arrival.ticks_f();
  // Also keeps the lead's tick within the wire's offset from any snapshot
  // sent around now.
  if (std::fabs(margin_ticks) > static_cast<double>(config_.window_ticks)) {
    ++stats_.out_of_window;
    return;
  }
  std::uint8_t& r = record(tick);
  if ((r & kArrived) != 0) {
    ++stats_.duplicates;
    return;
  }
  r |= kArrived;
  ++stats_.inputs;
  if ((r & kConsumed) != 0 && (r & kMissed) != 0) ++stats_.late;

  const double scaled = std::round(margin_ticks * kLeadUnitsPerTick);
  const auto units = static_cast<std::int32_t>(
      std::clamp(scaled, -static_cast<double>(kMaxLeadUnits), static_cast<double>(kMaxLeadUnits)));
  // The report carries the worst arrival since the previous one: when two
  // inputs arrive together after a loss, the one that needed the redundant
  // copy is the one the client must hear about. The count and the other
  // margins come beside it (every one up to kMaxListedInputs, the best
  // beyond), so the client knows the margin of nearly every input.
  if (!pending_) {
    pending_ = Pending{InputFeedback::Lead{tick, units}, {}, units, 0};
  } else {
    Pending& p = *pending_;
    if (p.lead.inputs < kMaxFeedbackInputs) ++p.lead.inputs;
    if (units < p.lead.units) {
      p.lead.input_tick = tick;
      p.lead.units = units;
    }
    p.best = std::max(p.best, units);
  }
  if (pending_->listed < pending_->margins.size()) pending_->margins[pending_->listed++] = units;
}

void InputArrivalTracker::on_tick_consumed(Tick tick, bool had_input) {
  std::uint8_t& r = record(tick);
  if ((r & kConsumed) != 0) return;
  r |= kConsumed;
  if (!had_input) {
    r |= kMissed;
    ++stats_.missed;
  }
}

InputFeedback InputArrivalTracker::make_report(Tick snapshot_tick) {
  InputFeedback f;
  if (pending_ && std::abs(pending_->lead.input_tick - snapshot_tick) <= kMaxFeedbackTickOffset) {
    const Pending& p = *pending_;
    InputFeedback::Lead lead = p.lead;
    if (lead.inputs > kMaxListedInputs) {
      lead.spreads[0] = p.best - lead.units;
    } else {
      // Every margin but (one instance of) the worst, above the worst.
      std::size_t n = 0;
      bool skipped_worst = false;
      for (std::size_t i = 0; i < p.listed; ++i) {
        if (!skipped_worst && p.margins[i] == lead.units) {
          skipped_worst = true;
          continue;
        }
        lead.spreads[n++] = p.margins[i] - lead.units;
      }
    }
    f.lead = lead;
  }
  pending_.reset();
  f.missed_total = static_cast<std::uint16_t>(stats_.missed & 0xFFFF);
  f.late_total = static_cast<std::uint16_t>(stats_.late & 0xFFFF);
  return f;
}

}  // namespace tickwire::timesync
