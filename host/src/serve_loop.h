#pragma once
// The server loop: ticks on time, stats, metrics, client events (to the
// lifecycle log, the metrics and Agones), until a signal or --duration.

#include "session.h"

namespace tickwire::host {

// Runs until SIGINT, SIGTERM or --duration; returns the signal (0 for the
// duration).
int serve(Session& s);

// Hands one client event to the lifecycle log, the metrics and Agones.
void on_server_event(Session& s, const server::ServerEvent& e);

// Notes in the lifecycle log and the metrics what the Agones agent saw.
void note_agones(Session& s);

}  // namespace tickwire::host
