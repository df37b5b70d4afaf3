#pragma once
// A server and clients over SimNetwork with stepped time, for the time
// system's sim tests: the server runs its ticks from a TimeSystem and sends
// a snapshot (timing and input feedback) after each; each client renders
// frames on its own clock, runs the ticks its TimeSystem hands out and sends
// one input packet per tick carrying its newest three inputs. The harness
// knows the true server time and which inputs reached the server in time.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "tickwire/core/packet_channel.h"
#include "tickwire/timesync/input_arrival_tracker.h"
#include "tickwire/timesync/time_system.h"
#include "tickwire/transport/sim_network.h"

namespace tickwire::timesync::testing {

struct SimClientConfig {
  std::function<std::unique_ptr<TimeProvider>()> provider;
  transport::LinkConditions up;
  transport::LinkConditions down;
  double drift_ppm = 0;     // the client's clock runs this much fast
  double frame_rate = 144;  // frames per second on the client's clock
  Duration join_at = Duration::millis(200);
};

class SimWorld {
 public:
  static constexpr std::uint32_t kTickRate = 60;

  explicit SimWorld(std::uint64_t seed);
  ~SimWorld();
  SimWorld(const SimWorld&) = delete;
  SimWorld& operator=(const SimWorld&) = delete;

  std::size_t add_client(SimClientConfig config);
  // Runs until `span` of true time has passed.
  void run_for(Duration span);
  // Jumps the server's timeline by `ticks` (a paused or restarted server).
  void jump_server(std::int64_t ticks);
  // Changes a client's links from now on (a route change).
  void set_route(std::size_t client, const transport::LinkConditions& up, const transport::LinkConditions& down);

  Time now() const { return now_; }
  NetworkTime truth(Time t) const;

  struct Frame {
    Time at;     // true time
    Time local;  // the client's clock
    UpdateResult update;
    std::vector<TickContext> ticks;
    std::vector<NetworkTime> seen_predicted;      // predicted_time() inside each callback
    std::vector<NetworkTime> seen_interpolation;  // interpolation_time() inside each callback
  };
  // Called after each frame of each client.
  std::function<void(std::size_t client, const Frame&)> on_frame;

  TimeSystem& time(std::size_t client);
  // Of the inputs the client sent at true times in [from, to) whose ticks the
  // server has run: how many, and how many arrived in time.
  struct InputCount {
    std::uint64_t inputs = 0;
    std::uint64_t on_time = 0;
  };
  InputCount inputs(std::size_t client, Time from, Time to) const;

 private:
  struct Client;
  struct Peer {
    std::size_t client = 0;
    PacketChannel channel;
    InputArrivalTracker tracker;
  };
  void server_step(Time t);
  void client_frame(Client& c, Time t);
  Time frame_time(const Client& c) const;

  transport::SimNetwork net_;
  std::unique_ptr<transport::Transport> server_;
  std::optional<TimeSystem> server_time_;
  Time epoch_;  // true time at which the server's timeline read zero
  Time now_;
  Time next_server_step_;
  std::map<std::uint32_t, Peer> peers_;
  std::vector<std::unique_ptr<Client>> clients_;
};

}  // namespace tickwire::timesync::testing
