// libFuzzer target: the bytes every packet starts with, and the bodies of
// the session packets (keep-alive, client report), as both runtimes decode
// them, fed into the packet channel that numbers, acknowledges and times
// the unreliable channel.
//
// The input is a run of datagrams laid end to end: header, body when the
// header names a session packet, zero padding to the byte. A header of
// another type ends the run (its body is another target's). Every decoded header
// goes into one PacketChannel that has sent packets of its own, so hostile
// acks, sequences and echoes meet real bookkeeping.
//
// Invariants: a decode fails with an error or yields in-range fields that
// re-encode to the very bits read (one encoding per value); the channel
// never acknowledges a sequence it did not send or one twice, counts every
// header once, and never reports a round trip that is negative or longer
// than the channel has existed.

#include <cstddef>
#include <cstdint>
#include <set>
#include <span>

#include "fuzz_check.h"
#include "tickwire/core/client_report.h"
#include "tickwire/core/keep_alive.h"
#include "tickwire/core/packet_channel.h"
#include "tickwire/core/packet_header.h"

namespace {

using namespace tickwire;

// The channel's own traffic between two received headers: one packet sent
// per header, 10 ms apart, starting well away from the time origin.
constexpr std::int64_t kStartMicros = 5'000'000;
constexpr std::int64_t kStepMicros = 10'000;

void check_prefix_alone(std::span<const std::uint8_t> bytes) {
  BitReader r(bytes);
  PacketPrefix prefix;
  if (!serialize(r, prefix)) {
    TICKWIRE_FUZZ_CHECK(r.error().has_value());
    return;
  }
  const auto type = static_cast<std::uint8_t>(prefix.type);
  TICKWIRE_FUZZ_CHECK(type >= 1 && type <= kMaxPacketType);
  const auto verdict = check_prefix(prefix);
  TICKWIRE_FUZZ_CHECK(verdict.ok() == (prefix.protocol_id == kProtocolId && prefix.version == kProtocolVersion));
}

// A session packet's body, which must also re-encode to the bits read.
template <class Body>
bool decode_body(BitReader& r, Body& body) {
  const std::size_t start = r.bits_read();
  if (!serialize(r, body)) {
    TICKWIRE_FUZZ_CHECK(r.error().has_value());
    return false;
  }
  BitWriter w(64);
  TICKWIRE_FUZZ_CHECK(serialize(w, body));
  TICKWIRE_FUZZ_CHECK(w.bits_written() == r.bits_read() - start);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  check_prefix_alone(bytes);

  PacketChannel channel;
  Time now = Time::from_micros(kStartMicros);
  const Time started = now;
  std::set<std::uint16_t> sent;
  std::set<std::uint16_t> acked;
  std::uint64_t headers = 0;

  BitReader r(bytes);
  while (r.bits_remaining() > 0) {
    const std::size_t start_bits = r.bits_read();
    PacketHeader header;
    if (!serialize(r, header)) {
      TICKWIRE_FUZZ_CHECK(r.error().has_value());
      break;
    }
    TICKWIRE_FUZZ_CHECK(!header.hold || header.hold->hold_us <= kMaxHoldMicros);

    // One encoding per header: writing it back gives the bits it came from.
    BitWriter w(64);
    TICKWIRE_FUZZ_CHECK(serialize(w, header));
    TICKWIRE_FUZZ_CHECK(w.bits_written() == r.bits_read() - start_bits);
    if (start_bits % 8 == 0) {
      TICKWIRE_FUZZ_CHECK(fuzz::same_bits(bytes.subspan(start_bits / 8), w.data(), w.bits_written()));
    }

    const PacketHeader mine = channel.next_header(PacketType::kKeepAlive, now);
    sent.insert(mine.sequence.value());
    now += Duration::micros(kStepMicros);
    (void)channel.receive(header, now);
    ++headers;
    for (Sequence s : channel.take_acked()) {
      TICKWIRE_FUZZ_CHECK(sent.count(s.value()) == 1);
      TICKWIRE_FUZZ_CHECK(acked.insert(s.value()).second);
    }
    if (auto sample = channel.take_rtt_sample()) {
      TICKWIRE_FUZZ_CHECK(sample->rtt >= Duration::zero());
      TICKWIRE_FUZZ_CHECK(sample->rtt <= now - started);
    }
    const PacketChannelStats& stats = channel.stats();
    TICKWIRE_FUZZ_CHECK(stats.received + stats.duplicates + stats.stale == headers);
    TICKWIRE_FUZZ_CHECK(stats.acked == acked.size());

    if (!check_prefix(header.prefix).ok()) break;
    if (header.prefix.type == PacketType::kKeepAlive) {
      KeepAlive body;
      if (!decode_body(r, body)) break;
    } else if (header.prefix.type == PacketType::kReport) {
      ClientReport body;
      if (!decode_body(r, body)) break;
      TICKWIRE_FUZZ_CHECK(body.max_rollback_depth <= kMaxReportedRollbackDepth);
      TICKWIRE_FUZZ_CHECK(body.rtt_us <= kMaxReportedRttMicros);
    } else {
      break;
    }
    if (!r.align()) break;
  }
  return 0;
}
