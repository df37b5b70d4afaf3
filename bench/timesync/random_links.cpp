#include "random_links.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "tickwire/transport/link_model.h"

namespace tickwire::bench {

namespace {

using transport::LinkConditions;

std::uint64_t mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// The parts of a link, each drawn from its own stream so that what one
// part draws never moves another.
enum class Part : std::uint64_t {
  kPick = 1,
  kBase,
  kJitter,
  kStalls,
  kLoss,
  kBurstLoss,
  kSteps,
  kRamps,
  kSawtooth,
  kFlaps,
  kDrift,
  kClockStep,
};

class Draw {
 public:
  Draw(std::uint64_t link_seed, Part part) : rng_(mix(link_seed ^ mix(static_cast<std::uint64_t>(part)))) {}
  double uniform(double lo, double hi) { return lo + (hi - lo) * rng_.uniform(); }
  double log_uniform(double lo, double hi) { return std::exp(uniform(std::log(lo), std::log(hi))); }
  double exponential(double mean) { return -mean * std::log(1.0 - rng_.uniform()); }
  bool chance(double p) { return rng_.uniform() < p; }  // draws even for p = 0 or 1: streams stay aligned

 private:
  transport::SimRng rng_;
};

Duration ms(double v) { return Duration::micros(std::llround(v * 1000.0)); }
Duration seconds(double v) { return Duration::micros(std::llround(v * 1e6)); }

std::string format(const char* pattern, double a = 0, double b = 0, double c = 0, double d = 0) {
  char buffer[160];
  (void)std::snprintf(buffer, sizeof buffer, pattern, a, b, c, d);
  return buffer;
}

// Which directions a part applies to: both half the time, else one.
struct Directions {
  bool up = true;
  bool down = true;
  const char* name() const { return up && down ? "both" : (up ? "up" : "down"); }
};

Directions draw_directions(Draw& d, double both = 0.5) {
  if (d.chance(both)) return {};
  const bool up = d.chance(0.5);
  return {up, !up};
}

void for_each(const Directions& dirs, LinkConditions& up, LinkConditions& down,
              const std::function<void(LinkConditions&, bool)>& f) {
  if (dirs.up) f(up, true);
  if (dirs.down) f(down, false);
}

// Appends a change from `from` to `to` starting at `t` over `over`: linear,
// or in stairs of `stair` when it is positive.
void transition(DelayTrack& track, Duration t, double from, double to, double over, double stair) {
  if (stair <= 0 || over <= 0) {
    track.corners.push_back({t, ms(from)});
    track.corners.push_back({t + seconds(over), ms(to)});
    return;
  }
  const int steps = std::max(1, static_cast<int>(std::ceil(std::fabs(to - from) / stair)));
  track.corners.push_back({t, ms(from)});
  for (int i = 1; i <= steps; ++i) {
    const Duration at = t + seconds(over * i / steps);
    const double level = from + (to - from) * std::min(1.0, static_cast<double>(i) / steps);
    track.corners.push_back({at, track.corners.back().extra});
    track.corners.push_back({at, ms(level)});
  }
}

struct Builder {
  BenchProfile& p;
  std::uint64_t seed;
  Duration length;
  std::vector<std::string> said;

  void base() {
    Draw d(seed, Part::kBase);
    const double up = d.log_uniform(5, 300);
    const bool near_symmetric = d.chance(0.5);
    const double ratio = d.log_uniform(0.8, 1.25);
    const double other = d.log_uniform(5, 300);
    const double down = near_symmetric ? std::clamp(up * ratio, 5.0, 300.0) : other;
    p.up.latency = ms(up);
    p.down.latency = ms(down);
    said.push_back(format("%.0f/%.0f ms", up, down));
  }

  void jitter() {
    Draw d(seed, Part::kJitter);
    const double kind = d.uniform(0, 1);
    const double amount = kind < 0.2 ? d.uniform(0, 0.5) : kind < 0.55 ? d.uniform(0.5, 4) : d.uniform(4, 20);
    for (LinkConditions* c : {&p.up, &p.down}) c->jitter = std::min(ms(amount), c->latency);
    if (kind < 0.85) {
      said.push_back(format("jitter %.1f ms", amount));
      return;
    }
    // Heavy-tailed: light jitter plus frequent short Pareto delays.
    const double base = d.uniform(1, 5), rate = d.uniform(0.01, 0.08), from = d.uniform(3, 10);
    const double shape = d.uniform(1.1, 2.0), cap = d.uniform(50, 200);
    for (LinkConditions* c : {&p.up, &p.down}) {
      c->jitter = std::min(ms(base), c->latency);
      c->delay_spike_rate = rate;
      c->delay_spike_min = ms(from);
      c->delay_spike_max = ms(cap);
      c->delay_spike_pareto_shape = shape;
    }
    said.push_back(format("jitter %.1f ms + tail %.1f%% from %.0f ms (Pareto %.1f)", base, 100 * rate, from, shape));
  }

