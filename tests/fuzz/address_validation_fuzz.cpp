// libFuzzer target: address validation (transport/connect_challenge.h,
// docs/wire-format.md "Address validation (before ENet)") with both ends
// driven by the input: one AddressValidator, the accepting side, and one
// ChallengeClient that has started an exchange with it. No ENet, no socket.
//
// The input is a header byte, then records (transport_records.h):
//   header   1 byte   bit 0: the server requires connect tokens (key, clock
//                     and address of connect_token_fixture.h); the client
//                     then presents a token minted under that key
//   control  1 byte   bits 0-1: what happens
//                       0 a datagram reaches the server from kSources[sel]
//                       1 a datagram reaches the client from kPeers[sel]
//                       2 flag clear: what the client has sent so far
//                         reaches the server as from kSources[sel], and the
//                         answers reach the client when sel is 0 (its own
//                         address); flag set: kSources[sel] completes its
//                         ENet connect, using its admission up
//                       3 flag clear: the client's tick; flag set: the
//                         client starts another exchange, if it has fewer
//                         than kMaxExchanges in flight
//                     bits 2-3: sel
//                     bits 4-6: time that passes first, kSteps[n]
//                     bit 7: the flag
//   load     1 byte   action 0 only: the HostLoad for this and later
//                     datagrams: bits 0-2 peers_from_host, bits 3-4
//                     max_peers_per_host {0 (none), 1, 2, 4}, bits 5-7
//                     free_slots {all, 0, 1, 2, 3, 4, 8, 256}
//   length   2 bytes  little endian, actions 0 and 1; clamped to what is left
//   bytes    length bytes
// With the flag, a datagram for action 0 gets the nonce and cookie of the
// last CHALLENGE its source was sent written over bytes 5..28, and one for
// action 1 the nonce of the client's newest exchange over bytes 5..12 (when
// long enough). Cookies hang on a secret and nonces on a random draw, so
// this is how mutated RESPONSEs get past the cookie check and mutated
// answers reach a live exchange; no invariant depends on the random values.
//
// Invariants: every answer is strictly smaller than the datagram it
// answers, decodes as a CHALLENGE (to a HELLO), ACCEPTED (to a RESPONSE)
// or DENIED (to a RESPONSE or a HELLO of another version) and echoes its
// nonce; unvalidated_bytes_out never exceeds unvalidated_bytes_in; pending
// never exceeds max_pending; a source is admitted only while an ACCEPTED
// sent to that exact endpoint, in answer to its RESPONSE, is younger than
// admission_lifetime, and `admitted` counts only such answers. The client
// sends only HELLOs and RESPONSEs of its own exchanges to its server, ends
// an exchange once, from a message of its server with that exchange's
// nonce or by timing out, and reports success only after a CHALLENGE and
// then an ACCEPTED from its server for that exchange.

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>
#include <variant>
#include <vector>

#include "address_validator.h"
#include "challenge_client.h"
#include "connect_token_fixture.h"
#include "fuzz_check.h"
#include "transport_records.h"

