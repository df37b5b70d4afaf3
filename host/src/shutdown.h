#pragma once
// Stopping a server: Agones told first, the clients drained, the final
// totals logged, a trained codebook written, the sidecar given a moment.

#include "session.h"

namespace tickwire::host {

// `sig` is what ended the loop (0: --duration). Returns the exit status.
int stop_session(Session& s, int sig);

}  // namespace tickwire::host
