// libFuzzer target: the body of an input packet (client -> server), decoded
// with the arena's input schema as the server decodes it, and every decoded
// packet handed to the server's InputQueue, which then consumes ticks as
// the server's loop would.
//
// Input: a bit stream of arrivals, each 8 bits `step` followed by a packet
// body and zero padding to the byte. Before the first arrival the server's
// next tick is placed `step - 128` ticks after that packet's first tick, so
// inputs land in and around the window; before each later one the server
// runs `step` ticks, consuming one input per tick.
//
// Invariants: a decoded packet holds 1 to 64 inputs whose ticks stay inside
// Tick's range, every input is a valid arena input (finite, in range), its
// view claims are none or one per input, each a view time at or after tick
// zero, and encoding it again decodes to the same packet; the queue gives every input
// one verdict, never holds more than its window, and hands out one valid
// input per consumed tick, never one it refused.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include "fuzz_check.h"
#include "tickwire/arena/arena.h"
#include "tickwire/prediction/input_packet.h"
#include "tickwire/prediction/input_queue.h"

namespace {

using namespace tickwire;
using prediction::InputPacket;
using prediction::InputQueue;

// The server's own clock never nears the end of Tick (828 days at 60 Hz);
// only the client's claims do.
constexpr std::int64_t kLastServerTick = std::numeric_limits<Tick::Rep>::max() - 1024;

std::uint64_t verdicts(const prediction::InputQueueStats& s) {
  return s.accepted + s.duplicates + s.late + s.stale + s.too_far_ahead + s.invalid;
}

void check_packet(const InputPacket& packet, const arena::Schema& game) {
  TICKWIRE_FUZZ_CHECK(!packet.inputs.empty() && packet.inputs.size() <= prediction::kMaxInputsPerPacket);
  TICKWIRE_FUZZ_CHECK(prediction::detail::tick_in_range(static_cast<std::int64_t>(packet.first_tick.value()) +
                                                        static_cast<std::int64_t>(packet.inputs.size()) - 1));
  for (const snapshot::Record& input : packet.inputs) {
    TICKWIRE_FUZZ_CHECK(input.type() == game.input_type);
    TICKWIRE_FUZZ_CHECK(arena::valid_input(arena::from_record(input)));
  }
  TICKWIRE_FUZZ_CHECK(packet.view_claims.empty() || packet.view_claims.size() == packet.inputs.size());
  for (std::size_t i = 0; i < packet.view_claims.size(); ++i) {
    TICKWIRE_FUZZ_CHECK(packet.view_claims[i].offset <= kMaxViewOffset);
    TICKWIRE_FUZZ_CHECK(
        claimed_view_time(packet.first_tick + static_cast<std::int64_t>(i), packet.view_claims[i], 60).has_value());
  }
  auto bytes = prediction::encode_input_packet(packet, game.schema, game.input_type, 4096);
  TICKWIRE_FUZZ_CHECK(bytes.ok());
  auto again = prediction::decode_input_packet(bytes.value(), game.schema, game.input_type);
  TICKWIRE_FUZZ_CHECK(again.ok());
  TICKWIRE_FUZZ_CHECK(again.value().first_tick == packet.first_tick);
  TICKWIRE_FUZZ_CHECK(again.value().snapshot_ack == packet.snapshot_ack);
  TICKWIRE_FUZZ_CHECK(again.value().inputs == packet.inputs);
  TICKWIRE_FUZZ_CHECK(again.value().view_claims == packet.view_claims);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const arena::Schema& game = arena::schema();
  const std::span<const std::uint8_t> bytes(data, size);
  InputQueue queue(game.schema, game.input_type);
  std::optional<std::int64_t> server_tick;  // the last tick the server consumed
  std::uint64_t accepted = 0;
  std::uint64_t own_inputs = 0;  // consumed ticks that got the client's input

  BitReader r(bytes);
  while (r.bits_remaining() > 0) {
    std::uint32_t step = 0;
    if (!r.bits(step, 8)) break;
    InputPacket packet;
    if (!prediction::serialize_input_packet(r, packet, game.schema, game.input_type)) {
      TICKWIRE_FUZZ_CHECK(r.error().has_value());
      break;
    }
    check_packet(packet, game);

    if (!server_tick) {
      const std::int64_t next = static_cast<std::int64_t>(packet.first_tick.value()) + step - 128;
      server_tick = std::clamp<std::int64_t>(next - 1, 0, kLastServerTick);
    } else {
      for (std::uint32_t i = 0; i < step && *server_tick < kLastServerTick; ++i) {
        ++*server_tick;
        const auto in = queue.consume(Tick(static_cast<Tick::Rep>(*server_tick)));
        TICKWIRE_FUZZ_CHECK(in.input != nullptr);
        TICKWIRE_FUZZ_CHECK(arena::valid_input(arena::from_record(*in.input)));
        if (!in.fallback) ++own_inputs;
      }
    }

    const auto before = verdicts(queue.stats());
    const Tick next(static_cast<Tick::Rep>(*server_tick + 1));
    accepted += queue.receive(packet, next);
    TICKWIRE_FUZZ_CHECK(verdicts(queue.stats()) == before + packet.inputs.size());
    TICKWIRE_FUZZ_CHECK(queue.stats().accepted == accepted);
    TICKWIRE_FUZZ_CHECK(queue.pending() <= queue.config().max_ticks_ahead + 1);
    TICKWIRE_FUZZ_CHECK(own_inputs <= accepted);
    if (!r.align()) break;
  }
  return 0;
}