namespace {

using namespace tickwire;
using namespace tickwire::transport;
using fuzz::ChallengeAction;
using Bytes = std::vector<std::uint8_t>;

// The client's own address first; two more ports on its host, so the
// per-host pending cap can be reached, and another host.
constexpr std::array<Endpoint, 4> kSources{
    {{0x0A000001U, 40000}, {0x0A000001U, 40001}, {0x0A000001U, 40002}, {0x0A000002U, 40000}}};
// The server first, then its address on another port, the client itself
// and a stranger: only the first may answer the client.
constexpr std::array<Endpoint, 4> kPeers{
    {{0x0A000009U, 7777}, {0x0A000009U, 7778}, {0x0A000001U, 40000}, {0x0A000002U, 40000}}};
constexpr Endpoint kClient = kSources[0];
constexpr Endpoint kServer = kPeers[0];

// Around the client's retry interval, the admission lifetime and the
// cookie buckets (8 s), so every timer can run out.
constexpr std::array<Duration, 8> kSteps{Duration::zero(),     Duration::millis(100), Duration::millis(250),
                                         Duration::seconds(1), Duration::seconds(2),  Duration::seconds(5),
                                         Duration::seconds(8), Duration::seconds(20)};
constexpr std::array<std::size_t, 4> kMaxPeersPerHost{0, 1, 2, 4};
constexpr std::array<std::size_t, 8> kFreeSlots{SIZE_MAX, 0, 1, 2, 3, 4, 8, 256};

constexpr Duration kGiveUpAfter = Duration::seconds(10);
constexpr Duration kExpiryInterval = Duration::seconds(1);  // as EnetTransport runs it
constexpr std::size_t kMaxOutbox = 16;
// A client has a few connects in flight at most; more would only make
// every tick cost more.
constexpr std::size_t kMaxExchanges = 4;
constexpr Time kStart = Time::from_micros(1'000'000'000'000);

// Limits small enough for a short input to reach each of them.
AddressValidationConfig config(bool tokens) {
  AddressValidationConfig c;
  c.max_pending = 3;
  c.max_pending_per_host = 2;
  c.admission_lifetime = Duration::seconds(5);
  c.max_challenges_per_second = 4;
  c.retry_interval = Duration::millis(250);
  if (tokens) {
    c.token_key = fuzz::token_fuzz_key();
    c.token_address = fuzz::token_fuzz_server();
  }
  return c;
}

// Valid for an hour of the stepped clock, so expiry is reachable too.
const Bytes& client_token() {
  static const Bytes token = [] {
    ConnectToken t;
    t.created_unix_seconds = fuzz::kTokenFuzzNow - 60;
    t.expires_unix_seconds = fuzz::kTokenFuzzNow + 3600;
    t.servers = {fuzz::token_fuzz_server()};
    t.client_id = 7;
    t.session_key = fuzz::token_fuzz_session_key();
    auto minted = mint_connect_token(t, fuzz::token_fuzz_key());
    TICKWIRE_FUZZ_CHECK(minted.ok());
    return minted.value();
  }();
  return token;
}

std::uint64_t nonce_of(const challenge::Message& m) {
  return std::visit([](const auto& v) { return v.nonce; }, m);
}

template <class T>
bool is(const std::optional<challenge::Message>& m) {
  return m && std::holds_alternative<T>(*m);
}

void overwrite(Bytes& bytes, std::size_t at, std::span<const std::uint8_t> with) {
  if (bytes.size() < at + with.size()) return;
  std::copy(with.begin(), with.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at));
}

class Harness {
 public:
  explicit Harness(bool tokens)
      : tokens_(tokens),
        config_(config(tokens)),
        validator_(config_),
        client_(config_.retry_interval, kGiveUpAfter),
        next_expiry_(kStart + kExpiryInterval) {
    start_exchange();
  }

  void run(const fuzz::ChallengeRecord& r) {
    now_ += kSteps[r.step];
    if (now_ >= next_expiry_) {
      validator_.expire(now_, unix_now());
      next_expiry_ = now_ + kExpiryInterval;
    }
    switch (r.action) {
      case ChallengeAction::kToServer: {
        set_load(r.load);
        Bytes d(r.datagram.begin(), r.datagram.end());
        const auto c = last_challenge_.find(kSources[r.endpoint].key());
        if (r.flag && c != last_challenge_.end()) overwrite(d, challenge::kPrefixSize, c->second);
        to_server(d, kSources[r.endpoint]);
        break;
      }
      case ChallengeAction::kToClient: {
        Bytes d(r.datagram.begin(), r.datagram.end());
        if (r.flag) overwrite(d, challenge::kPrefixSize, nonce_bytes(newest_nonce_));
        to_client(d, kPeers[r.endpoint]);
        break;
      }
      case ChallengeAction::kPump:
        if (r.flag) {
          connected(kSources[r.endpoint]);
        } else {
          pump(kSources[r.endpoint]);
        }
        break;
      case ChallengeAction::kClient:
        if (r.flag) {
          if (exchanges_.size() < kMaxExchanges) start_exchange();
        } else {
          client_.tick(now_, actions_);
          take_actions(std::nullopt, std::nullopt);
        }
        break;
    }
    check_server();
  }

 private:
  struct Exchange {
    std::uint64_t nonce = 0;
    Time started;
    bool challenged = false;
    bool accepted = false;  // an ACCEPTED after a CHALLENGE
  };

  std::int64_t unix_now() const { return fuzz::kTokenFuzzNow + (now_ - kStart).micros() / 1'000'000; }

