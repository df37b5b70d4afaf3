#pragma once
// The keep-alive packet body: sent on the unreliable channel whenever a
// side has had nothing else to send for a while, so that timestamps keep
// flowing and silence means a dead peer. The server's copy carries its
// current tick. Wire format: docs/wire-format.md.

#include <optional>

#include "tickwire/core/bit_stream.h"
#include "tickwire/core/tick.h"

namespace tickwire {

struct KeepAlive {
  std::optional<Tick> server_tick;
};

template <class Stream>
bool serialize(Stream& s, KeepAlive& k) {
  bool has_tick = k.server_tick.has_value();
  std::uint32_t tick = has_tick ? k.server_tick->value() : 0;
  if (!s.boolean(has_tick)) return false;
  if (has_tick && !s.bits(tick, 32)) return false;
  if constexpr (Stream::kReading) {
    if (has_tick) k.server_tick = Tick(tick);
  }
  return true;
}

}  // namespace tickwire
