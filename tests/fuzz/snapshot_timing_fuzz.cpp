// libFuzzer target: the time system's block of a snapshot (server tick and
// fraction, feedback on our inputs), decoded and then fed, with arrival
// times and round trips, into a client TimeSystem the way the client
// runtime does, under each of the time providers.
//
// Input: one byte choosing the provider, then a bit stream of arrivals,
// each a SnapshotTimeBlock as on the wire followed by 7 bits of
// milliseconds since the previous arrival (the client runs a frame every
// 16 ms of it), 1 bit "the header closed a round trip" and, if set, 10 bits
// of round trip in milliseconds.
//
// Invariants: a decoded block is in range (counts in 1..4095, every margin
// at or above the worst and within the lead's range) and re-encodes to the
// bits read;
// whatever the server claims, the time system never throws, never runs a
// tick twice or backwards, never runs more ticks per update than its cap
// and never shows a negative interpolation time.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "fuzz_check.h"
#include "tickwire/timesync/client_time_provider.h"
#include "tickwire/timesync/n4e_time_provider.h"
#include "tickwire/timesync/one_shot_sync_time_provider.h"
#include "tickwire/timesync/rfc_client_time_provider.h"
#include "tickwire/timesync/rtt_half_slack_time_provider.h"
#include "tickwire/timesync/snapshot_timing.h"
#include "tickwire/timesync/time_system.h"

namespace {

using namespace tickwire;
using namespace tickwire::timesync;

constexpr std::uint32_t kTickRate = 60;
constexpr std::uint32_t kMaxTicksPerUpdate = 8;
constexpr std::int64_t kFrameMillis = 16;

std::unique_ptr<TimeProvider> make_provider(std::uint8_t choice) {
  switch (choice % 7) {
    case 0: return std::make_unique<ClientTimeProvider>();
    case 1: {
      ClientTimeProviderConfig c;
      c.mode = ClientTimeMode::kHardResetOnly;
      return std::make_unique<ClientTimeProvider>(c);
    }
    case 2: return std::make_unique<RttHalfSlackTimeProvider>();
    case 3: return std::make_unique<OneShotSyncTimeProvider>();
    case 4: return std::make_unique<RfcClientTimeProvider>();
    case 5: return std::make_unique<N4eTimeProvider>();
    default: {
      // As the runtime makes it: the command age rebuilt from the margins.
      N4eTimeProviderConfig c;
      c.command_age_from_margins = true;
      return std::make_unique<N4eTimeProvider>(c);
    }
  }
}

void check_block(const SnapshotTimeBlock& block, std::span<const std::uint8_t> bytes, std::size_t start_bits,
                 std::size_t end_bits) {
  TICKWIRE_FUZZ_CHECK(block.timing.fraction_units >= 0 && block.timing.fraction_units < NetworkTime::kUnitsPerTick);
  if (block.feedback && block.feedback->lead) {
    const InputFeedback::Lead& lead = *block.feedback->lead;
    TICKWIRE_FUZZ_CHECK(lead.units >= -kMaxLeadUnits && lead.units <= kMaxLeadUnits);
    TICKWIRE_FUZZ_CHECK(lead.inputs >= 1 && lead.inputs <= kMaxFeedbackInputs);
    for (std::size_t i = 0; i < lead.spreads.size(); ++i) {
      const bool carried = i < lead.spread_count();
      TICKWIRE_FUZZ_CHECK(carried ? lead.spreads[i] >= 0 && lead.units + lead.spreads[i] <= kMaxLeadUnits
                                  : lead.spreads[i] == 0);
    }
    TICKWIRE_FUZZ_CHECK(lead.best_units() >= lead.units && lead.best_units() <= kMaxLeadUnits);
    const std::int64_t offset = lead.input_tick - block.timing.server_tick;
    TICKWIRE_FUZZ_CHECK(offset >= -kMaxFeedbackTickOffset && offset <= kMaxFeedbackTickOffset);
  }
  SnapshotTimeBlock copy = block;
  BitWriter w(64);
  TICKWIRE_FUZZ_CHECK(serialize(w, copy));
  TICKWIRE_FUZZ_CHECK(w.bits_written() == end_bits - start_bits);
  if (start_bits % 8 == 0) {
    TICKWIRE_FUZZ_CHECK(fuzz::same_bits(bytes.subspan(start_bits / 8), w.data(), w.bits_written()));
  }
}

struct Client {
  TimeSystem time;
  Time now = Time::from_micros(3'000'000);
  std::optional<Tick> last_tick;

