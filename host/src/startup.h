#pragma once
// Starting a server: logging, the server's settings from the options and
// the game, stats, metrics, the UDP transport, Agones. Settings are
// checked before the socket is bound, so a bad one never holds a port.

#include <optional>
#include <variant>

#include "session.h"

namespace tickwire::host {

// Fills `s` up to a server listening and announced (the ready line).
// Returns why it could not, with the exit status.
std::optional<Failure> start_session(Session& s);

// The transport's settings from the options, before any socket is bound.
// The server identity is always set: --server-identity's, or a fresh one,
// so that its public key can be logged.
std::variant<transport::EnetConfig, Failure> transport_config(const Options& opt);

}  // namespace tickwire::host
