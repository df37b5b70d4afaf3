#pragma once
// Internals shared by sim_network.cpp and sim_endpoint.cpp: the datagram
// framing of simulated connections, the network's state and the endpoint
// class. Private to the transport library.

#include <array>
#include <deque>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim_link.h"
#include "tickwire/transport/sim_network.h"

namespace tickwire::transport {

namespace sim_detail {

// Every datagram starts with the type and the session, a number the network
// hands out per connection attempt, so datagrams of an older connection
// between the same two addresses are told apart and ignored.
enum class PacketType : std::uint8_t {
  kConnectRequest = 1,
  kConnectAccept = 2,
  kConnectRefuse = 3,  // + reason u32
  kDisconnect = 4,     // + reason u32
  kPing = 5,           // + ping seq u32
  kPong = 6,           // + ping seq u32
  kUnreliable = 7,     // + payload
  kReliable = 8,       // + ack_next u32, ack_bits u64, seq u32, index u16, count u16, payload
  kAck = 9,            // + ack_next u32, ack_bits u64
};

constexpr Duration kConnectRetry = Duration::millis(200);
// Disconnects are not acknowledged; a few copies make it likely one gets
// through a lossy link, and the peer times out if none does.
constexpr int kDisconnectCopies = 3;
constexpr std::size_t kPingHistory = 64;
constexpr std::size_t kMaxFragmentsPerMessage = 0xFFFF;

class Writer {
 public:
  Writer(PacketType type, std::uint32_t session) {
    out_.reserve(64);
    write(static_cast<std::uint8_t>(type));
    write(session);
  }
  template <class T>
  void write(T value) {
    const auto bits = static_cast<std::uint64_t>(value);
    for (std::size_t i = 0; i < sizeof(T); ++i) out_.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
  }
  void bytes(std::span<const std::uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  std::vector<std::uint8_t> take() { return std::move(out_); }

 private:
  std::vector<std::uint8_t> out_;
};

// Little-endian fields with bounds checks: a short datagram fails a read
// and is ignored.
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> in) : in_(in) {}
  template <class T>
  bool read(T& value) {
    if (in_.size() - pos_ < sizeof(T)) return false;
    std::uint64_t bits = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) bits |= std::uint64_t{in_[pos_ + i]} << (8 * i);
    pos_ += sizeof(T);
    value = static_cast<T>(bits);
    return true;
  }
  std::span<const std::uint8_t> rest() const { return in_.subspan(pos_); }

 private:
  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
};

}  // namespace sim_detail

using namespace sim_detail;  // NOLINT(google-build-using-namespace): private header

struct SimNetwork::State {
  using LinkKey = std::pair<Address, Address>;
  struct InFlight {
    Time sent;
    Datagram datagram;
  };
  struct Slot {
    SimEndpoint* endpoint = nullptr;
    // Keyed by (delivery time, global send counter): ties go in send order.
    std::map<std::pair<Time, std::uint64_t>, InFlight> inbox;
  };

  explicit State(std::uint64_t seed) : rng(seed) {}
  static LinkKey unordered(const Address& a, const Address& b) { return a < b ? LinkKey{a, b} : LinkKey{b, a}; }
  const LinkConditions& conditions(const SimLink& link) const {
    return link.conditions ? *link.conditions : default_link;
  }

  SimRng rng;
  LinkConditions default_link;
  std::map<LinkKey, SimLink> links;
  std::map<Address, Slot> endpoints;
  std::set<LinkKey> severed;
  std::multimap<Time, std::function<void(SimNetwork&)>> scheduled;
  std::uint64_t next_order = 0;
  std::uint32_t next_session = 1;
  std::vector<TraceEntry>* trace = nullptr;
};

class SimEndpoint final : public Transport {
 public:
  SimEndpoint(SimNetwork& network, Address address, SimEndpointConfig config);
  ~SimEndpoint() override;

  Result<PeerId> connect(const Address& remote, Time now) override;
  Result<void> send(PeerId peer, Delivery delivery, std::span<const std::uint8_t> bytes, Time now) override;
  std::optional<TransportEvent> poll(Time now) override;
  void flush(Time now) override;
  void disconnect(PeerId peer, DisconnectReason reason, Time now) override;
  std::optional<PeerStats> stats(PeerId peer) const override;
  std::optional<Address> local_address() const override { return address_; }
  const TransportLimits& limits() const override { return config_.limits; }

  void detach() { network_ = nullptr; }

 private:
  enum class PeerState : std::uint8_t { kConnecting, kConnected };
  struct PingRecord {
    std::uint32_t seq = 0;
    Time sent;
    bool used = false;
    bool answered = false;
  };
  struct Peer {
    Peer(PeerId id_in, Address address_in, std::uint32_t session_in, ReliableChannel::Limits limits)
        : id(id_in), address(std::move(address_in)), session(session_in), reliable(limits) {}
    PeerId id;
    Address address;
    std::uint32_t session = 0;
    PeerState state = PeerState::kConnecting;
    Time started;
    Time last_received;
    Time next_request;
    Time next_ping;
    std::uint32_t requests_sent = 0;
    RttEstimator rtt;
    ReliableChannel reliable;
    bool ack_pending = false;
    std::uint32_t next_ping_seq = 0;
    std::array<PingRecord, kPingHistory> pings{};
    PeerStats counters;
  };
  using PeerMap = std::map<PeerId, Peer>;

  Peer& add_peer(const Address& remote, std::uint32_t session, PeerState state, Time now);
  PeerMap::iterator drop_peer(PeerMap::iterator it, std::optional<DisconnectReason> event_reason);
  void on_connected(Peer& peer, Time now);

  void process(Time now);
  void handle(const SimNetwork::Datagram& datagram, Time now);
  void handle_request(const Address& from, std::uint32_t session, Time now);
  void handle_reliable(PeerMap::iterator it, Reader& reader, Time now);
  void run_timers(Time now);

  void transmit_raw(const Address& to, std::vector<std::uint8_t> bytes, Time now);
  void transmit(Peer& peer, std::vector<std::uint8_t> bytes, Time now);
  void send_request(Peer& peer, Time now);
  void send_ping(Peer& peer, Time now);
  void send_ack(Peer& peer, Time now);
  void send_disconnect(Peer& peer, DisconnectReason reason, Time now);
  void apply_ack(Peer& peer, Reader& reader, Time now);
  void pump(Peer& peer, Time now);
  void push_received(PeerId peer, Delivery delivery, std::vector<std::uint8_t> data);
  double loss_estimate(const Peer& peer) const;

  SimNetwork* network_;
  Address address_;
  SimEndpointConfig config_;
  ReliableChannel::Limits reliable_limits_;
  std::uint32_t next_peer_id_ = 1;
  PeerMap peers_;
  std::map<Address, PeerId> by_address_;
  std::deque<TransportEvent> events_;
  std::vector<ReliableChannel::Fragment> due_;  // reused by pump()
  Time last_now_;
  std::optional<Time> timers_ran_at_;
};

}  // namespace tickwire::transport
