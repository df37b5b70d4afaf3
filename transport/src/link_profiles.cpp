#include "tickwire/transport/link_profiles.h"

namespace tickwire::transport {
namespace {

LinkConditions base(std::int64_t latency_us, std::int64_t jitter_us, double loss) {
  LinkConditions c;
  c.latency = Duration::micros(latency_us);
  c.jitter = Duration::micros(jitter_us);
  c.loss = loss;
  return c;
}

LinkProfile symmetric(std::string name, std::string description, const LinkConditions& c) {
  return {std::move(name), std::move(description), c, c};
}

std::vector<LinkProfile> make_profiles() {
  std::vector<LinkProfile> p;
  p.push_back(symmetric("perfect", "no impairment", LinkConditions{}));
  p.push_back(symmetric("lan", "1 ms one-way, 0.2 ms jitter", base(1000, 200, 0.0)));
  p.push_back(symmetric("broadband", "20 ms one-way, 3 ms jitter, 1% loss", base(20000, 3000, 0.01)));

  LinkConditions wifi = base(30000, 12000, 0.03);
  wifi.delay_spike_rate = 0.01;  // 1% of packets stall a further 50 to 100 ms
  wifi.delay_spike_min = Duration::millis(50);
  wifi.delay_spike_max = Duration::millis(100);
  p.push_back(symmetric("wifi", "30 ms, 12 ms jitter, 1% delayed 50-100 ms more, 3% loss", wifi));

  // 2% independent loss plus bursts: the chain is bad 1/26 of the time and
  // loses 75% there, about 5% on average in runs of about 4 packets.
  LinkConditions mobile = base(75000, 20000, 0.02);
  mobile.burst_enter = 0.01;
  mobile.burst_exit = 0.25;
  mobile.burst_loss = 0.75;
  p.push_back(symmetric("mobile", "75 ms, 20 ms jitter, about 5% loss in bursts", mobile));

  // A queue on the path fills for 20 s, adding up to 150 ms, then drains
  // at once: slowly rising delay, over and over.
  LinkConditions rising = base(30000, 4000, 0.005);
  rising.rise_delay = Duration::millis(150);
  rising.rise_period = Duration::seconds(20);
  p.push_back(
      symmetric("rising", "30 ms, 4 ms jitter, a further 0 to 150 ms rising over each 20 s, 0.5% loss", rising));

  // The route changes every 7 s between two paths 60 ms apart.
  LinkConditions flapping = base(35000, 4000, 0.005);
  flapping.flap_delay = Duration::millis(60);
  flapping.flap_period = Duration::seconds(7);
  p.push_back(symmetric("route_flap", "35 ms or 95 ms, the route switching every 7 s, 4 ms jitter, 0.5% loss", flapping));

  p.push_back({"asymmetric", "10 ms up, 40 ms down", base(10000, 0, 0.0), base(40000, 0, 0.0)});

  // The harshest published soak for a game transport (yojimbo's).
  LinkConditions harsh = base(1'000'000, 100'000, 0.25);
  harsh.duplicate = 0.25;
  p.push_back(symmetric("harsh", "1000 ms, 100 ms jitter, 25% loss, 25% duplicates", harsh));
  return p;
}

}  // namespace

const std::vector<LinkProfile>& link_profiles() {
  // Built once and never changed: a constant table, not mutable state.
  static const std::vector<LinkProfile> kProfiles = make_profiles();
  return kProfiles;
}

std::optional<LinkProfile> find_link_profile(std::string_view name) {
  for (const auto& p : link_profiles()) {
    if (p.name == name) return p;
  }
  return std::nullopt;
}

}  // namespace tickwire::transport