  static std::array<std::uint8_t, challenge::kNonceSize> nonce_bytes(std::uint64_t nonce) {
    std::array<std::uint8_t, challenge::kNonceSize> out{};
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(nonce >> (8 * i));
    return out;
  }

  void set_load(std::uint8_t byte) {
    load_.peers_from_host = byte & 7U;
    load_.max_peers_per_host = kMaxPeersPerHost[(byte >> 3) & 3U];
    load_.free_slots = kFreeSlots[byte >> 5];
  }

  // As EnetTransport's hook: challenge datagrams go to the validator, and
  // others from a source not admitted stand for ENet connects it drops.
  // Returns the answer sent, empty for none.
  Bytes to_server(std::span<const std::uint8_t> d, Endpoint from) {
    if (!challenge::is_challenge_datagram(d)) {
      if (!validator_.admitted(from, now_)) validator_.count_dropped_connect(d.size());
      return {};
    }
    const auto request = challenge::decode(d);
    const std::uint64_t admitted_before = validator_.stats().admitted;
    // An empty answer is the validator's own guard refusing to amplify;
    // EnetTransport sends nothing for it, as for none.
    const Bytes reply = validator_.handle(d, from, {now_, unix_now()}, load_).value_or(Bytes{});
    const auto answer = challenge::decode(reply);
    if (!reply.empty()) {
      TICKWIRE_FUZZ_CHECK(reply.size() < d.size());
      TICKWIRE_FUZZ_CHECK(request.has_value());
      TICKWIRE_FUZZ_CHECK(is<challenge::ChallengeMsg>(answer) || is<challenge::Accepted>(answer) ||
                          is<challenge::Denied>(answer));
      TICKWIRE_FUZZ_CHECK(nonce_of(*answer) == nonce_of(*request));
    }
    if (is<challenge::ChallengeMsg>(answer)) {
      TICKWIRE_FUZZ_CHECK(is<challenge::Hello>(request));
      last_challenge_[from.key()].assign(reply.begin() + challenge::kPrefixSize, reply.end());
    }
    if (is<challenge::Denied>(answer)) {
      const bool version = std::get<challenge::Denied>(*answer).reason == DisconnectReason::kVersionMismatch;
      TICKWIRE_FUZZ_CHECK(version ? is<challenge::ForeignHello>(request) : is<challenge::Response>(request));
    }
    if (is<challenge::Accepted>(answer)) {
      TICKWIRE_FUZZ_CHECK(is<challenge::Response>(request));
      TICKWIRE_FUZZ_CHECK(validator_.admitted(from, now_));
      accepted_at_[from.key()] = now_;
    }
    const std::uint64_t admitted_after = validator_.stats().admitted;
    TICKWIRE_FUZZ_CHECK(admitted_after == admitted_before ||
                        (admitted_after == admitted_before + 1 && is<challenge::Accepted>(answer)));
    return reply;
  }

  void check_server() {
    const ValidationStats& s = validator_.stats();
    TICKWIRE_FUZZ_CHECK(s.unvalidated_bytes_out <= s.unvalidated_bytes_in);
    TICKWIRE_FUZZ_CHECK(s.pending <= config_.max_pending);
    TICKWIRE_FUZZ_CHECK(s.pending <= s.pending_peak);
    for (const Endpoint e : kSources) {
      if (!validator_.admitted(e, now_)) continue;
      const auto at = accepted_at_.find(e.key());
      TICKWIRE_FUZZ_CHECK(at != accepted_at_.end() && now_ < at->second + config_.admission_lifetime);
    }
    // The server's own addresses never send it anything.
    TICKWIRE_FUZZ_CHECK(!validator_.admitted(kPeers[0], now_) && !validator_.admitted(kPeers[1], now_));
  }

  // ENet connected `from`: the transport hands over its admission.
  void connected(Endpoint from) {
    const bool was_admitted = validator_.admitted(from, now_);
    const auto identity = validator_.take(from);
    accepted_at_.erase(from.key());
    TICKWIRE_FUZZ_CHECK(!validator_.admitted(from, now_));
    if (!tokens_) TICKWIRE_FUZZ_CHECK(!identity.has_value());
    if (tokens_ && was_admitted) TICKWIRE_FUZZ_CHECK(identity.has_value());
  }

