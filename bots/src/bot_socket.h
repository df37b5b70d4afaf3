#pragma once
// The socket settings every bot uses, honest or evil. With a token key the
// bots play the game's backend too: each join gets a fresh connect token
// naming the server, and the fresh session key inside it, as a real client
// would fetch both before connecting.

#include <cstdint>
#include <optional>

#include "tickwire/core/time.h"
#include "tickwire/transport/enet_transport.h"

namespace tickwire::bots {

struct BotIdentity {
  std::uint64_t client_id = 0;
  std::optional<transport::TokenKey> token_key;  // none: the server needs no token
};

// How the bots' sessions are secured, as the command line set it.
struct SessionSecurity {
  // Pinned: a server that cannot sign with the matching identity is refused.
  std::optional<transport::ServerPublicKey> server_key;
  bool plaintext = false;  // ask for unencrypted sessions (debugging)
};

// Fails only when a token cannot be minted for `server` (not an IPv4
// literal), with the reason.
Result<transport::EnetConfig> bot_socket_config(Duration timeout, const transport::Address& server,
                                                const BotIdentity& identity, const SessionSecurity& security);

}  // namespace tickwire::bots
