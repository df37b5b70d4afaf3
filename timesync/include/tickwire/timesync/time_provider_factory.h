#pragma once
// The client time providers by name, for a runtime that lets its user pick
// one (ClientConfig::time_provider, tickwire-bots --time-provider), so the
// baselines bench/timesync measures ours against can be run in the real
// runtime too:
//   adaptive        ours, ClientTimeProvider with TimeProviderOptions::adaptive
//                   (leaving ClientConfig::time_provider unset gives the
//                   runtime's default, the same provider told the client's
//                   input interval and whether it draws)
//   n4e             Netcode for Entities' NetworkTimeSystem (N4eTimeProvider),
//                   its command age rebuilt from the arrival margins
//   rfc             the time RFC with Netcode for GameObjects' 50 ms server
//                   buffer (RfcClientTimeProvider)
//   rtt_half_slack  RTT / 2 plus a 2-tick slack (RttHalfSlackTimeProvider)
// Each gets what it gets in the bench: snapshot timing and round trips
// (all), the arrival reports (adaptive; n4e through its rebuilt age). The
// bench's n4e reads the command age its server appends to snapshots; the
// real server sends margins instead, see N4eCommandAgeFromMargins.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "tickwire/core/result.h"
#include "tickwire/timesync/client_time_provider.h"
#include "tickwire/timesync/time_provider.h"

namespace tickwire::timesync {

inline constexpr std::array<std::string_view, 4> kTimeProviderNames = {"adaptive", "n4e", "rfc", "rtt_half_slack"};

// "adaptive, n4e, rfc, rtt_half_slack", for help and error text.
std::string time_provider_names();
bool is_time_provider_name(std::string_view name);

struct TimeProviderOptions {
  // Snapshots per second, for n4e (its NetworkTickRate, which sizes its
  // interpolation buffer); 0: one per tick.
  std::uint32_t snapshot_rate = 0;
  // The adaptive provider's settings.
  ClientTimeProviderConfig adaptive;
};

// A provider for a client whose server ticks at `tick_rate`, or an error
// naming the bad name (and listing the good ones) or the bad rate.
Result<std::unique_ptr<TimeProvider>> make_time_provider(std::string_view name, std::uint32_t tick_rate,
                                                         const TimeProviderOptions& options = {});

using TimeProviderFactory = std::function<std::unique_ptr<TimeProvider>(std::uint32_t tick_rate)>;

// The same as a factory for ClientConfig::time_provider, the name checked
// now; the factory throws std::invalid_argument for a tick rate
// make_time_provider refuses.
Result<TimeProviderFactory> time_provider_factory(std::string_view name, const TimeProviderOptions& options = {});

}  // namespace tickwire::timesync
