#include "link.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "tickwire/transport/conditioned_transport.h"
#include "tickwire/transport/enet_transport.h"
#include "tickwire/transport/sim_network.h"

namespace tickwire::bench {
namespace {

using transport::Address;
using transport::kIpv4UdpHeaderBytes;

class SimPair final : public Link {
 public:
  explicit SimPair(const SimLinkOptions& options) : net_(options.seed) {
    transport::LinkConditions link;
    link.latency = Duration::millis(options.latency_ms);
    link.jitter = Duration::millis(2);
    link.loss = options.loss;
    if (options.unlimited) link.mtu = 0;
    net_.set_default_link(link);
    transport::SimEndpointConfig config;
    if (options.unlimited) config.limits.max_unreliable_payload = 1 << 20;
    server_ = net_.create_endpoint(server_name(), config);
    client_ = net_.create_endpoint(client_name(), config);
  }
  transport::Transport& server() override { return *server_; }
  transport::Transport& client() override { return *client_; }
  Address server_address() const override { return server_name(); }
  Time now() override { return Time::from_micros(1'000'000); }
  Time advance(Time now, Time /*until*/) override { return now + Duration::millis(1); }
  Traffic sent_by_server() const override { return traffic(server_name(), client_name()); }
  Traffic sent_by_client() const override { return traffic(client_name(), server_name()); }
  const char* wire_kind() const override { return "modelled"; }

 private:
  // SimNetwork's byte count includes its own framing (a type byte and a
  // session id), its stand-in for a real transport's header.
  Traffic traffic(const Address& from, const Address& to) const {
    const transport::SimLinkStats s = net_.stats(from, to);
    return {s.sent, s.bytes_sent + s.sent * kIpv4UdpHeaderBytes};
  }

  static Address server_name() { return {"server", 1}; }
  static Address client_name() { return {"client", 1}; }
  transport::SimNetwork net_;
  std::unique_ptr<transport::Transport> server_;
  std::unique_ptr<transport::Transport> client_;
};

Time steady_now() {
  const auto since = std::chrono::steady_clock::now().time_since_epoch();
  return Time::from_micros(std::chrono::duration_cast<std::chrono::microseconds>(since).count());
}

std::unique_ptr<transport::EnetTransport> open(const transport::EnetConfig& config, const char* role) {
  auto created = transport::EnetTransport::create(config);
  if (!created)
    throw std::runtime_error(std::string("cannot open the ") + role + "'s socket: " + created.error().detail);
  return std::move(created).value();
}

// With loss, each side's receiving end drops that share of the unreliable
// datagrams it read (transport/conditioned_transport.h): every datagram was
// sent and counted at the sender's socket, as a capture at the sender
// would see it, and the game's code sees the loss.
std::unique_ptr<transport::Transport> lossy(transport::EnetTransport* inner_owner, double loss, std::uint64_t seed) {
  transport::ConditionedConfig conditions;
  conditions.down.loss = loss;
  conditions.seed = seed;
  return std::make_unique<transport::ConditionedTransport>(std::unique_ptr<transport::Transport>(inner_owner),
                                                           conditions);
}

class EnetPair final : public Link {
 public:
  explicit EnetPair(const EnetLinkOptions& options) {
    transport::EnetConfig server_config;
    server_config.bind = Address{"127.0.0.1", 0};
    server_config.max_peers = 8;
    auto server = open(server_config, "server");
    transport::EnetConfig client_config;
    client_config.max_peers = 1;
    auto client = open(client_config, "client");
    server_ = server.get();
    client_ = client.get();
    if (options.loss > 0.0) {
      server_side_ = lossy(server.release(), options.loss, options.seed);
      client_side_ = lossy(client.release(), options.loss, options.seed + 1);
    } else {
      server_side_ = std::move(server);
      client_side_ = std::move(client);
    }
  }
  transport::Transport& server() override { return *server_side_; }
  transport::Transport& client() override { return *client_side_; }
  Address server_address() const override {
    const auto address = server_->local_address();
    if (!address) throw std::runtime_error("the server's socket has no address");
    return *address;
  }
  Time now() override { return steady_now(); }
  Time advance(Time /*now*/, Time until) override {
    const Duration wait = until - steady_now();
    if (wait > Duration::zero()) {
      const std::array<transport::EnetTransport*, 2> both{server_, client_};
      transport::EnetTransport::wait_for_any(both, wait, ready_);
    }
    return steady_now();
  }
  Traffic sent_by_server() const override { return traffic(*server_); }
  Traffic sent_by_client() const override { return traffic(*client_); }
  const char* wire_kind() const override { return "measured"; }

 private:
  static Traffic traffic(const transport::EnetTransport& t) {
    const transport::WireStats w = t.wire_stats().value_or(transport::WireStats{});
    return {w.datagrams_sent, w.bytes_sent + w.datagrams_sent * kIpv4UdpHeaderBytes};
  }

  std::unique_ptr<transport::Transport> server_side_;  // the ENet host, conditioned when lossy
  std::unique_ptr<transport::Transport> client_side_;
  transport::EnetTransport* server_ = nullptr;  // the ENet hosts themselves, owned above
  transport::EnetTransport* client_ = nullptr;
  std::vector<std::size_t> ready_;
};

}  // namespace

std::unique_ptr<Link> make_sim_link(const SimLinkOptions& options) { return std::make_unique<SimPair>(options); }

std::unique_ptr<Link> make_enet_link(const EnetLinkOptions& options) { return std::make_unique<EnetPair>(options); }

}  // namespace tickwire::bench
