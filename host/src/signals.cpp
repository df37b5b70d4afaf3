#include "signals.h"

#include <sys/prctl.h>

#include <atomic>
#include <csignal>

namespace tickwire::host {
namespace {

std::atomic<int> g_signal{0};  // the one piece of process state a signal may touch

void on_signal(int sig) { g_signal.store(sig); }

}  // namespace

void install_process_settings() {
  // The kernel may defer a sleeper's wake-up by its timer slack (50 us by
  // default) to batch wake-ups; ticks should start on time instead.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  // A peer closing an HTTP connection mid-write must not kill the server.
  std::signal(SIGPIPE, SIG_IGN);
}

int signal_received() { return g_signal.load(); }

}  // namespace tickwire::host
