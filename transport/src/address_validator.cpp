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

AddressValidator::AddressValidator(const AddressValidationConfig& config) : config_(config) {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
  // A fresh secret per run: cookies need to outlive nothing but the process.
  randombytes_buf(secret_.data(), secret_.size());
}

challenge::Cookie AddressValidator::cookie_for(Endpoint from, std::uint64_t nonce, std::int64_t bucket) const {
  std::array<std::uint8_t, 4 + 2 + 8 + 8> input{};
  std::memcpy(input.data(), &from.host, 4);
  std::memcpy(input.data() + 4, &from.port, 2);
  std::memcpy(input.data() + 6, &nonce, 8);
  std::memcpy(input.data() + 14, &bucket, 8);
  challenge::Cookie cookie{};
  crypto_generichash(cookie.data(), cookie.size(), input.data(), input.size(), secret_.data(), secret_.size());
  return cookie;
}

bool AddressValidator::cookie_valid(const challenge::Response& r, Endpoint from, Time now) const {
  const std::int64_t bucket = bucket_of(now);
  for (const std::int64_t b : {bucket, bucket - 1}) {
    const challenge::Cookie expected = cookie_for(from, r.nonce, b);
    // Constant time, so response timing tells an attacker nothing.
    if (sodium_memcmp(expected.data(), r.cookie.data(), expected.size()) == 0) return true;
  }
  return false;
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
    if (!take_challenge_budget(clocks.now)) {
      ++stats_.challenges_over_budget;
      return std::nullopt;
    }
    ++stats_.challenges_sent;
    const challenge::ChallengeMsg answer{hello->nonce, cookie_for(from, hello->nonce, bucket_of(clocks.now))};
    return reply_unvalidated(challenge::encode(answer), datagram.size());
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

std::optional<std::vector<std::uint8_t>> AddressValidator::on_response(const challenge::Response& r, Endpoint from,
                                                                       const Clocks& clocks, const HostLoad& load,
                                                                       std::size_t received) {
  if (!cookie_valid(r, from, clocks.now)) {
    // Forged, replayed from another address or too old: silence, since
    // the source has not shown that it receives at its address.
    ++stats_.bad_cookies;
    return std::nullopt;
  }
  const auto deny = [&](DisconnectReason reason) {
    ++stats_.denied;
    return reply_unvalidated(challenge::encode(challenge::Denied{r.nonce, reason}), received);
  };
  // A RESPONSE resent because our ACCEPTED was lost: accept again.
  if (const auto it = admissions_.find(from.key()); it != admissions_.end()) {
    it->second.expires = clocks.now + config_.admission_lifetime;
    return reply_unvalidated(challenge::encode(challenge::Accepted{r.nonce}), received);
  }
  std::optional<PeerIdentity> identity;
  if (const auto refused = check_token(r, from, clocks, identity)) return deny(*refused);
  // ENet would ignore a connect it has no slot for; saying so now spares
  // the client its timeout.
  if (admissions_.size() >= load.free_slots) return deny(DisconnectReason::kServerFull);
  const auto found = pending_per_host_.find(from.host);
  const std::size_t pending_here = found == pending_per_host_.end() ? 0 : found->second;
  if (load.max_peers_per_host != 0 && load.peers_from_host + pending_here >= load.max_peers_per_host) {
    return deny(DisconnectReason::kTooManyConnections);
  }
  if (admissions_.size() >= config_.max_pending || pending_here >= config_.max_pending_per_host) {
    // Pending connects complete within a round trip, so a place frees up
    // soon: no answer, and the client's resent RESPONSE tries again. Many
    // players behind one NAT, or a crowd arriving at once, only wait.
    ++stats_.pending_full;
    return std::nullopt;
  }
  admit(from, clocks.now, std::move(identity));
  return reply_unvalidated(challenge::encode(challenge::Accepted{r.nonce}), received);
}

std::optional<DisconnectReason> AddressValidator::check_token(const challenge::Response& r, Endpoint from,
                                                              const Clocks& clocks,
                                                              std::optional<PeerIdentity>& identity) {
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
  identity = PeerIdentity{check.token.client_id, check.token.user_data};
  return std::nullopt;
}

void AddressValidator::admit(Endpoint from, Time now, std::optional<PeerIdentity> identity) {
  admissions_.emplace(from.key(), Admission{now + config_.admission_lifetime, std::move(identity)});
  ++pending_per_host_[from.host];
  ++stats_.admitted;
  stats_.pending = admissions_.size();
  stats_.pending_peak = std::max(stats_.pending_peak, stats_.pending);
}

void AddressValidator::forget(std::unordered_map<std::uint64_t, Admission>::iterator it) {
  const auto host = static_cast<std::uint32_t>(it->first >> 16);
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

void AddressValidator::count_dropped_connect(std::size_t bytes) {
  ++stats_.connects_dropped;
  stats_.unvalidated_datagrams_in += 1;
  stats_.unvalidated_bytes_in += bytes;
}

std::optional<PeerIdentity> AddressValidator::take(Endpoint from) {
  const auto it = admissions_.find(from.key());
  if (it == admissions_.end()) return std::nullopt;
  std::optional<PeerIdentity> identity = std::move(it->second.identity);
  forget(it);
  return identity;
}

void AddressValidator::expire(Time now, std::int64_t unix_seconds) {
  for (auto it = admissions_.begin(); it != admissions_.end();) {
    const auto next = std::next(it);
    if (now >= it->second.expires) forget(it);
    it = next;
  }
  std::erase_if(token_uses_, [&](const auto& entry) { return entry.second.expires_unix <= unix_seconds; });
}

}  // namespace tickwire::transport
