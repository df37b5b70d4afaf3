#pragma once
// Starting a server: logging, the server's settings from the options and
// the game, stats, metrics, the UDP transport, Agones. Settings are
// checked before the socket is bound, so a bad one never holds a port.

#include <optional>

#include "session.h"

namespace tickwire::host {

// Fills `s` up to a server listening and announced (the ready line).
// Returns why it could not, with the exit status.
std::optional<Failure> start_session(Session& s);

}  // namespace tickwire::host
