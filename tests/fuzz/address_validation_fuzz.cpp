// libFuzzer target: address validation (transport/connect_challenge.h,
// docs/wire-format.md "Address validation (before ENet)") with both ends
// driven by the input: one AddressValidator, the accepting side, and one
// ChallengeClient that has started an exchange with it. No ENet, no socket.
//
// The input is a header byte, then records (transport_records.h):
//   header   1 byte   bit 0: the server requires connect tokens (key, clock
//                     and address of connect_token_fixture.h); the client
//                     then presents a token minted under that key
//                     bit 1: the server allows plaintext sessions
//                     bit 2: the client asks for one
//                     bits 3-4: the client pins the server's key: 1 the
//                     right one, 2 another one, 0 or 3 none
//                     bit 5: the server cannot seal with AES-256-GCM
//                     bit 6: the client cannot
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
// last CHALLENGE its source was sent, then the flags and client key of the
// HELLO it answered, written over bytes 5..61 (a RESPONSE's), and one for
// action 1 the nonce of the client's newest exchange over bytes 5..12 (when
// long enough). Cookies hang on a secret and nonces on a random draw, so
// this is how mutated RESPONSEs get past the cookie check and mutated
// answers reach a live exchange; no invariant depends on the random values.
//
// Invariants: every answer is strictly smaller than the datagram it
// answers, decodes as a CHALLENGE (to a HELLO), ACCEPTED (to a RESPONSE)
// or DENIED (to a RESPONSE or a HELLO of another version) and echoes its
// nonce; an ACCEPTED carries the connection id of the admission's session,
// never 0, and is plaintext only when asked for and allowed, chooses
// AES-256-GCM exactly when the RESPONSE offered it and the server has it
// (the admitted session's cipher agreeing), and kPlaintextRefused answers
// only a plaintext request to a server without it; unvalidated_bytes_out never exceeds unvalidated_bytes_in; pending
// never exceeds max_pending; a source is admitted only while an ACCEPTED
// sent to that exact endpoint, in answer to its RESPONSE, is younger than
// admission_lifetime, and `admitted` counts only such answers. The client
// sends only HELLOs and RESPONSEs of its own exchanges to its server, ends
// an exchange once, from a message of its server with that exchange's
// nonce or by timing out, and reports success only after a CHALLENGE and
// then an ACCEPTED from its server for that exchange. An encrypted or
// pinned success holds the mirror of the session the server admitted for
// that nonce, cipher included (a plaintext session without a pin proves
// nothing, by design); a client without AES-256-GCM never ends up with it;
// a wrongly pinned key never succeeds.

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

#include "address_validation_setup.h"
#include "address_validator.h"
#include "challenge_client.h"
#include "fuzz_check.h"
#include "handshake_crypto.h"
#include "transport_records.h"

