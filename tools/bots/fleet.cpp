#include "fleet.h"

#include <string>

namespace tickwire::bots {

Fleet::Fleet(const Options& options, std::shared_ptr<spdlog::logger> logger)
    : ramp_(Duration::micros(static_cast<std::int64_t>(options.ramp_s * 1e6))) {
  const auto count = static_cast<std::size_t>(options.bots);
  bots_.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    BotConfig config;
    config.index = i;
    config.seed = bot_seed(options.seed, i);
    config.name = options.name + "-" + std::to_string(i);
    config.script = options.script;
    config.server = options.server;
    if (options.link) config.link = transport::ConditionedConfig{options.link->up, options.link->down, config.seed};
    config.schema_hash = options.schema_hash;
    config.timeout = Duration::micros(static_cast<std::int64_t>(options.timeout_s * 1e6));
    config.sync_test_interval = Duration::micros(static_cast<std::int64_t>(options.sync_test_interval_s * 1e6));
    config.logger = logger;
    bots_.push_back(std::make_unique<Bot>(std::move(config)));
  }
}

void Fleet::update(Time now) {
  if (!start_) start_ = now;
  const auto last = static_cast<std::int64_t>(bots_.size()) - 1;
  for (std::size_t i = 0; i < bots_.size(); ++i) {
    Bot& bot = *bots_[i];
    if (!bot.started()) {
      const Duration start_at = last > 0 ? ramp_ * static_cast<std::int64_t>(i) / last : Duration::zero();
      if (now - *start_ < start_at) continue;
    }
    bot.update(now);
  }
}

void Fleet::leave_all(Time now) {
  for (auto& bot : bots_) bot->leave(now);
}

void Fleet::drain(Time now) {
  for (auto& bot : bots_) bot->drain(now);
}

void Fleet::service(Time now) {
  for (auto& bot : bots_) bot->service(now);
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

std::uint32_t Fleet::tick_rate() const {
  for (const auto& bot : bots_) {
    if (const std::uint32_t rate = bot->tick_rate(); rate != 0) return rate;
  }
  return 60;
}

}  // namespace tickwire::bots
