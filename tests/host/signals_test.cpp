// The server's signal handlers last as long as its ProcessSettings, and a
// signal recorded for one server can be forgotten before the next.
#include "signals.h"

#include <gtest/gtest.h>

#include <csignal>

namespace tickwire::host {
namespace {

void own_handler(int) {}

void (*handler_of(int sig))(int) {
  struct sigaction current {};
  sigaction(sig, nullptr, &current);
  return current.sa_handler;
}

TEST(Signals, HandlersAreTheServersWhileItRunsAndTheProgramsAfter) {
  std::signal(SIGINT, own_handler);
  std::signal(SIGTERM, own_handler);
  std::signal(SIGPIPE, own_handler);
  {
    const ProcessSettings settings;
    EXPECT_NE(handler_of(SIGINT), own_handler);
    EXPECT_NE(handler_of(SIGTERM), own_handler);
    EXPECT_NE(handler_of(SIGPIPE), own_handler);
    clear_signal();
    EXPECT_EQ(signal_received(), 0);
    std::raise(SIGTERM);
    EXPECT_EQ(signal_received(), SIGTERM);
  }
  EXPECT_EQ(handler_of(SIGINT), own_handler);
  EXPECT_EQ(handler_of(SIGTERM), own_handler);
  EXPECT_EQ(handler_of(SIGPIPE), own_handler);
  clear_signal();
  EXPECT_EQ(signal_received(), 0);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGPIPE, SIG_DFL);
}

}  // namespace
}  // namespace tickwire::host
