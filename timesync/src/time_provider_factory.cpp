#include "tickwire/timesync/time_provider_factory.h"

#include <algorithm>
#include <stdexcept>

#include "tickwire/core/network_time.h"
#include "tickwire/timesync/n4e_time_provider.h"
#include "tickwire/timesync/rfc_client_time_provider.h"
#include "tickwire/timesync/rtt_half_slack_time_provider.h"

namespace tickwire::timesync {

namespace {

Error unknown_name(std::string_view name) {
  return Error{ErrorCode::kInvalidArgument,
               "unknown time provider '" + std::string(name) + "' (one of: " + time_provider_names() + ")"};
}

std::unique_ptr<TimeProvider> make_known(std::string_view name, const TimeProviderOptions& options) {
  if (name == "adaptive") return std::make_unique<ClientTimeProvider>(options.adaptive);
  if (name == "n4e") {
    N4eTimeProviderConfig config;
    config.network_tick_rate = options.snapshot_rate;
    config.command_age_from_margins = true;  // the real server sends margins, not the age
    return std::make_unique<N4eTimeProvider>(config);
  }
  if (name == "rfc") {
    RfcClientTimeProviderConfig config;
    config.server_buffer = kNgoServerBuffer;  // as bench/timesync's `rfc`
    return std::make_unique<RfcClientTimeProvider>(config);
  }
  return std::make_unique<RttHalfSlackTimeProvider>();
}

}  // namespace

std::string time_provider_names() {
  std::string names;
  for (const std::string_view name : kTimeProviderNames) {
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names;
}

bool is_time_provider_name(std::string_view name) {
  return std::find(kTimeProviderNames.begin(), kTimeProviderNames.end(), name) != kTimeProviderNames.end();
}

Result<std::unique_ptr<TimeProvider>> make_time_provider(std::string_view name, std::uint32_t tick_rate,
                                                         const TimeProviderOptions& options) {
  if (!is_time_provider_name(name)) return unknown_name(name);
  if (tick_rate == 0 || tick_rate > NetworkTime::kMaxTickRate) {
    return Error{ErrorCode::kInvalidArgument, "tick rate " + std::to_string(tick_rate) + " is outside 1.." +
                                                  std::to_string(NetworkTime::kMaxTickRate)};
  }
  if (options.snapshot_rate > tick_rate) {
    return Error{ErrorCode::kInvalidArgument, "snapshot rate " + std::to_string(options.snapshot_rate) +
                                                  " is above the tick rate " + std::to_string(tick_rate)};
  }
  try {
    return make_known(name, options);
  } catch (const std::invalid_argument& e) {
    return Error{ErrorCode::kInvalidArgument, std::string(name) + ": " + e.what()};
  }
}

Result<TimeProviderFactory> time_provider_factory(std::string_view name, const TimeProviderOptions& options) {
  if (!is_time_provider_name(name)) return unknown_name(name);
  return TimeProviderFactory([name = std::string(name), options](std::uint32_t tick_rate) {
    auto made = make_time_provider(name, tick_rate, options);
    if (!made) throw std::invalid_argument(made.error().detail);
    return std::move(made).value();
  });
}

}  // namespace tickwire::timesync
