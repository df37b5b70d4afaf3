// libFuzzer target: the sealed datagrams every session datagram travels in
// (transport/src/sealed_channel.h), opened by a receiver that has already
// verified some real traffic.
//
// The first input byte picks the session's mode (bit 0: plaintext), its
// cipher (bit 1: AES-256-GCM, else ChaCha20-Poly1305; an AES input is
// skipped on a CPU without AES instructions) and how many real datagrams the
// receiver verifies first (bits 2..7); the rest is a run of datagrams, each
// a 2-byte little-endian length and its bytes, every one offered to the
// receiver.
//
// Invariants: open never reads or writes out of bounds; in an encrypted
// session a datagram that opens never opens again (the replay window; in a
// plaintext session the same bytes open again once the window has moved a
// whole 13-bit span on, as a new number, since no tag binds the full
// number: anyone can forge those anyway), and no fuzzed datagram opens
// unless it is the sender's own: byte for byte one it sealed in this run,
// or (the keys being fixed, the fuzzer learns real datagrams from other
// runs) one carrying the payload the sender seals at that packet number; an
// opened datagram's size is its length less the overhead; and after all of
// it the receiver still opens the sender's next real datagram with its
// bytes intact, unless the fuzzer offered that very datagram first (then it
// is a replay).

#include <sodium.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "sealed_channel.h"

namespace {

using namespace tickwire::transport;

SessionParams params(bool plaintext, SessionCipher cipher, bool receiver) {
  SessionParams p;
  p.connection_id = 0x5EA1ED01;
  p.plaintext = plaintext;
  p.cipher = cipher;
  p.keys.send.fill(receiver ? 0x22 : 0x11);
  p.keys.receive.fill(receiver ? 0x11 : 0x22);
  return p;
}

// Datagrams kept as strings, for the set's ordering.
std::string key_of(const std::vector<std::uint8_t>& d) { return {d.begin(), d.end()}; }

// The 13 packet-number bits a sealed datagram carries.
std::uint32_t truncated_number(std::span<const std::uint8_t> d) {
  return (static_cast<std::uint32_t>(d[0] & 0x1FU) << 8) | d[5];
}

// What the sender seals: {n, 1, 2, 3} as its n-th warm-up datagram (n < 64)
// and {9, 8, 7} last, every one a session payload.
bool senders_payload(const Opened& opened, std::span<const std::uint8_t> datagram,
                     std::span<const std::uint8_t> plain) {
  if (opened.kind != SealedKind::kSession) return false;
  const bool warm_up = plain.size() == 4 && plain[0] == datagram[5] && plain[1] == 1 && plain[2] == 2 && plain[3] == 3;
  const bool last = plain.size() == 3 && plain[0] == 9 && plain[1] == 8 && plain[2] == 7;
  return warm_up || last;
}

std::vector<std::uint8_t> seal(SealedChannel& sender, std::span<const std::uint8_t> payload) {
  std::vector<std::uint8_t> out(payload.size() + sender.overhead());
  out.resize(sender.seal(SealedKind::kSession, payload, out));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  TICKWIRE_FUZZ_CHECK(sodium_init() >= 0);
  const bool plaintext = (data[0] & 1U) != 0;
  const SessionCipher cipher = (data[0] & 2U) != 0 ? SessionCipher::kAes256Gcm : SessionCipher::kChaCha20Poly1305;
  const int warm_up = data[0] >> 2;
  if (cipher == SessionCipher::kAes256Gcm && !aes256gcm_available()) return 0;
  SealedChannel sender(params(plaintext, cipher, false));
  SealedChannel receiver(params(plaintext, cipher, true));
  std::set<std::string> sealed_by_sender;
  std::vector<std::uint8_t> out;
  for (int i = 0; i < warm_up; ++i) {
    const std::uint8_t payload[] = {static_cast<std::uint8_t>(i), 1, 2, 3};
    auto datagram = seal(sender, payload);
    sealed_by_sender.insert(key_of(datagram));
    out.assign(datagram.size(), 0);
    TICKWIRE_FUZZ_CHECK(receiver.open(datagram, out).status == OpenStatus::kOk);
  }
  std::set<std::string> opened;
  std::set<std::uint32_t> numbers_opened;  // of fuzzed datagrams
  std::size_t at = 1;
  while (at + 2 <= size) {
    const std::size_t length = std::min<std::size_t>(data[at] | (std::size_t{data[at + 1]} << 8), size - at - 2);
    const std::vector<std::uint8_t> datagram(data + at + 2, data + at + 2 + length);
    at += 2 + length;
    out.assign(datagram.size(), 0);
    const Opened result = receiver.open(datagram, out);
    if (result.status != OpenStatus::kOk) continue;
    TICKWIRE_FUZZ_CHECK(result.size + receiver.overhead() == datagram.size());
    if (!plaintext) {
      TICKWIRE_FUZZ_CHECK(sealed_by_sender.contains(key_of(datagram)) ||
                          senders_payload(result, datagram, std::span(out).first(result.size)));
    }
    TICKWIRE_FUZZ_CHECK(opened.insert(key_of(datagram)).second || plaintext);
    numbers_opened.insert(truncated_number(datagram));
  }
  const std::uint8_t last[] = {9, 8, 7};
  const auto real = seal(sender, last);
  out.assign(real.size(), 0);
  const Opened result = receiver.open(real, out);
  // A plaintext session has no keys: a fuzzed datagram can take the next
  // number first, as anyone could forge one.
  if (!plaintext && numbers_opened.contains(truncated_number(real))) {
    // The fuzzer offered the sender's datagram of that number (learned
    // from another run) first.
    TICKWIRE_FUZZ_CHECK(result.status == OpenStatus::kReplayed);
  } else if (!plaintext) {
    TICKWIRE_FUZZ_CHECK(result.status == OpenStatus::kOk && result.size == sizeof(last));
    TICKWIRE_FUZZ_CHECK(out[0] == 9 && out[1] == 8 && out[2] == 7);
  }
  return 0;
}
