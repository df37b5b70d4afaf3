#pragma once
// A UDP relay that applies link conditions to real traffic: clients send to
// the relay, the relay forwards to the server through one upstream socket
// per client (so the server sees distinct peers), and every datagram in
// either direction passes the same impairment model SimNetwork uses.
// Single-threaded; the caller owns the loop and passes time in.

#include <netinet/in.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "tickwire/core/result.h"
#include "tickwire/core/time.h"
#include "tickwire/transport/address.h"
#include "tickwire/transport/link_model.h"

namespace tickwire::netsim {

struct RelayConfig {
  transport::Address listen;
  transport::Address forward;
  transport::LinkConditions up;    // client -> server
  transport::LinkConditions down;  // server -> client
  std::uint64_t seed = 1;
  std::size_t max_clients = 4096;
  Duration idle_timeout = Duration::seconds(30);  // a silent client's session is closed
};

struct RelayCounters {
  std::uint64_t received = 0;
  std::uint64_t relayed = 0;
  std::uint64_t dropped = 0;  // loss, MTU, bandwidth queue
  std::uint64_t duplicated = 0;
  std::uint64_t reordered = 0;
  std::uint64_t refused_clients = 0;
  std::int64_t delay_us_total = 0;
};

class Relay {
 public:
  static Result<std::unique_ptr<Relay>> create(const RelayConfig& config);
  ~Relay();
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  // Waits at most `max_wait` for traffic or the next due delivery, then
  // reads what arrived and sends what is due. `clock` is read after the
  // wait so arrivals are stamped when they happened.
  void run_once(const std::function<Time()>& clock, Duration max_wait);
  // Sends everything still queued whose time has come by `now`.
  void deliver_due(Time now);

  const RelayCounters& up_counters() const { return up_; }
  const RelayCounters& down_counters() const { return down_; }
  std::size_t sessions() const { return sessions_.size(); }
  std::uint16_t listen_port() const;

 private:
  struct Session;
  struct Pending {
    Time at;
    std::uint64_t order;
    int fd;
    sockaddr_in to;
    std::vector<std::uint8_t> bytes;
    Time sent;                    // admitted to its link
    std::uint64_t session_key;    // the client ip:port whose link carries it
    std::uint64_t session_id;     // ... and which session of it (Session::id)
    bool upstream;                // client to server
    bool operator>(const Pending& o) const { return at != o.at ? at > o.at : order > o.order; }
  };

  explicit Relay(RelayConfig config);
  void read_listen(Time now);
  void read_upstream(Session& s, Time now);
  void admit(Session& s, bool upstream, const transport::LinkConditions& c, RelayCounters& k, int fd,
             const sockaddr_in& to, std::vector<std::uint8_t> bytes, Time now);
  Session* session_for(const sockaddr_in& client, Time now);
  void expire_idle(Time now);

  RelayConfig config_;
  int listen_fd_ = -1;
  sockaddr_in forward_{};
  std::map<std::uint64_t, std::unique_ptr<Session>> sessions_;  // keyed by client ip:port
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
  std::uint64_t order_ = 0;
  std::uint64_t sessions_made_ = 0;
  RelayCounters up_;
  RelayCounters down_;
};

}  // namespace tickwire::netsim
