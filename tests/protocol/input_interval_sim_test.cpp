// Input packets that each stand for several ticks (ClientConfig::
// input_interval), in whole matches over the simulated network: the uplink
// carries fewer packets, no input is lost to the batching, and the lead
// grows by about the wait the batching adds, no more.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "sim_match.h"

namespace tickwire {
namespace {

using testing::SimMatch;

struct IntervalRun {
  double packets_out_per_tick = 0;  // every packet a client sent, per tick played
  std::uint64_t late_or_missing = 0;
  std::uint64_t inputs = 0;
  double lead_ms = 0;  // mean over the clients at the end
  std::uint64_t mispredictions = 0;
  int mismatched_after_rest = 0;
};

// Three players on a 60-ms round trip with jitter and 1% loss, walking
// circles for 40 s, then standing still for 2 s.
IntervalRun play(std::uint32_t interval, std::uint64_t seed) {
  std::cout << "seed=" << seed << " input_interval=" << interval << "\n";
  SimMatch m(seed);
  transport::LinkConditions link;
  link.latency = Duration::millis(30);
  link.jitter = Duration::millis(4);
  link.loss = 0.01;
  m.net.set_default_link(link);
  m.client_frame = Duration::micros(16667);
  client::ClientConfig config;
  config.input_interval = interval;
  for (int i = 0; i < 3; ++i) m.add_client(config);
  for (auto& c : m.clients) EXPECT_TRUE(c->connect(m.server_address, m.clock.now()).ok());
  EXPECT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));

  bool playing = true;
  m.on_frame = [&](Time now) {
    const float t = static_cast<float>(now.micros()) * 1e-6F;
    for (std::size_t i = 0; i < m.inputs.size(); ++i) {
      arena::Input in;
      if (playing) {
        const float phase = t * 0.7F + static_cast<float>(i) * 2.0F;
        in.move = {std::cos(phase), std::sin(phase)};
        in.aim = phase;
      }
      m.inputs[i] = in;
    }
  };
  // The time system's learning, then a measured stretch.
  m.run_for(Duration::seconds(10));
  std::uint64_t packets_before = 0;
  for (auto& c : m.clients) packets_before += c->stats().packets_out;
  const std::uint64_t missing_before = m.server->stats().missing_inputs;
  const std::uint64_t late_before = m.server->stats().late_inputs;
  const Tick tick_before = m.server->tick();
  m.run_for(Duration::seconds(30));
  EXPECT_TRUE(m.all_connected());

  IntervalRun r;
  std::uint64_t packets = 0;
  for (auto& c : m.clients) {
    packets += c->stats().packets_out;
    r.lead_ms += static_cast<double>(c->stats().lead.micros()) / 1000.0 / static_cast<double>(m.clients.size());
    r.mispredictions += c->stats().mispredictions;
  }
  const auto ticks = static_cast<double>(m.server->tick() - tick_before);
  r.packets_out_per_tick =
      static_cast<double>(packets - packets_before) / ticks / static_cast<double>(m.clients.size());
  r.late_or_missing =
      (m.server->stats().missing_inputs - missing_before) + (m.server->stats().late_inputs - late_before);
  r.inputs = static_cast<std::uint64_t>(ticks) * m.clients.size();

  // Standing still, every client's prediction settles on the server's
  // state: the batching leaves nothing for the corrections to chase.
  playing = false;
  m.run_for(Duration::seconds(2));
  for (auto& c : m.clients) {
    const auto id = arena::find_player(m.server->world(), *c->client_id());
    const auto* predicted = c->predicted_world();
    if (!id || predicted == nullptr || !c->avatar() || !predicted->contains(*c->avatar())) {
      ++r.mismatched_after_rest;
      continue;
    }
    const auto server_at = m.server->world().get(*id, arena::schema().player_position);
    const auto client_at = predicted->get(*c->avatar(), arena::schema().player_position);
    if (!(server_at == client_at)) ++r.mismatched_after_rest;
  }
  std::cout << "  packets out per client tick " << r.packets_out_per_tick << ", late or missing " << r.late_or_missing
            << " of " << r.inputs << ", lead " << r.lead_ms << " ms, mispredictions " << r.mispredictions << "\n";
  return r;
}

