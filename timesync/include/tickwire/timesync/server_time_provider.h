#pragma once
// The server's provider: one timeline from a start tick at exactly the rate
// of the server's clock, never adjusted. Clients follow it; it follows no one.

#include "tickwire/core/tick.h"
#include "tickwire/timesync/time_provider.h"

namespace tickwire::timesync {

class ServerTimeProvider final : public TimeProvider {
 public:
  explicit ServerTimeProvider(std::uint32_t tick_rate, Tick start = Tick(0));

  std::string_view name() const override { return "server"; }
  bool ready(const ProviderInputs& /*in*/) const override { return true; }
  void initialize(Timelines& t, const ProviderInputs& in) override;
  Advance advance(Timelines& t, const ProviderInputs& in, Duration elapsed) override;
  std::optional<NetworkTime> server_time(const ProviderInputs& in) const override;

 private:
  std::uint32_t rate_;
  Tick start_;
  std::optional<NetworkTime> now_;
};

}  // namespace tickwire::timesync