  void stalls() {
    Draw d(seed, Part::kStalls);
    const Directions dirs = draw_directions(d);
    const double rate = d.log_uniform(0.001, 0.01), from = d.uniform(20, 80), cap = d.uniform(150, 500);
    const double shape = d.chance(0.6) ? d.uniform(1.1, 2.0) : 0.0;
    for_each(dirs, p.up, p.down, [&](LinkConditions& c, bool) {
      if (c.delay_spike_rate > 0) {
        // On top of a heavy-tailed jitter: one heavier tail from its start.
        c.delay_spike_rate += rate;
        c.delay_spike_max = ms(cap);
        c.delay_spike_pareto_shape = 1.2;
        return;
      }
      c.delay_spike_rate = rate;
      c.delay_spike_min = ms(from);
      c.delay_spike_max = ms(cap);
      c.delay_spike_pareto_shape = shape;
    });
    said.push_back(format("FIFO stalls %.2f%% %.0f-%.0f ms", 100 * rate, from, cap) +
                   (shape > 0 ? format(" (Pareto %.1f)", shape) : " (uniform)") + " " + dirs.name());
  }

  void loss() {
    Draw d(seed, Part::kLoss);
    const double up = d.log_uniform(0.001, 0.03);
    const bool same = d.chance(0.5);
    const double other = d.log_uniform(0.001, 0.03);
    p.up.loss = up;
    p.down.loss = same ? up : other;
    said.push_back(format("loss %.2f/%.2f%%", 100 * p.up.loss, 100 * p.down.loss));
  }

  void burst_loss() {
    Draw d(seed, Part::kBurstLoss);
    const Directions dirs = draw_directions(d);
    std::string text = "GE loss";
    for_each(dirs, p.up, p.down, [&](LinkConditions& c, bool up) {
      c.burst_enter = d.log_uniform(0.002, 0.02);
      c.burst_exit = d.uniform(0.1, 0.5);
      c.burst_loss = d.uniform(0.5, 1.0);
      text += format(up ? " up %.3f/%.2f/%.2f" : " down %.3f/%.2f/%.2f", c.burst_enter, c.burst_exit, c.burst_loss);
    });
    said.push_back(text);
  }

  // Levels that step up and down by random amounts at random times.
  void steps() {
    Draw d(seed, Part::kSteps);
    DelayTrack track;
    const Directions dirs = draw_directions(d, 0.6);
    track.up = dirs.up;
    track.down = dirs.down;
    const double gap = d.uniform(8, 40);
    double level = 0;
    track.corners.push_back({Duration::zero(), Duration::zero()});
    for (double t = d.exponential(gap); seconds(t) <= length; t += d.exponential(gap)) {
      double size = d.uniform(10, 150) * (d.chance(0.5) ? 1 : -1);
      if (level + size < 0 || level + size > 200) size = -size;
      const double next = std::clamp(level + size, 0.0, 200.0);
      transition(track, seconds(t), level, next, 0, 0);
      level = next;
    }
    p.tracks.push_back(track);
    said.push_back(format("steps of 10-150 ms every ~%.0f s ", gap) + dirs.name());
  }

  // Rises over seconds, holds, falls back, again after a while.
  void ramps() {
    Draw d(seed, Part::kRamps);
    DelayTrack track;
    const Directions dirs = draw_directions(d);
    track.up = dirs.up;
    track.down = dirs.down;
    const double height = d.uniform(20, 200), rise = d.uniform(5, 60), hold = d.uniform(0, 30);
    const double fall = d.uniform(1, 60), rest = d.uniform(5, 60);
    for (double t = d.uniform(0, 30); seconds(t) <= length; t += rise + hold + fall + rest) {
      transition(track, seconds(t), 0, height, rise, 0);
      transition(track, seconds(t + rise + hold), height, 0, fall, 0);
    }
    p.tracks.push_back(track);
    said.push_back(format("ramps +%.0f ms over %.0f s, hold %.0f s, down over %.0f s ", height, rise, hold, fall) +
                   dirs.name());
  }

