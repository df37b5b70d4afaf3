#include "signals.h"

#include <sys/prctl.h>

#include <atomic>
#include <csignal>

namespace tickwire::host {
namespace {

std::atomic<int> g_signal{0};  // the one piece of process state a signal may touch

void on_signal(int sig) { g_signal.store(sig); }

void handle(int sig, void (*handler)(int), struct sigaction& previous) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaction(sig, &action, &previous);
}

}  // namespace

ProcessSettings::ProcessSettings() {
  // The kernel may defer a sleeper's wake-up by its timer slack (50 us by
  // default) to batch wake-ups; ticks should start on time instead.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  handle(SIGINT, on_signal, previous_int_);
  handle(SIGTERM, on_signal, previous_term_);
  // A peer closing an HTTP connection mid-write must not kill the server.
  handle(SIGPIPE, SIG_IGN, previous_pipe_);
}

ProcessSettings::~ProcessSettings() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
  sigaction(SIGPIPE, &previous_pipe_, nullptr);
}

void clear_signal() { g_signal.store(0); }

int signal_received() { return g_signal.load(); }

}  // namespace tickwire::host
