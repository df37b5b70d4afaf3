// libFuzzer target: the handshake messages as their receivers decode them.
// The same bytes are read as the server reads a Hello and as the client
// reads a Welcome (prefix, protocol check, type, body, nothing after).
// Connect tokens have a target of their own (connect_token_fuzz.cpp).
//
// Invariants: an accepted Hello has a name within kMaxClientNameLength; an
// accepted Welcome has rates in [1, kMaxWireTickRate] with the send rate
// dividing the tick rate; and an accepted message re-encodes to exactly the
// input (the reader allows only zero padding after it), so no two inputs
// are accepted as the same message.

#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_check.h"
#include "tickwire/core/handshake.h"
#include "tickwire/core/packet_header.h"

namespace {

using namespace tickwire;

constexpr std::size_t kMaxMessage = 1024;  // the server's bound on a reliable message

// Reads a prefix of `type` and a body, as the runtimes do; true when the
// whole input was that message.
template <class Body>
bool decode_message(std::span<const std::uint8_t> bytes, PacketType type, PacketPrefix& prefix, Body& body) {
  BitReader r(bytes);
  if (!serialize(r, prefix) || !check_prefix(prefix).ok() || prefix.type != type) return false;
  if (!serialize(r, body)) {
    TICKWIRE_FUZZ_CHECK(r.error().has_value());
    return false;
  }
  return r.finish();
}

template <class Body>
void check_reencodes(std::span<const std::uint8_t> bytes, PacketPrefix prefix, Body body) {
  BitWriter w(kMaxMessage + 16);
  TICKWIRE_FUZZ_CHECK(serialize(w, prefix) && serialize(w, body));
  const auto out = w.data();
  TICKWIRE_FUZZ_CHECK(out.size() == bytes.size());
  for (std::size_t i = 0; i < out.size(); ++i) TICKWIRE_FUZZ_CHECK(out[i] == bytes[i]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  if (bytes.size() > kMaxMessage) return 0;  // refused before decoding

  PacketPrefix prefix;
  Hello hello;
  if (decode_message(bytes, PacketType::kHello, prefix, hello)) {
    TICKWIRE_FUZZ_CHECK(hello.client_name.size() <= kMaxClientNameLength);
    check_reencodes(bytes, prefix, hello);
  }

  Welcome welcome;
  if (decode_message(bytes, PacketType::kWelcome, prefix, welcome)) {
    TICKWIRE_FUZZ_CHECK(welcome.tick_rate >= 1 && welcome.tick_rate <= kMaxWireTickRate);
    TICKWIRE_FUZZ_CHECK(welcome.send_rate >= 1 && welcome.send_rate <= welcome.tick_rate);
    TICKWIRE_FUZZ_CHECK(welcome.tick_rate % welcome.send_rate == 0);
    check_reencodes(bytes, prefix, welcome);
  }
  return 0;
}