TEST(InputIntervalSim, TwoTicksAPacketHalveTheUplinksPacketsAndCostAboutATickOfLead) {
  const IntervalRun every = play(1, 7101);
  const IntervalRun paired = play(2, 7101);

  // At 1% loss each input packet also goes out a second time (the
  // redundancy policy's resend), so about two packets a tick, and the
  // reports once a second; with two ticks a packet, about half as many.
  EXPECT_GT(every.packets_out_per_tick, 0.95);
  const double ratio = paired.packets_out_per_tick / every.packets_out_per_tick;
  EXPECT_GT(ratio, 0.45);
  EXPECT_LT(ratio, 0.6);

  // The copies (and the second sending of each packet) still cover the
  // link's losses; the lead covers the wait.
  EXPECT_LT(static_cast<double>(every.late_or_missing), 0.002 * static_cast<double>(every.inputs));
  EXPECT_LT(static_cast<double>(paired.late_or_missing), 0.002 * static_cast<double>(paired.inputs));

  // The first input of a pair waits a tick (16.7 ms) for the second: the
  // lead covers it, and not much more.
  const double added = paired.lead_ms - every.lead_ms;
  EXPECT_GT(added, 8.0);
  EXPECT_LT(added, 28.0);

  EXPECT_EQ(every.mismatched_after_rest, 0);
  EXPECT_EQ(paired.mismatched_after_rest, 0);
}

// Copies per input as the server received them, on a clean link whose
// round trip (600 ms, 36 ticks) is longer than the copies reach back, so
// that no acknowledgement trims a packet.
double copies_per_input(std::uint32_t interval, std::uint64_t seed) {
  std::cout << "seed=" << seed << " input_interval=" << interval << "\n";
  SimMatch m(seed);
  transport::LinkConditions link;
  link.latency = Duration::millis(300);
  m.net.set_default_link(link);
  m.client_frame = Duration::micros(16667);
  client::ClientConfig config;
  config.input_interval = interval;
  client::Client& c = m.add_client(config);
  EXPECT_TRUE(c.connect(m.server_address, m.clock.now()).ok());
  EXPECT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));
  const auto before = m.server->client_stats();
  const Tick tick_before = m.server->tick();
  m.run_for(Duration::seconds(10));
  const auto stats = m.server->client_stats();
  EXPECT_EQ(stats.size(), 1U);
  if (stats.empty() || before.empty() || stats[0].inputs == 0) return 0;
  // One packet each interval and nothing between: a keep-alive waits
  // longer than the interval (and reports go once a second, 1/60 a tick).
  const double packets_per_tick = static_cast<double>(stats[0].packets_in - before[0].packets_in) /
                                  static_cast<double>(m.server->tick() - tick_before);
  EXPECT_LT(packets_per_tick, 1.0 / interval + 0.025) << "interval " << interval;
  const double copies =
      static_cast<double>(stats[0].inputs + stats[0].redundant_inputs) / static_cast<double>(stats[0].inputs);
  std::cout << "  " << stats[0].inputs << " inputs, " << copies << " copies each, the client's policy "
            << c.stats().input_copies << "\n";
  return copies;
}

TEST(InputIntervalSim, EveryInputOfABatchRidesInAsManyPacketsAsThePolicyAsks) {
  // The policy's floor on a clean link is three packets an input (a
  // little under, counted here: the newest inputs have not ridden in all
  // theirs when the run stops).
  EXPECT_NEAR(copies_per_input(1, 7102), 3.0, 0.15);
  EXPECT_NEAR(copies_per_input(2, 7102), 3.0, 0.15);
  EXPECT_NEAR(copies_per_input(3, 7102), 3.0, 0.15);
  // 24 ticks a packet: more than inputs.redundancy (16), which counts
  // packets an input rides in, not ticks.
  EXPECT_NEAR(copies_per_input(client::kMaxInputInterval, 7102), 3.0, 0.15);
}

TEST(InputIntervalSim, AnIntervalOutsideItsRangeIsRefused) {
  client::ClientConfig config;
  config.input_interval = 0;
  EXPECT_THROW(config.validate(), std::invalid_argument);
  config.input_interval = client::kMaxInputInterval + 1;
  EXPECT_THROW(config.validate(), std::invalid_argument);
  config.input_interval = client::kMaxInputInterval;
  EXPECT_NO_THROW(config.validate());
}

}  // namespace
}  // namespace tickwire
