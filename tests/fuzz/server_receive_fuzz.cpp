// libFuzzer target: the whole server runtime hosting the arena, with one
// client past the handshake, fed a stream of transport events (datagrams
// from that client or from another peer, connects, disconnects, time
// passing; format in runtime_fixture.h), then a few more ticks.
//
// Catches a crash, an exception, undefined behaviour or a leak anywhere a
// client's bytes reach: handshake, packet header and channel, input
// packets, the input queue, the arrival tracker, the game's simulate and
// the snapshot sender. Invariants: everything the server sends decodes,
// and it never holds more clients than its limit.

#include <cstddef>
#include <cstdint>
#include <span>

#include "runtime_fixture.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tickwire::fuzz::ServerFixture f;
  tickwire::fuzz::RecordReader records(std::span<const std::uint8_t>(data, size));
  while (auto r = records.next()) f.apply(*r);
  f.finish();
  return 0;
}
