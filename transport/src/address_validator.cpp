#include "address_validator.h"

#include <sodium.h>

#include <cstring>
#include <stdexcept>

namespace tickwire::transport {
namespace {

// Cookies are valid in the time bucket they were made in and the next one,
// so a client has 8 to 16 seconds to answer its challenge.
constexpr std::int64_t kCookieBucketMicros = 8'000'000;
// Tokens remembered to notice their use from a second address. Beyond
// this many live ones a new token is refused until old ones expire, so a
// backend minting wildly cannot make the server grow without bound.
constexpr std::size_t kMaxTokenUses = 65536;
constexpr Duration kBudgetWindow = Duration::seconds(1);

std::int64_t bucket_of(Time now) { return now.micros() / kCookieBucketMicros; }

DisconnectReason reason_for(TokenStatus status) {
  switch (status) {
    case TokenStatus::kExpired: return DisconnectReason::kTokenExpired;
    case TokenStatus::kOk: return DisconnectReason::kUnknown;
    case TokenStatus::kMalformed:
    case TokenStatus::kInvalid:
    case TokenStatus::kWrongServer: break;
  }
  return DisconnectReason::kTokenInvalid;
}

}  // namespace

std::size_t AddressValidator::FingerprintHash::operator()(const Fingerprint& f) const {
  std::size_t h = 0;
  std::memcpy(&h, f.data(), sizeof h);  // already a uniform digest
  return h;
}

namespace {
// libsodium is ready before the signer's key is made from the identity.
ServerIdentity identity_for(const AddressValidationConfig& config) {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
  // None configured: a fresh one for each run, which no client can pin.
  return config.server_identity ? *config.server_identity : ServerIdentity::generate();
}
}  // namespace

AddressValidator::AddressValidator(const AddressValidationConfig& config, bool allow_plaintext, bool aes_available)
    : config_(config), allow_plaintext_(allow_plaintext), aes_available_(aes_available), signer_(identity_for(config)) {
  // A fresh secret per run: cookies need to outlive nothing but the process.
  randombytes_buf(secret_.data(), secret_.size());
}

AddressValidator::~AddressValidator() { sodium_memzero(secret_.data(), secret_.size()); }

challenge::Cookie AddressValidator::cookie_for(Endpoint from, std::uint64_t nonce, std::int64_t bucket,
                                               std::uint8_t flags, const challenge::PublicKey& client_key) const {
  std::array<std::uint8_t, 4 + 2 + 8 + 8 + 1 + challenge::kPublicKeySize> input{};
  std::memcpy(input.data(), &from.host, 4);
  std::memcpy(input.data() + 4, &from.port, 2);
  std::memcpy(input.data() + 6, &nonce, 8);
  std::memcpy(input.data() + 14, &bucket, 8);
  input[22] = flags;
  std::memcpy(input.data() + 23, client_key.data(), client_key.size());
  challenge::Cookie cookie{};
  crypto_generichash(cookie.data(), cookie.size(), input.data(), input.size(), secret_.data(), secret_.size());
  return cookie;
}

std::optional<std::int64_t> AddressValidator::cookie_bucket(const challenge::Response& r, Endpoint from,
                                                            Time now) const {
  const std::int64_t bucket = bucket_of(now);
  for (const std::int64_t b : {bucket, bucket - 1}) {
    const challenge::Cookie expected = cookie_for(from, r.nonce, b, r.flags, r.client_key);
    // Constant time, so response timing tells an attacker nothing.
    if (sodium_memcmp(expected.data(), r.cookie.data(), expected.size()) == 0) return b;
  }
  return std::nullopt;
}

bool AddressValidator::take_challenge_budget(Time now) {
  if (challenges_this_second_ == 0 || now - budget_second_start_ >= kBudgetWindow) {
    budget_second_start_ = now;
    challenges_this_second_ = 0;
  }
  if (challenges_this_second_ >= config_.max_challenges_per_second) return false;
  ++challenges_this_second_;
  return true;
}

std::vector<std::uint8_t> AddressValidator::reply_unvalidated(std::vector<std::uint8_t> answer, std::size_t received) {
  // Every answer is smaller than what it answers (connect_challenge.cpp
  // checks the sizes at compile time); this guards the promise at runtime.
  if (answer.size() > received) return {};
  stats_.unvalidated_bytes_out += answer.size();
  return answer;
}

std::optional<std::vector<std::uint8_t>> AddressValidator::handle(std::span<const std::uint8_t> datagram, Endpoint from,
                                                                  const Clocks& clocks, const HostLoad& load) {
  stats_.unvalidated_datagrams_in += 1;
  stats_.unvalidated_bytes_in += datagram.size();
  const auto message = challenge::decode(datagram);
  if (!message) {
    ++stats_.malformed;
    return std::nullopt;
  }
  if (const auto* hello = std::get_if<challenge::Hello>(&*message)) {
    return on_hello(*hello, from, clocks.now, datagram.size());
  }
  if (const auto* foreign = std::get_if<challenge::ForeignHello>(&*message)) {
    if (!take_challenge_budget(clocks.now)) return std::nullopt;
    const challenge::Denied answer{foreign->nonce, DisconnectReason::kVersionMismatch};
    return reply_unvalidated(challenge::encode(answer), datagram.size());
  }
  if (const auto* response = std::get_if<challenge::Response>(&*message)) {
    return on_response(*response, from, clocks, load, datagram.size());
  }
  // CHALLENGE, ACCEPTED and DENIED travel the other way: a server never
  // answers them.
  ++stats_.malformed;
  return std::nullopt;
}

std::optional<std::vector<std::uint8_t>> AddressValidator::on_hello(const challenge::Hello& hello, Endpoint from,
                                                                    Time now, std::size_t received) {
  if (!take_challenge_budget(now)) {
    ++stats_.challenges_over_budget;
    return std::nullopt;
  }
  ++stats_.challenges_sent;
  // A new key pair once per bucket at most; a CHALLENGE itself is only a
  // keyed hash.
  const std::int64_t bucket = bucket_of(now);
  kx_keys_.rotate_to(bucket);
  const challenge::ChallengeMsg answer{hello.nonce,
                                       cookie_for(from, hello.nonce, bucket, hello.flags, hello.client_key),
                                       kx_keys_.pair_of(bucket)->public_key()};
  return reply_unvalidated(challenge::encode(answer), received);
}

std::optional<std::vector<std::uint8_t>> AddressValidator::on_response(const challenge::Response& r, Endpoint from,
                                                                       const Clocks& clocks, const HostLoad& load,
                                                                       std::size_t received) {
  const std::optional<std::int64_t> bucket = cookie_bucket(r, from, clocks.now);
  const handshake::KxKeyPair* server_pair = bucket ? kx_keys_.pair_of(*bucket) : nullptr;
  if (server_pair == nullptr) {
    // Forged, replayed from another address or with another client key, or
    // too old: silence, since the source has not shown that it receives at
    // its address.
    ++stats_.bad_cookies;
    return std::nullopt;
  }
  const auto deny = [&](DisconnectReason reason) {
    ++stats_.denied;
    return reply_unvalidated(challenge::encode(challenge::Denied{r.nonce, reason}), received);
  };
  if ((r.flags & challenge::kFlagPlaintext) != 0 && !allow_plaintext_) return deny(DisconnectReason::kPlaintextRefused);
  if (const auto it = admissions_.find(from.key()); it != admissions_.end()) {
    // A RESPONSE resent because our ACCEPTED was lost: the same answer,
    // with the same connection id and keys.
    if (it->second.nonce == r.nonce && it->second.client_key == r.client_key) {
      it->second.expires = clocks.now + config_.admission_lifetime;
      return reply_unvalidated(it->second.accepted, received);
    }
    forget(it);  // the client at this address started over
  }
  TokenGrant grant;
  if (const auto refused = check_token(r, from, clocks, grant)) return deny(*refused);
  if (const auto refused = check_load(from, load)) return deny(*refused);
  if (pending_full(from)) {
    // Pending connects complete within a round trip, so a place frees up
    // soon: no answer, and the client's resent RESPONSE tries again. Many
    // players behind one NAT, or a crowd arriving at once, only wait.
    ++stats_.pending_full;
    return std::nullopt;
  }
  std::optional<Admission> admission = agree(r, *server_pair, std::move(grant), clocks.now);
  if (!admission) {
    ++stats_.malformed;  // a client key no honest client sends
    return std::nullopt;
  }
  auto answer = reply_unvalidated(admission->accepted, received);
  admit(from, std::move(*admission));
  return answer;
}

std::optional<DisconnectReason> AddressValidator::check_load(Endpoint from, const HostLoad& load) const {
  // ENet would ignore a connect it has no slot for; saying so now spares
  // the client its timeout.
  if (admissions_.size() >= load.free_slots) return DisconnectReason::kServerFull;
  const auto found = pending_per_host_.find(from.host);
  const std::size_t pending_here = found == pending_per_host_.end() ? 0 : found->second;
  if (load.max_peers_per_host != 0 && load.peers_from_host + pending_here >= load.max_peers_per_host) {
    return DisconnectReason::kTooManyConnections;
  }
  return std::nullopt;
}

bool AddressValidator::pending_full(Endpoint from) const {
  const auto found = pending_per_host_.find(from.host);
  const std::size_t pending_here = found == pending_per_host_.end() ? 0 : found->second;
  return admissions_.size() >= config_.max_pending || pending_here >= config_.max_pending_per_host;
}

std::optional<AddressValidator::Admission> AddressValidator::agree(const challenge::Response& r,
                                                                   const handshake::KxKeyPair& server_pair,
                                                                   TokenGrant grant, Time now) {
  Admission admission;
  admission.expires = now + config_.admission_lifetime;
  admission.identity = std::move(grant.identity);
  admission.nonce = r.nonce;
  admission.client_key = r.client_key;
  SessionParams& session = admission.session.params();
  session.plaintext = (r.flags & challenge::kFlagPlaintext) != 0;
  if (!session.plaintext && !server_pair.server_keys(r.client_key, grant.session_key, session.keys)) {
    return std::nullopt;
  }
  session.connection_id = fresh_connection_id();
  // AES-256-GCM where both CPUs have AES instructions (cheaper per datagram
  // there); ChaCha20-Poly1305, fast everywhere, otherwise.
  const bool aes = (r.flags & challenge::kFlagAes256Gcm) != 0 && aes_available_;
  session.cipher = aes ? SessionCipher::kAes256Gcm : SessionCipher::kChaCha20Poly1305;
  const auto flags =
      static_cast<std::uint8_t>((r.flags & challenge::kFlagPlaintext) | (aes ? challenge::kFlagAes256Gcm : 0U));
  challenge::Accepted accepted{r.nonce, session.connection_id, flags, {}, {}};
  accepted.signature =
      signer_.sign({r.nonce, r.flags, r.client_key, server_pair.public_key(), session.connection_id, flags});
  if (!session.plaintext)
    accepted.confirmation = handshake::confirmation(session.keys.send, r.nonce, accepted.connection_id, flags);
  admission.accepted = challenge::encode(accepted);
  return admission;
}

std::uint32_t AddressValidator::fresh_connection_id() {
  // 2^32 ids against a few thousand in use: a handful of draws at most.
  for (;;) {
    const std::uint32_t id = randombytes_random();
    if (id != 0 && !admission_ids_.contains(id) && !(live_ids_ && live_ids_(id))) return id;
  }
}

namespace {
// The session key of an accepted token, which the token format (TWTOKEN2)
// carries in the token's private part: the one place the handshake reads it.
const TokenKey& token_session_key(const TokenCheck& check) { return check.token.session_key; }
}  // namespace

std::optional<DisconnectReason> AddressValidator::check_token(const challenge::Response& r, Endpoint from,
                                                              const Clocks& clocks, TokenGrant& grant) {
  if (!config_.token_key) return std::nullopt;
  if (r.token.empty()) return DisconnectReason::kTokenRequired;
  const TokenCheck check =
      check_connect_token(r.token, *config_.token_key, clocks.unix_seconds, config_.token_address.value_or(Address{}));
  if (check.status != TokenStatus::kOk) return reason_for(check.status);
  const auto use = token_uses_.find(check.fingerprint);
  if (use != token_uses_.end()) {
    if (!(use->second.first == from)) return DisconnectReason::kTokenReused;
  } else {
    if (token_uses_.size() >= kMaxTokenUses) expire(clocks.now, clocks.unix_seconds);
    if (token_uses_.size() >= kMaxTokenUses) return DisconnectReason::kTooManyConnections;
    token_uses_.emplace(check.fingerprint, TokenUse{from, check.token.expires_unix_seconds});
  }
  grant.identity = PeerIdentity{check.token.client_id, check.token.user_data};
  grant.session_key = token_session_key(check);
  return std::nullopt;
}

void AddressValidator::admit(Endpoint from, Admission admission) {
  admission_ids_.insert(admission.session.params().connection_id);
  admissions_.emplace(from.key(), std::move(admission));
  ++pending_per_host_[from.host];
  ++stats_.admitted;
  stats_.pending = admissions_.size();
  stats_.pending_peak = std::max(stats_.pending_peak, stats_.pending);
}

void AddressValidator::forget(std::unordered_map<std::uint64_t, Admission>::iterator it) {
  const auto host = static_cast<std::uint32_t>(it->first >> 16);
  admission_ids_.erase(it->second.session.params().connection_id);
  admissions_.erase(it);
  if (const auto count = pending_per_host_.find(host); count != pending_per_host_.end() && --count->second == 0) {
    pending_per_host_.erase(count);
  }
  stats_.pending = admissions_.size();
}

bool AddressValidator::admitted(Endpoint from, Time now) const {
  const auto it = admissions_.find(from.key());
  return it != admissions_.end() && now < it->second.expires;
}

const SessionParams* AddressValidator::session_of(Endpoint from) const {
  const auto it = admissions_.find(from.key());
  return it == admissions_.end() ? nullptr : &it->second.session.params();
}

void AddressValidator::count_dropped_connect(std::size_t bytes) {
  ++stats_.connects_dropped;
  stats_.unvalidated_datagrams_in += 1;
  stats_.unvalidated_bytes_in += bytes;
}

std::optional<AddressValidator::Admitted> AddressValidator::take(Endpoint from) {
  const auto it = admissions_.find(from.key());
  if (it == admissions_.end()) return std::nullopt;
  Admitted admitted{std::move(it->second.identity), it->second.session.params()};
  forget(it);  // wipes the validator's copy of the keys
  return admitted;
}

void AddressValidator::expire(Time now, std::int64_t unix_seconds) {
  // Also drops (and wipes) key pairs older than any valid cookie when no
  // HELLO has come for a while.
  kx_keys_.rotate_to(bucket_of(now));
  for (auto it = admissions_.begin(); it != admissions_.end();) {
    const auto next = std::next(it);
    if (now >= it->second.expires) forget(it);
    it = next;
  }
  std::erase_if(token_uses_, [&](const auto& entry) { return entry.second.expires_unix <= unix_seconds; });
}

}  // namespace tickwire::transport