  void pump(Endpoint as) {
    std::vector<Bytes> sent;
    sent.swap(outbox_);
    for (const Bytes& d : sent) {
      const Bytes reply = to_server(d, as);
      if (!reply.empty() && as == kClient) to_client(reply, kServer);
    }
  }

  void start_exchange() {
    const PeerId id(next_id_++);
    client_.start(id, kServer, tokens_ ? client_token() : Bytes{}, now_, actions_);
    // The HELLO just queued is how the exchange's nonce is known.
    TICKWIRE_FUZZ_CHECK(actions_.send.size() == 1 && actions_.done.empty());
    const auto hello = challenge::decode(actions_.send.front().bytes);
    TICKWIRE_FUZZ_CHECK(is<challenge::Hello>(hello));
    exchanges_[id] = Exchange{nonce_of(*hello), now_, false, false};
    newest_nonce_ = nonce_of(*hello);
    take_actions(std::nullopt, std::nullopt);
  }

  void to_client(std::span<const std::uint8_t> d, Endpoint from) {
    const auto message = challenge::decode(d);
    if (!message) return;
    if (from == kServer) {
      for (auto& [id, x] : exchanges_) {
        if (x.nonce != nonce_of(*message)) continue;
        if (is<challenge::ChallengeMsg>(message)) x.challenged = true;
        if (is<challenge::Accepted>(message) && x.challenged) x.accepted = true;
      }
    }
    client_.receive(*message, from, now_, actions_);
    take_actions(message, from);
  }

  // Checks what the client did, after a message `received` from `from` or,
  // without one, after start or tick.
  void take_actions(const std::optional<challenge::Message>& received, std::optional<Endpoint> from) {
    for (auto& out : actions_.send) {
      TICKWIRE_FUZZ_CHECK(out.to == kServer);
      const auto m = challenge::decode(out.bytes);
      TICKWIRE_FUZZ_CHECK(is<challenge::Hello>(m) || is<challenge::Response>(m));
      bool ours = false;
      for (const auto& [id, x] : exchanges_) ours = ours || x.nonce == nonce_of(*m);
      TICKWIRE_FUZZ_CHECK(ours);
      if (outbox_.size() == kMaxOutbox) outbox_.erase(outbox_.begin());
      outbox_.push_back(std::move(out.bytes));
    }
    for (const auto& done : actions_.done) {
      const auto it = exchanges_.find(done.id);
      TICKWIRE_FUZZ_CHECK(it != exchanges_.end());
      TICKWIRE_FUZZ_CHECK(done.server == kServer);
      const Exchange& x = it->second;
      if (received) {
        TICKWIRE_FUZZ_CHECK(from == kServer && nonce_of(*received) == x.nonce);
        TICKWIRE_FUZZ_CHECK(done.failure.has_value() == is<challenge::Denied>(received));
      } else {
        TICKWIRE_FUZZ_CHECK(done.failure == DisconnectReason::kConnectFailed);
        TICKWIRE_FUZZ_CHECK(now_ >= x.started + kGiveUpAfter);
      }
      if (!done.failure) TICKWIRE_FUZZ_CHECK(x.challenged && x.accepted);
      TICKWIRE_FUZZ_CHECK(!client_.pending(done.id));
      exchanges_.erase(it);
    }
    actions_.send.clear();
    actions_.done.clear();
  }

  bool tokens_;
  AddressValidationConfig config_;
  AddressValidator validator_;
  ChallengeClient client_;
  ChallengeClient::Actions actions_;
  Time now_ = kStart;
  Time next_expiry_;
  AddressValidator::HostLoad load_;
  std::uint32_t next_id_ = 1;
  std::map<PeerId, Exchange> exchanges_;  // the client's pending ones
  std::uint64_t newest_nonce_ = 0;
  std::vector<Bytes> outbox_;                                // sent by the client, not yet delivered
  std::unordered_map<std::uint64_t, Bytes> last_challenge_;  // nonce and cookie, by Endpoint::key
  std::unordered_map<std::uint64_t, Time> accepted_at_;      // last ACCEPTED, by Endpoint::key
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::uint8_t> input(data, size);
  Harness harness((input[0] & 1U) != 0);
  fuzz::ChallengeRecordReader reader(input.subspan(1));
  while (const auto record = reader.next()) harness.run(*record);
  return 0;
}
