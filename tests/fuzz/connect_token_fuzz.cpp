// libFuzzer target: connect tokens as a server reads them from a RESPONSE,
// checked with a fixed key, clock and server address (connect_token_fixture.h),
// and their public part as a client or tool reads it without the key.
//
// Invariants: a token read_token_public refuses is kMalformed for the
// check too; an accepted token has 1..8 servers including the checking
// one, expires after now, holds at most 256 bytes of user data and a
// session key that is not all zeros, and has the public fields
// read_token_public sees (a refused token holds no session key); the fingerprint is filled unless
// the input is malformed, and is the same for the same bytes.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "connect_token_fixture.h"
#include "fuzz_check.h"
#include "tickwire/transport/connect_token.h"

namespace {

using namespace tickwire;
using namespace tickwire::transport;

// Built once: every input is checked under the same key.
const TokenKey& key() {
  static const TokenKey k = fuzz::token_fuzz_key();
  return k;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  const Address server = fuzz::token_fuzz_server();
  const TokenCheck check = check_connect_token(bytes, key(), fuzz::kTokenFuzzNow, server);
  const auto pub = read_token_public(bytes);

  if (!pub.ok()) TICKWIRE_FUZZ_CHECK(check.status == TokenStatus::kMalformed);
  if (pub.ok()) {
    TICKWIRE_FUZZ_CHECK(!pub->servers.empty() && pub->servers.size() <= kMaxTokenServers);
    TICKWIRE_FUZZ_CHECK(bytes.size() <= max_connect_token_size());
  }

  constexpr std::array<std::uint8_t, 16> kNoFingerprint{};
  if (check.status == TokenStatus::kMalformed) {
    TICKWIRE_FUZZ_CHECK(check.fingerprint == kNoFingerprint);
  } else {
    TICKWIRE_FUZZ_CHECK(check.fingerprint == connect_token_fingerprint(bytes));
  }

  if (check.status == TokenStatus::kOk) {
    const ConnectToken& t = check.token;
    TICKWIRE_FUZZ_CHECK(pub.ok());
    TICKWIRE_FUZZ_CHECK(t.expires_unix_seconds > fuzz::kTokenFuzzNow);
    TICKWIRE_FUZZ_CHECK(t.user_data.size() <= kMaxTokenUserData);
    TICKWIRE_FUZZ_CHECK(t.session_key.bytes != TokenKey{}.bytes);
    TICKWIRE_FUZZ_CHECK(std::find(t.servers.begin(), t.servers.end(), server) != t.servers.end());
    TICKWIRE_FUZZ_CHECK(t.servers == pub->servers);
    TICKWIRE_FUZZ_CHECK(t.created_unix_seconds == pub->created_unix_seconds);
    TICKWIRE_FUZZ_CHECK(t.expires_unix_seconds == pub->expires_unix_seconds);
  } else {
    TICKWIRE_FUZZ_CHECK(check.token.servers.empty() && check.token.client_id == 0);
    TICKWIRE_FUZZ_CHECK(check.token.session_key.bytes == TokenKey{}.bytes);
  }
  return 0;
}
