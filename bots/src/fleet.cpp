#include "fleet.h"

#include <string>

namespace tickwire::bots {

Fleet::Fleet(const Options& options, std::shared_ptr<const GameSetup> game, std::shared_ptr<spdlog::logger> logger)
    : ramp_(Duration::micros(static_cast<std::int64_t>(options.ramp_s * 1e6))) {
  const auto count = static_cast<std::size_t>(options.bots);
  bots_.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    BotConfig config;
    config.index = i;
    config.seed = bot_seed(options.seed, i);
    config.name = options.name + "-" + std::to_string(i);
    config.game = game;
    config.script = game->find(options.script);
    config.server = options.server;
    if (options.link) config.link = transport::ConditionedConfig{options.link->up, options.link->down, config.seed};
    config.schema_hash = options.schema_hash;
    config.token_key = options.token_key;
    config.security = options.security;
    config.timeout = Duration::micros(static_cast<std::int64_t>(options.timeout_s * 1e6));
    config.sync_test_interval = Duration::micros(static_cast<std::int64_t>(options.sync_test_interval_s * 1e6));
    config.thin = options.thin;
    config.input_interval = static_cast<std::uint32_t>(options.input_interval);
    config.time_provider = options.time_provider;
    config.codebook = options.codebook;
    config.adaptive_models = options.adaptive_models;
    config.logger = logger;
    bots_.push_back(std::make_unique<Bot>(std::move(config)));
  }
  for (const auto& [script, n] : options.evil) {
    for (int k = 0; k < n; ++k) {
      const std::size_t i = evil_.size();
      EvilBotConfig config;
      // Streams apart from the honest bots' with the same index.
      config.seed = bot_seed(options.seed ^ 0xE7037ED1A0B428DBULL, i);
      config.name = options.name + "-" + script + "-" + std::to_string(i);
      config.script = find_evil_script(script);
      config.game = game;
      config.server = options.server;
      config.token_key = options.token_key;
      config.security = options.security;
      config.timeout = Duration::micros(static_cast<std::int64_t>(options.timeout_s * 1e6));
      config.frame_rate = options.frame_rate;
      config.logger = logger;
      if (!bots_.empty()) {
        // Session attackers take the honest bots in turn as victims.
        const std::size_t victim = i % bots_.size();
        config.victim = [this, victim] { return victim_address(victim); };
        config.victim_connected = [this, victim] { return bots_[victim]->connected(); };
      }
      evil_.push_back(std::make_unique<EvilBot>(std::move(config)));
    }
  }
}

std::optional<transport::Address> Fleet::victim_address(std::size_t i) const {
  const Bot& bot = *bots_[i];
  if (!bot.connected() || bot.socket() == nullptr) return std::nullopt;
  const auto local = bot.socket()->local_address();
  if (!local) return std::nullopt;
  // The bot's socket listens on every interface; the server sees it at the
  // address the bot reaches the server from, loopback in an attack run.
  return transport::Address{"127.0.0.1", local->port};
}

bool Fleet::due(std::size_t i, std::size_t count, Time now) const {
  const auto last = static_cast<std::int64_t>(count) - 1;
  const Duration start_at = last > 0 ? ramp_ * static_cast<std::int64_t>(i) / last : Duration::zero();
  return now - *start_ >= start_at;
}

void Fleet::update(Time now) {
  if (!start_) start_ = now;
  for (std::size_t i = 0; i < bots_.size(); ++i) {
    Bot& bot = *bots_[i];
    if (!bot.started() && !due(i, bots_.size(), now)) continue;
    bot.update(now);
  }
  for (std::size_t i = 0; i < evil_.size(); ++i) {
    EvilBot& bot = *evil_[i];
    if (!bot.started() && !due(i, evil_.size(), now)) continue;
    bot.update(now);
  }
}

void Fleet::leave_all(Time now) {
  for (auto& bot : bots_) bot->leave(now);
  for (auto& bot : evil_) bot->leave(now);
}

void Fleet::drain(Time now) {
  for (auto& bot : bots_) bot->drain(now);
  for (auto& bot : evil_) bot->drain(now);
}

void Fleet::service(Time now) {
  for (auto& bot : bots_) {
    bot->service(now);
    bot->receive(now);
  }
}

bool Fleet::receive(Duration max_wait, const std::function<Time()>& clock) {
  sockets_.clear();
  bool any = false;
  for (const auto& bot : bots_) {
    sockets_.push_back(bot->socket());
    any = any || sockets_.back() != nullptr;
  }
  if (!any) return false;
  // Wake for traffic, or for a client's second sending of its inputs.
  const Time before = clock();
  Duration wait = max_wait;
  for (const auto& bot : bots_) {
    if (const auto due = bot->next_deadline()) wait = std::min(wait, std::max(*due - before, Duration::zero()));
  }
  waiter_.wait(sockets_, wait, ready_);
  const Time now = clock();
  for (const std::size_t i : ready_) bots_[i]->receive(now);
  for (const auto& bot : bots_) {
    if (const auto due = bot->next_deadline(); due && *due <= now) bot->receive(now);
  }
  return true;
}

std::vector<BotFigures> Fleet::figures(Time now) const {
  std::vector<BotFigures> out;
  out.reserve(bots_.size());
  for (const auto& bot : bots_) out.push_back(bot->figures(now));
  return out;
}

Outcome Fleet::outcome() const {
  Outcome o;
  o.bots = bots_.size();
  for (const auto& bot : bots_) {
    o.connected_ever += bot->connected_once() ? 1U : 0U;
    o.still_connected += bot->connected() ? 1U : 0U;
    for (const auto& [reason, count] : bot->disconnects()) o.disconnects[reason] += count;
    for (const auto& [reason, count] : bot->denials()) o.denials[reason] += count;
    o.churn_leaves += bot->leaves_by_script();
    if (o.first_desync.empty()) o.first_desync = bot->first_desync();
  }
  return o;
}

std::vector<EvilScriptOutcome> Fleet::evil_outcome(Time now) {
  std::vector<EvilEnd> ends;
  ends.reserve(evil_.size());
  for (auto& bot : evil_) {
    bot->conclude(now);
    ends.push_back(bot->end());
  }
  return tally_evil(ends);
}

std::uint32_t Fleet::tick_rate() const {
  for (const auto& bot : bots_) {
    if (const std::uint32_t rate = bot->tick_rate(); rate != 0) return rate;
  }
  return 60;
}

}  // namespace tickwire::bots