  // A queue filling and draining: slowly up and at once down, or the
  // other way round; the slow side smooth or in stairs.
  void sawtooth() {
    Draw d(seed, Part::kSawtooth);
    DelayTrack track;
    const Directions dirs = draw_directions(d);
    track.up = dirs.up;
    track.down = dirs.down;
    const double height = d.uniform(30, 250), slow = d.uniform(5, 60), fast = d.uniform(0.3, 4);
    const bool fills_slowly = !d.chance(0.3);
    const double stair = d.chance(0.4) ? d.uniform(10, 30) : 0.0;
    const double rest = d.uniform(0, 15);
    const double fill = fills_slowly ? slow : fast, drain = fills_slowly ? fast : slow;
    for (double t = d.uniform(0, 10); seconds(t) <= length; t += fill + drain + rest) {
      transition(track, seconds(t), 0, height, fill, fills_slowly ? stair : 0);
      transition(track, seconds(t + fill), height, 0, drain, fills_slowly ? 0 : stair);
    }
    p.tracks.push_back(track);
    said.push_back(format("bloat 0-%.0f ms filling in %.1f s, draining in %.1f s", height, fill, drain) +
                   (stair > 0 ? format(" (stairs of %.0f ms)", stair) : "") + " " + dirs.name());
  }

  // A route switching between two paths at random times.
  void flaps() {
    Draw d(seed, Part::kFlaps);
    DelayTrack track;
    const Directions dirs = draw_directions(d, 0.7);
    track.up = dirs.up;
    track.down = dirs.down;
    const double extra = d.uniform(15, 150), hold = d.uniform(2, 30);
    bool longer = false;
    track.corners.push_back({Duration::zero(), Duration::zero()});
    for (double t = d.exponential(hold); seconds(t) <= length; t += d.exponential(hold)) {
      transition(track, seconds(t), longer ? extra : 0, longer ? 0 : extra, 0, 0);
      longer = !longer;
    }
    p.tracks.push_back(track);
    said.push_back(format("route flaps +%.0f ms every ~%.0f s ", extra, hold) + dirs.name());
  }

  void drift() {
    Draw d(seed, Part::kDrift);
    const double ppm = d.log_uniform(20, 2000) * (d.chance(0.5) ? 1 : -1);
    p.drift_ppm = ppm;
    said.push_back(format("drift %+.0f ppm", ppm));
  }

  void clock_step() {
    Draw d(seed, Part::kClockStep);
    const double at = d.uniform(10, 100), by = d.uniform(10, 500);
    if (seconds(at) > length) return;  // not within this run
    p.clock_steps.push_back(ClockStep{seconds(at), ms(by)});
    said.push_back(format("clock +%.0f ms at %.0f s", by, at));
  }
};

}  // namespace

std::string RandomLinkId::name() const { return "r" + std::to_string(family_seed) + ":" + std::to_string(index); }

std::uint64_t RandomLinkId::link_seed() const { return mix(mix(family_seed) ^ (0xA5A5A5A5ULL + index)); }

std::optional<RandomLinkId> parse_random_link(const std::string& text) {
  std::string s = text;
  if (!s.empty() && s.front() == 'r') s.erase(0, 1);
  const std::size_t colon = s.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size()) return std::nullopt;
  const std::string seed = s.substr(0, colon), index = s.substr(colon + 1);
  const auto digits = [](const std::string& v) {
    return v.size() <= 19 && std::all_of(v.begin(), v.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  };
  if (!digits(seed) || !digits(index) || index.size() > 9) return std::nullopt;
  return RandomLinkId{std::stoull(seed), static_cast<std::uint32_t>(std::stoul(index))};
}

BenchProfile draw_random_link(const RandomLinkId& id, Duration length) {
  BenchProfile p;
  p.name = id.name();
  Builder b{p, id.link_seed(), length, {}};
  b.base();
  b.jitter();
  Draw pick(id.link_seed(), Part::kPick);
  // Each part on its own chance, so that links combine them freely; the
  // draws are made in a fixed order whatever is picked.
  const std::pair<double, void (Builder::*)()> parts[] = {
      {0.30, &Builder::stalls}, {0.60, &Builder::loss},  {0.30, &Builder::burst_loss},
      {0.30, &Builder::steps},  {0.20, &Builder::ramps}, {0.25, &Builder::sawtooth},
      {0.20, &Builder::flaps},  {0.30, &Builder::drift}, {0.15, &Builder::clock_step},
  };
  std::vector<void (Builder::*)()> chosen;
  for (const auto& [chance, part] : parts) {
    if (pick.chance(chance)) chosen.push_back(part);
  }
  for (const auto part : chosen) (b.*part)();
  for (const char* sep = ""; const std::string& s : b.said) {
    p.description += sep + s;
    sep = "; ";
  }
  return p;
}

}  // namespace tickwire::bench
