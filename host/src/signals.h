#pragma once
// The process-wide settings of a server: SIGINT and SIGTERM recorded for
// the loop, SIGPIPE ignored, the timer slack made as small as it goes.

namespace tickwire::host {

void install_process_settings();
// The signal received (SIGINT or SIGTERM), or 0.
int signal_received();

}  // namespace tickwire::host
