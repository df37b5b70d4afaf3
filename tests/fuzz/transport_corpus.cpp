// Writes the seed corpora of the two transport targets, in the record
// formats of transport_records.h:
//
//   address_validation: complete exchanges between the target's client and
//     server, and datagrams from other sources taking each way through the
//     validator (limits, host load, tokens, budget, stale cookies), and
//     answers to the client from the right and wrong senders.
//   enet_receive: challenge datagrams and ENet CONNECTs to both servers, and
//     a whole ENet session with the open server, built by hand from ENet
//     1.3's protocol (the CONNECT laid out as tools/spoof/datagrams.cpp
//     lays it out): a fresh host puts its first peer in slot 0 with session
//     0, so the acknowledgement of its VERIFY_CONNECT and later commands
//     can be written in advance.
//
//   transport_corpus DIR      writes DIR/TARGET/seed-N

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "address_validation_setup.h"
#include "connect_token_fixture.h"
#include "tickwire/transport/connect_challenge.h"
#include "tickwire/transport/connect_token.h"
#include "transport_records.h"

namespace {

using namespace tickwire;
using namespace tickwire::fuzz;
namespace challenge = transport::challenge;
using Bytes = std::vector<std::uint8_t>;

void write(const std::filesystem::path& root, const std::string& target, int& n, const Bytes& bytes) {
  if (bytes.empty() || bytes.size() > 1200) {
    std::fprintf(stderr, "transport_corpus: %s seed of %zu bytes skipped\n", target.c_str(), bytes.size());
    return;
  }
  std::filesystem::create_directories(root / target);
  std::ofstream out(root / target / ("seed-" + std::to_string(n++)), std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// ---- address_validation ----

// Step indices of the target's clock (kSteps there).
constexpr std::uint8_t kNoTime = 0;
constexpr std::uint8_t k250ms = 2;
constexpr std::uint8_t k1s = 3;
constexpr std::uint8_t k5s = 5;
constexpr std::uint8_t k8s = 6;
constexpr std::uint8_t k20s = 7;
// Load bytes: bits 0-2 peers from the host, 3-4 the per-host cap, 5-7 free slots.
constexpr std::uint8_t kNoLoad = 0;
constexpr std::uint8_t kNoFreeSlot = 1U << 5;
constexpr std::uint8_t kHostAtCapOfOne = 1U | (1U << 3);

// Written over by the target with what the server or client really holds.
constexpr std::uint64_t kSpliced = 0;

// Header bits of the target (address_validation_setup.h).
constexpr std::uint8_t kTokens = kHeaderTokens;
constexpr std::uint8_t kAllowPlaintext = kHeaderAllowPlaintext;
constexpr std::uint8_t kPlaintext = kHeaderPlaintext;
constexpr std::uint8_t kPinRight = kHeaderPinRight;
constexpr std::uint8_t kPinWrong = kHeaderPinWrong;
constexpr std::uint8_t kServerWithoutAes = kHeaderServerWithoutAes;
constexpr std::uint8_t kClientWithoutAes = kHeaderClientWithoutAes;

// A client key exchange key for HELLOs of other sources: any 32 bytes but
// the few of small order give the server a shared secret.
challenge::PublicKey some_client_key(std::uint8_t salt) {
  challenge::PublicKey key{};
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(7U * i + salt + 1U);
  return key;
}

class Stream {
 public:
  explicit Stream(std::uint8_t header) { bytes_.push_back(header); }

  Stream& to_server(std::uint8_t source, const Bytes& d, bool splice = false, std::uint8_t step = kNoTime,
                    std::uint8_t load = kNoLoad) {
    append_challenge_record(bytes_, ChallengeAction::kToServer, source, step, splice, d, load);
    return *this;
  }
  Stream& to_client(std::uint8_t peer, const Bytes& d, bool splice = true, std::uint8_t step = kNoTime) {
    append_challenge_record(bytes_, ChallengeAction::kToClient, peer, step, splice, d);
    return *this;
  }
  Stream& pump(std::uint8_t as = 0, std::uint8_t step = kNoTime) {
    append_challenge_record(bytes_, ChallengeAction::kPump, as, step, false);
    return *this;
  }
  Stream& connected(std::uint8_t source, std::uint8_t step = kNoTime) {
    append_challenge_record(bytes_, ChallengeAction::kPump, source, step, true);
    return *this;
  }
  Stream& tick(std::uint8_t step) {
    append_challenge_record(bytes_, ChallengeAction::kClient, 0, step, false);
    return *this;
  }
  Stream& start() {
    append_challenge_record(bytes_, ChallengeAction::kClient, 0, kNoTime, true);
    return *this;
  }
  // HELLO, then a RESPONSE carrying the cookie it got.
  Stream& validate(std::uint8_t source, const Bytes& token = {}, std::uint8_t load = kNoLoad) {
    to_server(source, challenge::encode(challenge::Hello{source + 100U, 0, some_client_key(source)}));
    return to_server(source, response(token), true, kNoTime, load);
  }
  const Bytes& bytes() const { return bytes_; }

  static Bytes response(const Bytes& token = {}) {
    return challenge::encode(challenge::Response{kSpliced, challenge::Cookie{}, 0, {}, token});
  }

 private:
  Bytes bytes_;
};

Bytes token(std::int64_t expires_in, std::uint64_t client_id) {
  transport::ConnectToken t;
  t.created_unix_seconds = kTokenFuzzNow - 60;
  t.expires_unix_seconds = kTokenFuzzNow + expires_in;
  t.servers = {token_fuzz_server()};
  t.client_id = client_id;
  t.session_key = token_fuzz_session_key();
  t.user_data = {'f', 'z'};
  t.session_key = token_fuzz_key();
  t.session_key.bytes[1] ^= 0xFF;
  auto minted = transport::mint_connect_token(t, token_fuzz_key());
  return minted.ok() ? minted.value() : Bytes{};
}

std::vector<Bytes> address_validation_seeds() {
  std::vector<Bytes> seeds;
  const auto add = [&](const Stream& s) { seeds.push_back(s.bytes()); };
  const Bytes accepted = challenge::encode(challenge::Accepted{kSpliced});
  const Bytes challenged = challenge::encode(challenge::ChallengeMsg{kSpliced, challenge::Cookie{}, {}});
  const Bytes accepted_plaintext =
      challenge::encode(challenge::Accepted{kSpliced, 5, challenge::kFlagPlaintext, {}, {}});
  const Bytes accepted_aes = challenge::encode(challenge::Accepted{kSpliced, 5, challenge::kFlagAes256Gcm, {}, {}});

  // The whole exchange, without and with tokens, then ENet's connect.
  add(Stream(false).pump().pump().connected(0));
  add(Stream(true).pump().pump().connected(0));
  // Lost answers: the client resends, and a RESPONSE resent after its
  // ACCEPTED is accepted again.
  add(Stream(false).tick(k250ms).pump().tick(k250ms).pump().pump(0, k250ms).pump());
  // Validated from the client's address but replayed from another.
  add(Stream(false).pump().pump(1).pump(3).pump(0));
  // Every source at once: the per-host cap, then the cap in all; an
  // admission used up or run out makes room.
  add(Stream(false).validate(0).validate(1).validate(2).validate(3).connected(0).validate(2).to_server(
      2, Stream::response(), true, k5s));
  // Host load: no free slot, then the per-host peer cap.
  add(Stream(false).validate(1, {}, kNoFreeSlot).validate(2, {}, kHostAtCapOfOne).validate(3));
  // A cookie goes stale across two buckets.
  add(Stream(false)
          .to_server(1, challenge::encode(challenge::Hello{5, 0, some_client_key(1)}))
          .to_server(1, Stream::response(), true, k8s)
          .to_server(1, Stream::response(), true, k8s));
  // The HELLO budget, a HELLO of another version and malformed ones.
  {
    Stream s(false);
    for (std::uint8_t i = 0; i < 6; ++i)
      s.to_server(static_cast<std::uint8_t>(i % 4), challenge::encode(challenge::Hello{i}));
    s.to_server(1, challenge::encode(challenge::ForeignHello{9, 1}), false, k1s);
    Bytes short_hello = challenge::encode(challenge::Hello{3});
    short_hello.resize(40);
    Bytes dirty_hello = challenge::encode(challenge::Hello{3});
    dirty_hello.back() = 1;
    s.to_server(2, short_hello).to_server(2, dirty_hello).to_server(3, challenged).to_server(3, accepted);
    s.to_server(3, Bytes{0x8F, 0xFF, 0x00, 0x00, 0x82, 0xFF, 0x00, 0x01});  // an ENet CONNECT's start
    add(s);
  }
  // Tokens: a good one, reused from another address, missing, forged,
  // and one that expires while the clock runs.
  {
    const Bytes good = token(3600, 11);
    Bytes forged = good;
    if (!forged.empty()) forged[forged.size() / 2] ^= 1U;
    add(Stream(true).validate(1, good).validate(3, good).connected(1));
    add(Stream(true).validate(2).validate(2, forged));
    const Bytes brief = token(30, 12);
    add(Stream(true).validate(1, brief).connected(1, k20s).connected(1, k20s).validate(1, brief));
  }
  // The client: answers forged with its nonce, from its server and from
  // others; an ACCEPTED before any CHALLENGE; a DENIED; a timeout.
  add(Stream(false)
          .to_client(0, accepted)
          .to_client(1, challenged)
          .to_client(2, challenged)
          .to_client(0, challenged)
          .to_client(3, accepted)
          .to_client(0, accepted));
  add(Stream(false).to_client(0, challenged).to_client(0, challenge::encode(challenge::Denied{kSpliced, {}})));
  add(Stream(false).to_client(
      0, challenge::encode(challenge::Denied{kSpliced, transport::DisconnectReason::kVersionMismatch})));
  add(Stream(false).start().tick(k5s).tick(k5s).start().pump().tick(k20s).pump());
  add(Stream(false).pump().tick(k8s).pump().pump());  // the cookie ages: a fresh HELLO
  // Handshake v2: plaintext allowed and refused, pinned keys right and
  // wrong, with and without tokens; a forged plaintext ACCEPTED.
  add(Stream(kAllowPlaintext | kPlaintext).pump().pump().connected(0));
  add(Stream(kPlaintext).pump().pump());
  add(Stream(kAllowPlaintext).pump().pump().connected(0));
  add(Stream(kPinRight).pump().pump().connected(0));
  add(Stream(kPinWrong).pump().pump());
  add(Stream(kTokens | kPinRight).pump().pump().pump(0, k250ms).connected(0));
  add(Stream(kTokens | kAllowPlaintext | kPlaintext | kPinRight).pump().pump().connected(0));
  add(Stream(kAllowPlaintext | kPlaintext).to_client(0, challenged).to_client(0, accepted_plaintext));
  add(Stream(kPinRight).to_client(0, challenged).to_client(0, accepted_plaintext).to_client(0, accepted));
  // A RESPONSE resent after its ACCEPTED, then a new round from the same
  // address with a fresh cookie.
  add(Stream(kPinRight).pump().tick(k250ms).pump().pump().tick(k8s).pump().pump());
  // The cipher: one end without AES-256-GCM, and a forged ACCEPTED choosing
  // it for a client that did not offer it.
  add(Stream(kServerWithoutAes | kPinRight).pump().pump().connected(0));
  add(Stream(kClientWithoutAes | kPinRight).pump().pump().connected(0));
  add(Stream(kClientWithoutAes).to_client(0, challenged).to_client(0, accepted_aes));
  return seeds;
}

// ---- enet_receive ----

// ENet 1.3's protocol (enet/protocol.h), big-endian on the wire.
constexpr std::uint16_t kNoPeer = 0x0FFF;
constexpr std::uint16_t kSentTime = 0x8000;
constexpr std::uint8_t kAck = 0x80;
constexpr std::uint8_t kUnsequencedFlag = 0x40;
constexpr std::uint8_t kNoChannel = 0xFF;
enum Command : std::uint8_t {
  kAcknowledge = 1,
  kConnect = 2,
  kDisconnect = 4,
  kPing = 5,
  kSendReliable = 6,
  kSendUnreliable = 7,
  kSendFragment = 8,
  kSendUnsequenced = 9,
  kBandwidthLimit = 10,
  kThrottleConfigure = 11,
  kSendUnreliableFragment = 12,
};

void u8(Bytes& out, std::uint32_t v) { out.push_back(static_cast<std::uint8_t>(v)); }
void u16(Bytes& out, std::uint32_t v) {
  u8(out, v >> 8);
  u8(out, v);
}
void u32(Bytes& out, std::uint32_t v) {
  u16(out, v >> 16);
  u16(out, v & 0xFFFFU);
}

// A datagram's protocol header: the peer id the receiver gave us (session
// 0, as a fresh host's first peer has) and a sent time.
Bytes datagram(std::uint16_t peer = 0) {
  Bytes out;
  u16(out, peer | kSentTime);
  u16(out, 0x0100);
  return out;
}

void command(Bytes& out, std::uint8_t cmd, std::uint8_t channel, std::uint16_t sequence) {
  u8(out, cmd);
  u8(out, channel);
  u16(out, sequence);
}

Bytes connect(std::uint32_t connect_id, std::uint32_t channels = 2, std::uint32_t mtu = 1392) {
  Bytes out = datagram(kNoPeer);
  command(out, kConnect | kAck, kNoChannel, 1);
  u16(out, 0);  // our peer id, which the server's datagrams will carry
  u8(out, 0xFF);
  u8(out, 0xFF);  // no session ids yet
  u32(out, mtu);
  u32(out, 65536);
  u32(out, channels);
  u32(out, 0);
  u32(out, 0);
  u32(out, 5000);
  u32(out, 2);
  u32(out, 2);
  u32(out, connect_id);
  u32(out, 0);
  return out;
}

// Acknowledges the server's VERIFY_CONNECT (its first reliable command);
// a sent time of 0 is never in the server's future.
Bytes ack_verify() {
  Bytes out = datagram();
  command(out, kAcknowledge, kNoChannel, 0);
  u16(out, 1);
  u16(out, 0);
  return out;
}

Bytes payload(std::size_t n, std::uint8_t seed) {
  Bytes out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(seed + i);
  return out;
}

void reliable(Bytes& out, std::uint8_t channel, std::uint16_t sequence, const Bytes& data) {
  command(out, kSendReliable | kAck, channel, sequence);
  u16(out, static_cast<std::uint32_t>(data.size()));
  out.insert(out.end(), data.begin(), data.end());
}

void unsequenced(Bytes& out, std::uint8_t channel, std::uint16_t group, const Bytes& data) {
  command(out, kSendUnsequenced | kUnsequencedFlag, channel, 0);
  u16(out, group);
  u16(out, static_cast<std::uint32_t>(data.size()));
  out.insert(out.end(), data.begin(), data.end());
}

void unreliable(Bytes& out, std::uint8_t channel, std::uint16_t sequence, const Bytes& data) {
  command(out, kSendUnreliable, channel, 0);
  u16(out, sequence);
  u16(out, static_cast<std::uint32_t>(data.size()));
  out.insert(out.end(), data.begin(), data.end());
}

// One fragment of a message of `total` bytes split in `count`.
void fragment(Bytes& out, std::uint8_t cmd, std::uint8_t channel, std::uint16_t sequence, std::uint16_t start,
              std::uint32_t count, std::uint32_t number, std::uint32_t total, std::uint32_t offset, const Bytes& data) {
  command(out, cmd, channel, sequence);
  u16(out, start);
  u16(out, static_cast<std::uint32_t>(data.size()));
  u32(out, count);
  u32(out, number);
  u32(out, total);
  u32(out, offset);
  out.insert(out.end(), data.begin(), data.end());
}

Bytes simple(std::uint8_t cmd, std::uint16_t sequence, std::initializer_list<std::uint32_t> words = {}) {
  Bytes out = datagram();
  command(out, cmd | kAck, kNoChannel, sequence);
  for (const std::uint32_t w : words) u32(out, w);
  return out;
}

class EnetStream {
 public:
  EnetStream& guarded(const Bytes& d) {
    append_enet_record(bytes_, false, d);
    return *this;
  }
  EnetStream& open(const Bytes& d) {
    append_enet_record(bytes_, true, d);
    return *this;
  }
  const Bytes& bytes() const { return bytes_; }

 private:
  Bytes bytes_;
};

std::vector<Bytes> enet_receive_seeds() {
  std::vector<Bytes> seeds;
  const auto add = [&](const EnetStream& s) { seeds.push_back(s.bytes()); };
  const Bytes hello = challenge::encode(challenge::Hello{42});
  const Bytes response = challenge::encode(challenge::Response{42, challenge::Cookie{}, 0, {}, {1, 2, 3}});

  // Address validation in front of ENet: answered, ignored, dropped.
  add(EnetStream()
          .guarded(hello)
          .guarded(response)
          .guarded(challenge::encode(challenge::ForeignHello{7, 1}))
          .guarded(connect(1))
          .open(hello));
  // ENet's handshake with the open server, then data on both channels, a
  // ping and a goodbye.
  {
    Bytes data = datagram();
    reliable(data, 0, 1, payload(40, 1));
    unsequenced(data, 1, 1, payload(24, 2));
    add(EnetStream()
            .open(connect(7))
            .open(ack_verify())
            .open(data)
            .open(simple(kPing, 2))
            .open(simple(kDisconnect, 3, {1})));
  }
  // A message in fragments and unreliable data in fragments, as an honest
  // sender cuts them at the smallest MTU (the transport drops any other
  // geometry), and bandwidth and throttle settings.
  {
    constexpr std::uint32_t kMtu = 576;
    constexpr std::uint32_t kPiece = kMtu - 4 - 24;  // header and fragment command
    const Bytes whole = payload(700, 3);
    Bytes first = datagram();
    fragment(first, kSendFragment | kAck, 0, 1, 1, 2, 0, 700, 0, Bytes(whole.begin(), whole.begin() + kPiece));
    Bytes second = datagram();
    fragment(second, kSendFragment | kAck, 0, 2, 1, 2, 1, 700, kPiece, Bytes(whole.begin() + kPiece, whole.end()));
    add(EnetStream()
            .open(connect(8, 2, kMtu))
            .open(ack_verify())
            .open(second)
            .open(first)
            .open(simple(kBandwidthLimit, 2, {100000, 100000}))
            .open(simple(kThrottleConfigure, 3, {1000, 4, 4})));
    const Bytes loose_whole = payload(560, 4);
    Bytes loose = datagram();
    unreliable(loose, 1, 1, payload(16, 4));
    fragment(loose, kSendUnreliableFragment, 1, 0, 2, 2, 0, 560, 0,
             Bytes(loose_whole.begin(), loose_whole.begin() + kPiece));
    Bytes rest = datagram();
    fragment(rest, kSendUnreliableFragment, 1, 0, 2, 2, 1, 560, kPiece,
             Bytes(loose_whole.begin() + kPiece, loose_whole.end()));
    add(EnetStream().open(connect(9, 2, kMtu)).open(ack_verify()).open(loose).open(rest));
    // A fragment no honest sender cuts: the peer is closed.
    Bytes odd = datagram();
    fragment(odd, kSendFragment | kAck, 0, 1, 1, 2, 0, 40, 0, payload(20, 5));
    add(EnetStream().open(connect(10)).open(ack_verify()).open(odd));
  }
  // Session datagrams (docs/wire-format.md): ENet's peer header with the
  // "compressed" flag alone, then the payload. One on the peer's slot and
  // session, one of another session, one naming no slot. (One over the
  // unreliable limit would not fit the fuzzer's 1200-byte inputs.)
  {
    const auto session = [](std::uint16_t slot, std::uint8_t id, const Bytes& data) {
      Bytes out;
      u16(out, 0x4000U | (std::uint32_t{id} << 12) | slot);
      out.insert(out.end(), data.begin(), data.end());
      return out;
    };
    add(EnetStream()
            .open(session(0, 0, payload(24, 8)))
            .open(connect(11))
            .open(ack_verify())
            .open(session(0, 0, payload(24, 9)))
            .open(session(0, 1, payload(24, 10)))
            .open(session(kNoPeer, 0, payload(24, 11)))
            .guarded(session(0, 0, payload(24, 12))));
  }
  // Data the transport refuses: reliable on the unreliable channel.
  {
    Bytes wrong = datagram();
    reliable(wrong, 1, 1, payload(8, 6));
    add(EnetStream().open(connect(9)).open(ack_verify()).open(wrong));
  }
  // A peer asking for one channel, then more connects than slots.
  {
    EnetStream s;
    s.open(connect(10, 1)).open(ack_verify());
    for (std::uint32_t id = 20; id < 26; ++id) s.open(connect(id));
    s.guarded(connect(30));
    add(s);
  }
  // Garbage, and the challenge magic on a datagram of the wrong size.
  add(EnetStream()
          .guarded(payload(33, 7))
          .open(payload(33, 7))
          .guarded(Bytes{0xC7, 0x54, 0x57})
          .open(Bytes{0xC7, 0x54, 0x57, 0x01, 0x01})
          .open(Bytes{})
          .open(Bytes{0x8F}));
  return seeds;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: transport_corpus DIR\n");
    return 2;
  }
  const std::filesystem::path root(argv[1]);
  int n = 0;
  for (const Bytes& seed : address_validation_seeds()) write(root, "address_validation", n, seed);
  std::printf("%-20s %d seeds\n", "address_validation", n);
  n = 0;
  for (const Bytes& seed : enet_receive_seeds()) write(root, "enet_receive", n, seed);
  std::printf("%-20s %d seeds\n", "enet_receive", n);
  return 0;
}
