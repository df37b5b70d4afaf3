// libFuzzer target: the whole client runtime playing the arena, connected
// to a server that welcomed it, fed a stream of transport events
// (datagrams from the server or from a stranger, connects, disconnects,
// time passing; format in runtime_fixture.h), then a few more ticks.
//
// Catches a crash, an exception, undefined behaviour or a leak anywhere a
// server's bytes reach: packet header and channel, the snapshot's time
// block, the time system and its provider, the snapshot receiver,
// prediction with rollback and replay, interpolation and drawing.
// Invariants: everything the client sends decodes, and its timelines stay
// sane (partial tick in [0, 1), interpolation time never negative).

#include <cstddef>
#include <cstdint>
#include <span>

#include "runtime_fixture.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tickwire::fuzz::ClientFixture f;
  tickwire::fuzz::RecordReader records(std::span<const std::uint8_t>(data, size));
  while (auto r = records.next()) f.apply(*r);
  f.finish();
  return 0;
}
