#pragma once
// Which time to rewind to for a client's shot. The client claims the view
// time it drew remote entities at (view_claim.h); the claim is the
// client's word, so the server holds it against its own estimate for that
// client and against the history it keeps:
//
//   1. No claim, or a claim further than `tolerance` from the server's
//      estimate (round trip plus interpolation delay before the input
//      arrived): replaced by the estimate. Source uses the same rule with
//      200 ms (sv_unlag's "fix delta" in CLagCompensationManager).
//   2. The time then used is clamped into the history's range: never
//      before max_rewind ago (or the oldest tick held), never after the
//      newest tick recorded.
//
// A cheater can therefore pick any view time within the tolerance of the
// honest one, and never one outside max_rewind: the advantage a forged
// claim buys is bounded by both settings (docs/lag-compensation.md).
// Counters say how often each rule fired, per policy (one per client
// keeps them per client).

#include <cstdint>
#include <optional>

#include "tickwire/core/network_time.h"
#include "tickwire/core/time.h"
#include "tickwire/lagcomp/hit_history.h"

namespace tickwire::lagcomp {

// The largest tolerance a policy accepts; beyond it the estimate would
// never be used.
inline constexpr Duration kMaxTolerance = Duration::seconds(1);

struct RewindPolicyConfig {
  Duration tolerance = Duration::millis(200);  // 0..kMaxTolerance
};

struct RewindDecision {
  NetworkTime time;
  bool replaced = false;  // the claim was missing or too far from the estimate
  bool clamped = false;   // moved into the history's range
};

struct RewindStats {
  std::uint64_t decisions = 0;
  std::uint64_t as_claimed = 0;  // used unchanged
  std::uint64_t unclaimed = 0;   // no claim: the estimate used (also counted in replaced)
  std::uint64_t replaced = 0;
  std::uint64_t clamped = 0;
  // Entities whose rewind for this client's queries stopped at a teleport
  // (the query results' teleport_blocked, handed to count_query).
  std::uint64_t teleport_blocked = 0;
};

// The rules above as a pure function. `estimate` and `claimed` must be of
// the range's tick rate (another rate throws std::invalid_argument, as
// NetworkTime's arithmetic does: a programming error, not a peer's).
RewindDecision decide_rewind(const std::optional<NetworkTime>& claimed, const NetworkTime& estimate,
                             const TimeRange& range, Duration tolerance);

// The server's own estimate of a client's view time for an input that
// arrived at server time `arrival`: the client drew remote entities one
// round trip (the snapshot's way down, the input's way up) and its
// interpolation delay before then.
NetworkTime estimate_view_time(const NetworkTime& arrival, Duration round_trip, Duration interpolation_delay);

class RewindPolicy {
 public:
  // Throws std::invalid_argument for a tolerance outside 0..kMaxTolerance.
  explicit RewindPolicy(const RewindPolicyConfig& config = {});

  RewindDecision decide(const std::optional<NetworkTime>& claimed, const NetworkTime& estimate, const TimeRange& range);
  // Adds a query's teleport-blocked count to the stats.
  void count_teleport_blocked(std::uint32_t n) { stats_.teleport_blocked += n; }

  const RewindPolicyConfig& config() const { return config_; }
  const RewindStats& stats() const { return stats_; }

 private:
  RewindPolicyConfig config_;
  RewindStats stats_;
};

}  // namespace tickwire::lagcomp
