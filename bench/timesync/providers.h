#pragma once
// The time providers the benchmark compares, by the names the table and the
// JSON use. docs/time.md ("The other providers") says what each is.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "tickwire/timesync/time_provider.h"

namespace tickwire::bench {

enum class ProviderKind : std::uint8_t {
  kAdaptive,      // ours, ClientTimeProvider
  kN4e,           // Netcode for Entities' NetworkTimeSystem
  kRfc,           // the time RFC with Netcode for GameObjects' 50 ms server buffer
  kRfc2Tick,      // the time RFC with the 2-tick server buffer
  kRttHalfSlack,  // RTT / 2 plus a 2-tick slack, steered like ours
  kOneShot,       // one clock sync at connect
};

// In the order runs and tables list them: ours first, then the baselines.
inline constexpr std::array<ProviderKind, 6> kAllProviders = {ProviderKind::kAdaptive,     ProviderKind::kN4e,
                                                              ProviderKind::kRfc,          ProviderKind::kRfc2Tick,
                                                              ProviderKind::kRttHalfSlack, ProviderKind::kOneShot};
const char* to_string(ProviderKind kind);
std::optional<ProviderKind> provider_from_string(const std::string& name);

struct ProviderSettings {
  std::uint32_t send_rate = 60;                       // snapshots per second, for those that must be told
  std::optional<double> adaptive_late_rate;           // overrides ours' target late rate
  std::optional<double> adaptive_late_event_cost_ms;  // overrides ours' late event cost
  bool adaptive_hold = true;                          // ours' hold for recurring rises
};

std::unique_ptr<timesync::TimeProvider> make_provider(ProviderKind kind, const ProviderSettings& settings);

}  // namespace tickwire::bench
