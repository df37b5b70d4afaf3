#include "profiles.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

#include "tickwire/transport/link_profiles.h"

namespace tickwire::bench {

namespace {

using transport::LinkConditions;

BenchProfile shared(const std::string& name) {
  const auto p = transport::find_link_profile(name);
  if (!p) throw std::logic_error("link profile missing: " + name);
  return BenchProfile{p->name, p->description, p->up, p->down, 0, {}, std::nullopt, {}, {}};
}

LinkConditions with_latency(LinkConditions c, Duration latency) {
  c.latency = latency;
  return c;
}

LinkConditions link(std::int64_t latency_ms, std::int64_t jitter_ms, double loss) {
  LinkConditions c;
  c.latency = Duration::millis(latency_ms);
  c.jitter = Duration::millis(jitter_ms);
  c.loss = loss;
  return c;
}

BenchProfile symmetric(std::string name, std::string description, const LinkConditions& c) {
  return BenchProfile{std::move(name), std::move(description), c, c, 0, {}, std::nullopt, {}, {}};
}

// The harsh profiles: each is unkind in one way the others are not.
void add_harsh(std::vector<BenchProfile>& out) {
  // Wifi's stalls: rare hold-ups, mostly short but heavy-tailed (Pareto,
  // shape 1.3, from 20 ms, capped at 500 ms: one in ten over 110 ms), about
  // one every 5 s each way at 60 packets a second. The link stays first in,
  // first out, so what was sent behind a stalled datagram waits too.
  const LinkConditions calm = link(40, 4, 0.01);
  LinkConditions stalling = calm;
  stalling.delay_spike_rate = 0.003;
  stalling.delay_spike_min = Duration::millis(20);
  stalling.delay_spike_max = Duration::millis(500);
  stalling.delay_spike_pareto_shape = 1.3;
  out.push_back(
      symmetric("stalls", "40 ms, 4 ms jitter, 1% loss; 0.3% of packets stall 20-500 ms (Pareto 1.3), FIFO", stalling));
  out.push_back(symmetric("stalls_baseline", "stalls without the stalls: 40 ms, 4 ms jitter, 1% loss", calm));

  // Bufferbloat: a saturated link's queue fills, the delay creeping up
  // 20 -> 200 ms over a minute, then drains at once, again and again.
  BenchProfile bloat = symmetric("bufferbloat",
                                 "20 ms rising to 200 ms over 60 s then back at once, repeating (both ways); "
                                 "2 ms jitter, 0.5% loss",
                                 link(20, 2, 0.005));
  bloat.wave = LatencyWave{
      LatencyWave::Shape::kSawtooth, Duration::millis(20), Duration::millis(200), Duration::seconds(60), true, true};
  out.push_back(bloat);

  // A route flapping between two paths every 30 s.
  BenchProfile flap = symmetric(
      "flapping", "15 ms and 70 ms one-way in turn, 30 s each (both ways); 2 ms jitter, 0.5% loss", link(15, 2, 0.005));
  flap.wave = LatencyWave{
      LatencyWave::Shape::kSquare, Duration::millis(15), Duration::millis(70), Duration::seconds(30), true, true};
  out.push_back(flap);

  // Losses in bursts on the uplink only (a busy radio's retry limit): the
  // chain goes bad for 1 / 0.2 = 5 packets on average and loses all of
  // them there, about 2.4% of packets in all. Redundant copies of an input
  // ride in the next packets, so a long burst loses inputs outright.
  LinkConditions bursty = link(30, 3, 0.0);
  bursty.burst_enter = 0.005;
  bursty.burst_exit = 0.2;
  bursty.burst_loss = 1.0;
  out.push_back(BenchProfile{"bursty_uplink",
                             "30 ms, 3 ms jitter; uplink loses bursts of 5 packets on average (2.4%), "
                             "downlink 0.5% loss",
                             bursty,
                             link(30, 3, 0.005),
                             0,
                             {},
                             std::nullopt,
                             {},
                             {}});

  // Bloat on the uplink alone (an upload saturating it): the inputs' delay
  // grows while snapshots keep coming quickly, so half the round trip is no
  // longer either way's delay.
  BenchProfile up_bloat{"uplink_bloat",
                        "uplink 20 ms rising to 200 ms over 40 s then back at once, repeating; downlink 20 ms; "
                        "2 ms jitter, 0.5% loss",
                        link(20, 2, 0.005),
                        link(20, 2, 0.005),
                        0,
                        {},
                        LatencyWave{LatencyWave::Shape::kSawtooth, Duration::millis(20), Duration::millis(200),
                                    Duration::seconds(40), true, false},
                        {},
                        {}};
  out.push_back(up_bloat);
}

}  // namespace

Duration LatencyWave::at(Duration since_start) const {
  const std::int64_t t = std::max<std::int64_t>(0, since_start.micros());
  const std::int64_t p = std::max<std::int64_t>(1, period.micros());
  if (shape == Shape::kSquare) return (t / p) % 2 == 0 ? low : high;
  const double phase = static_cast<double>(t % p) / static_cast<double>(p);
  return low + Duration::micros(std::llround(static_cast<double>((high - low).micros()) * phase));
}

Duration DelayTrack::at(Duration since_start) const {
  if (corners.empty()) return Duration::zero();
  if (repeat > Duration::zero() && since_start >= repeat) {
    since_start = Duration::micros(since_start.micros() % repeat.micros());
  }
  if (since_start < corners.front().at) return corners.front().extra;
  // The last corner at or before `since_start`: after a jump, the new value.
  const auto next = std::upper_bound(corners.begin(), corners.end(), since_start,
                                     [](Duration t, const Corner& c) { return t < c.at; });
  const Corner& from = *std::prev(next);
  if (next == corners.end()) return from.extra;
  const double share = static_cast<double>((since_start - from.at).micros()) /
                       static_cast<double>(std::max<std::int64_t>(1, (next->at - from.at).micros()));
  return from.extra + Duration::micros(std::llround(static_cast<double>((next->extra - from.extra).micros()) * share));
}

Duration BenchProfile::clock_jump(Duration since_start) const {
  Duration total = Duration::zero();
  for (const ClockStep& s : clock_steps) {
    if (s.at <= since_start) total += s.by;
  }
  return total;
}

namespace {

// The times a track's value changes at: its corners, and every kWaveStep
// along a sloping segment, within [0, length].
void add_track_times(const DelayTrack& track, Duration length, std::vector<Duration>& times) {
  const bool repeats = track.repeat > Duration::zero();
  for (Duration offset = Duration::zero(); offset <= length; offset += track.repeat) {
    if (repeats) times.push_back(offset);  // where the pattern starts again
    for (std::size_t i = 0; i < track.corners.size(); ++i) {
      const DelayTrack::Corner& c = track.corners[i];
      if (offset + c.at <= length) times.push_back(std::max(Duration::zero(), offset + c.at));
      if (i + 1 == track.corners.size()) continue;
      const DelayTrack::Corner& n = track.corners[i + 1];
      if (n.extra == c.extra) continue;
      for (Duration t = c.at + kWaveStep; t < n.at && offset + t <= length; t += kWaveStep) times.push_back(offset + t);
    }
    if (!repeats) break;
  }
}

}  // namespace

std::vector<LinkStep> link_schedule(const BenchProfile& profile, Duration length) {
  std::vector<Duration> times;
  for (const LinkStep& s : profile.steps) times.push_back(s.at);
  if (const auto& w = profile.wave) {
    const Duration every = w->shape == LatencyWave::Shape::kSawtooth ? kWaveStep : w->period;
    for (Duration t = Duration::zero(); t <= length; t += every) times.push_back(t);
  }
  if (!profile.tracks.empty()) times.push_back(Duration::zero());
  for (const DelayTrack& track : profile.tracks) add_track_times(track, length, times);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());

