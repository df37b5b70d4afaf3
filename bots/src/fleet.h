#pragma once
// Every bot of a run, started evenly over the ramp and updated together
// once per frame. Evil bots (--evil) run beside the honest ones on their
// own schedule over the same ramp; their figures are kept apart.

#include <spdlog/logger.h>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "bot.h"
#include "evil.h"
#include "game_setup.h"
#include "metrics.h"
#include "options.h"
#include "tickwire/transport/enet_transport.h"

namespace tickwire::bots {

class Fleet {
 public:
  // Throws std::invalid_argument for a bad configuration.
  Fleet(const Options& options, std::shared_ptr<const GameSetup> game, std::shared_ptr<spdlog::logger> logger);

  // Starts the bots whose turn has come (counted from the first call) and
  // updates every started one.
  void update(Time now);
  // Goodbye from every bot, then frames that let the goodbyes go out.
  void leave_all(Time now);
  void drain(Time now);
  // Between frames, for conditioned links (see Bot::service).
  void service(Time now);
  // Between frames: waits at most `max_wait` for traffic to any bot and
  // lets the bots that have some read it at `clock()`. Bots on a
  // conditioned link read after service() instead. False, without
  // waiting, when no bot has a socket to wait on.
  bool receive(Duration max_wait, const std::function<Time()>& clock);

  // The honest bots only.
  std::vector<BotFigures> figures(Time now) const;
  Outcome outcome() const;
  // How every evil bot's run ended; silent ones read what they ignored
  // first. Call once, at the end of the run, before leave_all().
  std::vector<EvilScriptOutcome> evil_outcome(Time now);
  // The server's tick rate, once a bot has heard it; 60 before.
  std::uint32_t tick_rate() const;
  std::size_t size() const { return bots_.size(); }
  std::size_t evil_size() const { return evil_.size(); }

 private:
  // Honest bot i's address as the server sees it, once it is connected
  // over a plain socket: what a session attacker spoofs.
  std::optional<transport::Address> victim_address(std::size_t i) const;
  // Whether the i-th of `count` bots is due to start.
  bool due(std::size_t i, std::size_t count, Time now) const;

  std::vector<std::unique_ptr<Bot>> bots_;
  std::vector<std::unique_ptr<EvilBot>> evil_;
  std::vector<transport::EnetTransport*> sockets_;  // for receive(), reused
  std::vector<std::size_t> ready_;
  transport::EnetWaitSet waiter_;  // the sockets_ in one epoll set between waits
  Duration ramp_;
  std::optional<Time> start_;
};

}  // namespace tickwire::bots
