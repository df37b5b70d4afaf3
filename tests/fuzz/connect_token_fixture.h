#pragma once
// What the connect_token target and its seed generator (fuzz_corpus) agree
// on: the key, the session key, the clock and the server, all fixed, so a seed minted once
// stays valid and every run of an input takes the same path.

#include <cstdint>

#include "tickwire/transport/address.h"
#include "tickwire/transport/connect_token.h"

namespace tickwire::fuzz {

inline transport::TokenKey token_fuzz_key() {
  transport::TokenKey key;
  for (std::size_t i = 0; i < key.bytes.size(); ++i) key.bytes[i] = static_cast<std::uint8_t>(0xA0U + i);
  return key;
}

// The session key every seed token carries (any key but all zeros would do).
inline transport::TokenKey token_fuzz_session_key() {
  transport::TokenKey key;
  for (std::size_t i = 0; i < key.bytes.size(); ++i) key.bytes[i] = static_cast<std::uint8_t>(0x30U + i);
  return key;
}

// 2023-11-14T22:13:20Z; seeds that should be accepted expire years later.
inline constexpr std::int64_t kTokenFuzzNow = 1'700'000'000;

inline transport::Address token_fuzz_server() { return transport::Address{"127.0.0.1", 7777}; }

}  // namespace tickwire::fuzz