  std::vector<LinkStep> out;
  for (const Duration t : times) {
    LinkStep now{t, profile.up, profile.down};
    for (const LinkStep& s : profile.steps) {
      if (s.at <= t) now = LinkStep{t, s.up, s.down};  // steps are in time order
    }
    if (const auto& w = profile.wave) {
      if (w->up) now.up.latency = w->at(t);
      if (w->down) now.down.latency = w->at(t);
    }
    for (const DelayTrack& track : profile.tracks) {
      const Duration extra = track.at(t);
      if (track.up) now.up.latency = std::max(Duration::zero(), now.up.latency + extra);
      if (track.down) now.down.latency = std::max(Duration::zero(), now.down.latency + extra);
    }
    out.push_back(now);
  }
  return out;
}

std::vector<BenchProfile> builtin_profiles() {
  std::vector<BenchProfile> out;
  for (const char* name : {"lan", "broadband", "wifi", "mobile", "asymmetric"}) out.push_back(shared(name));

  // Broadband whose route lengthens to 60 ms each way at minute 3 and
  // returns at minute 6.
  BenchProfile route = shared("broadband");
  route.name = "route_change";
  route.description = "broadband, 20 ms one-way stepping to 60 ms at 3 min and back at 6 min";
  route.steps.push_back(LinkStep{Duration::seconds(180), with_latency(route.up, Duration::millis(60)),
                                 with_latency(route.down, Duration::millis(60))});
  route.steps.push_back(LinkStep{Duration::seconds(360), route.up, route.down});
  out.push_back(route);

  BenchProfile drift = shared("broadband");
  drift.name = "drift";
  drift.description = "broadband, client clocks 1000 ppm fast";
  drift.drift_ppm = 1000;
  out.push_back(drift);

  add_harsh(out);
  return out;
}

}  // namespace tickwire::bench
