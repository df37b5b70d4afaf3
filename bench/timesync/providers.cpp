#include "providers.h"

#include <cmath>
#include <stdexcept>

#include "tickwire/timesync/client_time_provider.h"
#include "tickwire/timesync/n4e_time_provider.h"
#include "tickwire/timesync/one_shot_sync_time_provider.h"
#include "tickwire/timesync/rfc_client_time_provider.h"
#include "tickwire/timesync/rtt_half_slack_time_provider.h"

namespace tickwire::bench {

const char* to_string(ProviderKind kind) {
  switch (kind) {
    case ProviderKind::kAdaptive: return "adaptive";
    case ProviderKind::kN4e: return "n4e";
    case ProviderKind::kRfc: return "rfc";
    case ProviderKind::kRfc2Tick: return "rfc_2tick";
    case ProviderKind::kRttHalfSlack: return "rtt_half_slack";
    case ProviderKind::kOneShot: return "oneshot";
  }
  return "unknown";
}

std::optional<ProviderKind> provider_from_string(const std::string& name) {
  for (const ProviderKind k : kAllProviders) {
    if (name == to_string(k)) return k;
  }
  return std::nullopt;
}

std::unique_ptr<timesync::TimeProvider> make_provider(ProviderKind kind, const ProviderSettings& settings) {
  switch (kind) {
    case ProviderKind::kAdaptive: {
      timesync::ClientTimeProviderConfig config;
      if (settings.adaptive_late_rate) config.lead.target_late_rate = *settings.adaptive_late_rate;
      if (settings.adaptive_late_event_cost_ms) {
        config.lead.late_event_cost = Duration::micros(std::llround(*settings.adaptive_late_event_cost_ms * 1000.0));
      }
      config.recurring_rises.enabled = settings.adaptive_hold;
      return std::make_unique<timesync::ClientTimeProvider>(config);
    }
    case ProviderKind::kN4e: {
      timesync::N4eTimeProviderConfig config;
      config.network_tick_rate = settings.send_rate;
      return std::make_unique<timesync::N4eTimeProvider>(config);
    }
    case ProviderKind::kRfc: {
      timesync::RfcClientTimeProviderConfig config;
      config.server_buffer = timesync::kNgoServerBuffer;
      return std::make_unique<timesync::RfcClientTimeProvider>(config);
    }
    case ProviderKind::kRfc2Tick: return std::make_unique<timesync::RfcClientTimeProvider>();
    case ProviderKind::kRttHalfSlack: return std::make_unique<timesync::RttHalfSlackTimeProvider>();
    case ProviderKind::kOneShot: return std::make_unique<timesync::OneShotSyncTimeProvider>();
  }
  throw std::logic_error("unknown provider");
}

}  // namespace tickwire::bench
