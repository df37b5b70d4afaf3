#pragma once
// The time provider decides how network time advances: the time RFC's
// INetworkTimeProvider idea (initialize, advance, report a hard
// correction), with the inputs it may look at made explicit.
//
// A provider owns no clock: each call hands it the local time and, on a
// client, the measurements. Implementations:
//   ServerTimeProvider         the server: one timeline at a constant rate
//   ClientTimeProvider         ours: lead from server feedback, buffer from arrivals
//   RfcClientTimeProvider      the RFC's ClientNetworkTimeProvider, as written
//   N4eTimeProvider            Netcode for Entities' NetworkTimeSystem
//   RttHalfSlackTimeProvider   RTT/2 plus a fixed command slack
//   OneShotSyncTimeProvider    one clock sync at connect, then free-running

#include <cstdint>
#include <optional>
#include <string_view>

#include "tickwire/core/network_time.h"
#include "tickwire/core/time.h"

namespace tickwire::timesync {

class ClientMeasurements;
struct SnapshotObservation;

// The two timelines. On the server both hold the server time.
struct Timelines {
  explicit Timelines(std::uint32_t tick_rate) : predicted(tick_rate), interpolation(tick_rate) {}
  // Client: ahead of the server, so that the input for tick T arrives just
  // before the server runs T. Server: the server time.
  NetworkTime predicted;
  // Client: behind the newest snapshot, where remote entities are shown.
  NetworkTime interpolation;
  // The rate change each timeline was given in the last advance, relative to
  // the provider's base rate (which compensates clock drift): 0.02 runs 2%
  // fast. For statistics; the providers keep their own state.
  double predicted_correction = 0;
  double interpolation_correction = 0;
};

enum class Advance : std::uint8_t {
  kSmooth,     // time moved continuously
  kHardReset,  // at least one timeline jumped
};

struct ProviderInputs {
  Time now;                                    // local time of this call
  const ClientMeasurements* client = nullptr;  // empty on the server
};

class TimeProvider {
 public:
  virtual ~TimeProvider() = default;
  TimeProvider() = default;
  TimeProvider(const TimeProvider&) = delete;
  TimeProvider& operator=(const TimeProvider&) = delete;

  virtual std::string_view name() const = 0;
  // True once initialize() has what it needs (a client needs a snapshot and
  // a round trip first).
  virtual bool ready(const ProviderInputs& in) const = 0;
  // Sets both timelines from scratch; called once, when ready() first holds.
  virtual void initialize(Timelines& t, const ProviderInputs& in) = 0;
  // Advances both timelines by `elapsed` local time (never negative).
  virtual Advance advance(Timelines& t, const ProviderInputs& in, Duration elapsed) = 0;
  // The provider's estimate of the server's current time, or empty.
  virtual std::optional<NetworkTime> server_time(const ProviderInputs& in) const = 0;
  // Client: the measurements just took in a snapshot.
  virtual void on_snapshot(const ProviderInputs& /*in*/, const SnapshotObservation& /*obs*/) {}
};

}  // namespace tickwire::timesync
