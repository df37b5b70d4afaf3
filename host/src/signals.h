#pragma once
// The process-wide settings of a server: SIGINT and SIGTERM recorded for
// the loop, SIGPIPE ignored, the timer slack made as small as it goes.
// They last as long as the ProcessSettings object: a program that runs a
// server and then goes on (a test, a launcher) gets its own handlers back.

#include <signal.h>

namespace tickwire::host {

class ProcessSettings {
 public:
  ProcessSettings();
  ~ProcessSettings();
  ProcessSettings(const ProcessSettings&) = delete;
  ProcessSettings& operator=(const ProcessSettings&) = delete;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
  struct sigaction previous_pipe_ {};
};

// Forgets a signal recorded by an earlier server in this process.
void clear_signal();
// The signal received (SIGINT or SIGTERM), or 0.
int signal_received();

}  // namespace tickwire::host
