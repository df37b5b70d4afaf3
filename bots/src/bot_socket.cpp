#include "bot_socket.h"

#include <chrono>

namespace tickwire::bots {
namespace {

// Long enough for a slow connect over a bad link; short, as tokens should be.
constexpr std::int64_t kTokenLifetimeSeconds = 120;

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

Result<transport::EnetConfig> bot_socket_config(Duration timeout, const transport::Address& server,
                                                const BotIdentity& identity, const SessionSecurity& security) {
  transport::EnetConfig net;
  net.max_peers = 1;
  net.timeout = timeout;
  net.plaintext = security.plaintext;
  net.validation.server_key = security.server_key;
  if (!identity.token_key) return net;
  transport::ConnectToken token;
  token.created_unix_seconds = unix_now();
  token.expires_unix_seconds = token.created_unix_seconds + kTokenLifetimeSeconds;
  token.servers = {server};
  token.client_id = identity.client_id;
  token.session_key = transport::TokenKey::generate();
  auto minted = transport::mint_connect_token(token, *identity.token_key);
  if (!minted) return minted.error();
  net.validation.connect_token = std::move(minted).value();
  net.validation.token_session_key = token.session_key;
  return net;
}

}  // namespace tickwire::bots