  explicit Client(std::uint8_t choice) : time(TimeSystem::client(config(), make_provider(choice))) {}

  static TimeSystemConfig config() {
    TimeSystemConfig c;
    c.tick_rate = kTickRate;
    c.max_ticks_per_update = kMaxTicksPerUpdate;
    return c;
  }

  void frame(Duration step) {
    now += step;
    const UpdateResult result = time.update(now, [&](const TickContext& ctx) {
      TICKWIRE_FUZZ_CHECK(!last_tick || ctx.tick > *last_tick);
      TICKWIRE_FUZZ_CHECK(ctx.count <= kMaxTicksPerUpdate && ctx.index < ctx.count);
      // The context's own interpolation time is raw (negative early in a
      // match); what the game reads through the accessor never is.
      TICKWIRE_FUZZ_CHECK(!time.interpolation_time().is_negative());
      TICKWIRE_FUZZ_CHECK(time.predicted_time() == ctx.predicted);
      last_tick = ctx.tick;
    });
    TICKWIRE_FUZZ_CHECK(result.ticks <= kMaxTicksPerUpdate);
    TICKWIRE_FUZZ_CHECK(!time.interpolation_time().is_negative());
    if (result.ticks > 0) TICKWIRE_FUZZ_CHECK(time.last_tick() == last_tick);
  }

  // Frames across `gap`, the last one ending at the arrival.
  void wait(Duration gap) {
    while (gap > Duration::millis(kFrameMillis)) {
      frame(Duration::millis(kFrameMillis));
      gap -= Duration::millis(kFrameMillis);
    }
    frame(gap);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::uint8_t> bytes(data + 1, size - 1);
  Client client(data[0]);
  std::uint64_t arrivals = 0;

  BitReader r(bytes);
  while (r.bits_remaining() > 0) {
    const std::size_t start = r.bits_read();
    SnapshotTimeBlock block;
    if (!serialize(r, block)) {
      TICKWIRE_FUZZ_CHECK(r.error().has_value());
      break;
    }
    check_block(block, bytes, start, r.bits_read());
    std::uint32_t gap_ms = 0;
    bool has_rtt = false;
    std::uint32_t rtt_ms = 0;
    if (!r.bits(gap_ms, 7) || !r.boolean(has_rtt) || (has_rtt && !r.bits(rtt_ms, 10))) break;

    client.wait(Duration::millis(gap_ms));
    SnapshotReceipt receipt{client.now, block.timing, std::nullopt, block.feedback};
    if (has_rtt) receipt.rtt = Duration::millis(rtt_ms);
    client.time.on_snapshot(receipt);
    ++arrivals;
    const ClientMeasurements* m = client.time.measurements();
    TICKWIRE_FUZZ_CHECK(m != nullptr && m->stats().snapshots <= arrivals);
    if (m->rtt().has_sample()) TICKWIRE_FUZZ_CHECK(m->rtt().smoothed() >= Duration::zero());
    // Every margin the monitor took came from a report about a tick sent.
    TICKWIRE_FUZZ_CHECK(m->input_margins().exact() <= m->input_margins().histogram().count());
  }
  // A few frames after the last arrival: the provider acts on what it saw.
  for (int i = 0; i < 6; ++i) client.frame(Duration::millis(kFrameMillis));
  return 0;
}