namespace {

using namespace tickwire;
using namespace tickwire::transport;
using fuzz::ChallengeAction;
using fuzz::Setup;
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

ChallengeClient::Credentials credentials(const Setup& setup) {
  ChallengeClient::Credentials c;
  if (setup.tokens) {
    c.token = fuzz::client_token();
    c.token_session_key = fuzz::client_token_session_key();
  }
  if (setup.pin == 1) c.server_key = fuzz::fuzz_identity(0x11).public_key();
  if (setup.pin == 2) c.server_key = fuzz::fuzz_identity(0x22).public_key();
  c.plaintext = setup.plaintext;
  return c;
}

bool mirrored(const SessionParams& client, const SessionParams& server) {
  return client.connection_id == server.connection_id && client.plaintext == server.plaintext &&
         client.cipher == server.cipher && client.keys.send == server.keys.receive &&
         client.keys.receive == server.keys.send;
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
  explicit Harness(const Setup& setup)
      : setup_(setup),
        config_(fuzz::validation_config(setup.tokens)),
        validator_(config_, setup.allow_plaintext, setup.server_aes),
        client_(config_.retry_interval, kGiveUpAfter, setup.client_aes),
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
    std::uint64_t nonce = 0;  // of its current round
    Time started;
    bool challenged = false;
    bool accepted = false;  // an ACCEPTED after a CHALLENGE
  };
  // The bytes of a RESPONSE that a CHALLENGE and its HELLO fix: nonce,
  // cookie, flags and client key.
  static constexpr std::size_t kSpliceSize =
      challenge::kNonceSize + challenge::kCookieSize + 1 + challenge::kPublicKeySize;

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
      const auto& hello = std::get<challenge::Hello>(*request);
      Bytes& splice = last_challenge_[from.key()];
      splice.assign(reply.begin() + challenge::kPrefixSize,
                    reply.begin() + challenge::kPrefixSize + challenge::kNonceSize + challenge::kCookieSize);
      splice.push_back(hello.flags);
      splice.insert(splice.end(), hello.client_key.begin(), hello.client_key.end());
      TICKWIRE_FUZZ_CHECK(splice.size() == kSpliceSize);
    }
    if (is<challenge::Denied>(answer)) {
      const DisconnectReason reason = std::get<challenge::Denied>(*answer).reason;
      const bool version = reason == DisconnectReason::kVersionMismatch;
      TICKWIRE_FUZZ_CHECK(version ? is<challenge::ForeignHello>(request) : is<challenge::Response>(request));
      if (reason == DisconnectReason::kPlaintextRefused) {
        TICKWIRE_FUZZ_CHECK(!setup_.allow_plaintext &&
                            (std::get<challenge::Response>(*request).flags & challenge::kFlagPlaintext) != 0);
      }
    }
    if (is<challenge::Accepted>(answer)) check_accepted(std::get<challenge::Accepted>(*answer), *request, from);
    const std::uint64_t admitted_after = validator_.stats().admitted;
    TICKWIRE_FUZZ_CHECK(admitted_after == admitted_before ||
                        (admitted_after == admitted_before + 1 && is<challenge::Accepted>(answer)));
    return reply;
  }

  void check_accepted(const challenge::Accepted& accepted, const challenge::Message& request, Endpoint from) {
    TICKWIRE_FUZZ_CHECK(std::holds_alternative<challenge::Response>(request));
    TICKWIRE_FUZZ_CHECK(validator_.admitted(from, now_));
    const SessionParams* session = validator_.session_of(from);
    TICKWIRE_FUZZ_CHECK(session != nullptr && session->connection_id != 0);
    TICKWIRE_FUZZ_CHECK(accepted.connection_id == session->connection_id);
    const std::uint8_t asked = std::get<challenge::Response>(request).flags;
    TICKWIRE_FUZZ_CHECK((accepted.flags & challenge::kFlagPlaintext) == (asked & challenge::kFlagPlaintext));
    const bool aes = (accepted.flags & challenge::kFlagAes256Gcm) != 0;
    TICKWIRE_FUZZ_CHECK(aes == ((asked & challenge::kFlagAes256Gcm) != 0 && setup_.server_aes));
    TICKWIRE_FUZZ_CHECK(session->cipher == (aes ? SessionCipher::kAes256Gcm : SessionCipher::kChaCha20Poly1305));
    TICKWIRE_FUZZ_CHECK(!session->plaintext || setup_.allow_plaintext);
    accepted_at_[from.key()] = now_;
    if (from == kClient) server_sessions_[accepted.nonce] = handshake::SecretSession(*session);
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
    const bool had_session = validator_.session_of(from) != nullptr;
    const auto admitted = validator_.take(from);
    accepted_at_.erase(from.key());
    TICKWIRE_FUZZ_CHECK(!validator_.admitted(from, now_) && validator_.session_of(from) == nullptr);
    TICKWIRE_FUZZ_CHECK(admitted.has_value() == had_session);
    if (!admitted) return;
    TICKWIRE_FUZZ_CHECK(admitted->session.connection_id != 0);
    if (!setup_.tokens) TICKWIRE_FUZZ_CHECK(!admitted->identity.has_value());
    if (setup_.tokens && was_admitted) TICKWIRE_FUZZ_CHECK(admitted->identity.has_value());
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
    client_.start(id, kServer, credentials(setup_), now_, actions_);
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
    for (auto& [id, x] : exchanges_) {
      // A stale cookie starts a new round with a new nonce.
      const auto nonce = client_.nonce(id);
      if (!nonce || *nonce == x.nonce) continue;
      if (newest_nonce_ == x.nonce) newest_nonce_ = *nonce;
      x = Exchange{*nonce, x.started, false, false};
    }
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
        if (is<challenge::Denied>(received)) TICKWIRE_FUZZ_CHECK(done.failure.has_value());
        if (is<challenge::Accepted>(received) && done.failure) {
          TICKWIRE_FUZZ_CHECK(done.failure == DisconnectReason::kServerKeyMismatch ||
                              done.failure == DisconnectReason::kProtocolError);
        }
      } else {
        TICKWIRE_FUZZ_CHECK(done.failure == DisconnectReason::kConnectFailed);
        TICKWIRE_FUZZ_CHECK(now_ >= x.started + kGiveUpAfter);
      }
      if (!done.failure) check_success(done, x);
      TICKWIRE_FUZZ_CHECK(!client_.pending(done.id));
      exchanges_.erase(it);
    }
    actions_.send.clear();
    actions_.done.clear();
  }

  void check_success(const ChallengeClient::Done& done, const Exchange& x) {
    TICKWIRE_FUZZ_CHECK(x.challenged && x.accepted);
    TICKWIRE_FUZZ_CHECK(setup_.pin != 2);
    TICKWIRE_FUZZ_CHECK(done.session.connection_id != 0 && done.session.plaintext == setup_.plaintext);
    TICKWIRE_FUZZ_CHECK(setup_.client_aes || done.session.cipher == SessionCipher::kChaCha20Poly1305);
    if (!setup_.verified()) return;
    const auto server = server_sessions_.find(x.nonce);
    TICKWIRE_FUZZ_CHECK(server != server_sessions_.end());
    TICKWIRE_FUZZ_CHECK(mirrored(done.session, server->second.params()));
  }

  Setup setup_;
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
  // The sessions of the ACCEPTEDs sent to the client's own address, by nonce.
  std::unordered_map<std::uint64_t, handshake::SecretSession> server_sessions_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::uint8_t> input(data, size);
  Harness harness(Setup{input[0]});
  fuzz::ChallengeRecordReader reader(input.subspan(1));
  while (const auto record = reader.next()) harness.run(*record);
  return 0;
}
