// Client::receive: arrivals read between frames are handled by the next
// frame as having arrived when they were read, so the round trip leaves out
// the wait for the frame; and nothing else happens until that frame.
#include <gtest/gtest.h>

#include <iostream>

#include "sim_match.h"

namespace tickwire {
namespace {

using testing::SimMatch;

constexpr std::uint64_t kSeed = 611;

// A 30 frames/s client over a link of 20 ms each way, no jitter: the round
// trip the link makes is 40 ms.
Duration smoothed_rtt(bool receive_between_frames) {
  SimMatch m(kSeed);
  transport::LinkConditions link;
  link.latency = Duration::millis(20);
  m.net.set_default_link(link);
  m.client_frame = Duration::micros(33333);
  m.receive_between_frames = receive_between_frames;
  client::Client& c = m.add_client();
  EXPECT_TRUE(c.connect(m.server_address, m.clock.now()).ok());
  EXPECT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));
  m.run_for(Duration::seconds(10));
  EXPECT_TRUE(m.all_connected());
  return c.stats().rtt;
}

TEST(ClientReceiveSim, ReadingBetweenFramesLeavesTheFrameWaitOutOfTheRoundTrip) {
  std::cout << "seed=" << kSeed << "\n";
  const Duration between = smoothed_rtt(true);
  const Duration per_frame = smoothed_rtt(false);
  std::cout << "rtt reading between frames " << between.millis_f() << " ms, once a frame " << per_frame.millis_f()
            << " ms\n";
  // The server answers within its 1 ms step, the client reads within its own.
  EXPECT_GE(between, Duration::millis(40));
  EXPECT_LE(between, Duration::millis(43));
  // Once a frame, a snapshot waits for the next 33 ms frame: on average
  // half of one, and it shows.
  EXPECT_GE(per_frame, between + Duration::millis(5));
}

TEST(ClientReceiveSim, WhatIsReadWaitsForTheNextFrame) {
  std::cout << "seed=" << kSeed << "\n";
  SimMatch m(kSeed);
  client::Client& c = m.add_client();
  ASSERT_TRUE(c.connect(m.server_address, m.clock.now()).ok());
  // Only reading: the transport's connect arrives but the client does not
  // act on it (no hello), so it stays connecting and emits nothing.
  m.clock.run_for(Duration::millis(200), [&](Time now) {
    m.server->update(now);
    c.receive(now);
  });
  EXPECT_EQ(c.state(), client::ClientState::kConnecting);
  EXPECT_FALSE(c.poll_event().has_value());
  // The next frame handles it and the handshake goes on to the end.
  m.step(m.clock.now());
  EXPECT_EQ(c.state(), client::ClientState::kHandshaking);
  ASSERT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));
}

TEST(ClientReceiveSim, ReadingWhileIdleOrAfterTheEndDoesNothing) {
  std::cout << "seed=" << kSeed << "\n";
  SimMatch m(kSeed);
  client::Client& c = m.add_client();
  c.receive(m.clock.now());
  c.update(m.clock.now());
  EXPECT_EQ(c.state(), client::ClientState::kIdle);
  ASSERT_TRUE(c.connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));
  c.disconnect(m.clock.now());
  m.receive_between_frames = true;
  m.run_for(Duration::millis(500));
  EXPECT_EQ(c.state(), client::ClientState::kDisconnected);
  // A new session starts clean and connects again.
  ASSERT_TRUE(c.connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));
}

}  // namespace
}  // namespace tickwire
