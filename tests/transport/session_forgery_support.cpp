#include "session_forgery_support.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <utility>

#include "tickwire/transport/connect_token.h"
#include "tickwire/transport/server_identity.h"

namespace tickwire::transport::enet_testing {
namespace {

constexpr std::uint8_t kToServer = 'C';
constexpr std::uint8_t kToClient = 'S';
constexpr std::size_t kHonestSize = 40;

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The address a server will bind: known before it exists, since a token
// must name it and the server must know how tokens name it.
Address free_loopback_address() {
  Node probe = make_node(server_config());
  return probe.transport ? probe.address() : Address{"127.0.0.1", 0};
}

std::vector<TransportEvent> received_from(const Node& node, PeerId peer) {
  std::vector<TransportEvent> out;
  for (const TransportEvent& e : node.events) {
    if (e.type == Type::kReceived && e.peer == peer) out.push_back(e);
  }
  return out;
}

std::uint32_t number_of(const std::vector<std::uint8_t>& data) {
  std::uint32_t n = 0;
  for (std::size_t i = 0; i < 4; ++i) n |= std::uint32_t{data[6 + i]} << (8 * i);
  return n;
}

bool is_honest(const std::vector<std::uint8_t>& data, std::uint8_t direction) {
  return data.size() == kHonestSize && std::equal(std::begin(kHonestMark), std::end(kHonestMark), data.begin()) &&
         data[4] == direction;
}

// Received payloads that are not honest ones of `direction`, or repeat one.
std::size_t foreign_among(const Node& node, std::uint8_t direction) {
  std::set<std::pair<std::uint8_t, std::uint32_t>> seen;
  std::size_t foreign = 0;
  for (const TransportEvent& e : node.events) {
    if (e.type != Type::kReceived) continue;
    if (!is_honest(e.data, direction) || !seen.emplace(e.data[5], number_of(e.data)).second) ++foreign;
  }
  return foreign;
}

bool got_reliable_from(const Node& node, std::uint8_t direction, std::uint32_t at_least) {
  return std::any_of(node.events.begin(), node.events.end(), [&](const TransportEvent& e) {
    return e.type == Type::kReceived && e.delivery == Delivery::kReliableOrdered && is_honest(e.data, direction) &&
           number_of(e.data) >= at_least;
  });
}

void expect_counters_match(const Node& node, PeerId peer, const std::string& who, const std::string& attack) {
  const std::optional<PeerStats> stats = node.transport->stats(peer);
  ASSERT_TRUE(stats.has_value()) << attack << ": " << who << " lost the victim's peer";
  std::uint64_t bytes = 0;
  const auto received = received_from(node, peer);
  for (const TransportEvent& e : received) bytes += e.data.size();
  EXPECT_EQ(stats->packets_received, received.size()) << attack << ": " << who << "'s per-peer packet count moved";
  EXPECT_EQ(stats->bytes_received, bytes) << attack << ": " << who << "'s per-peer byte count moved";
}

// The backend hands the client the token and its session key, from which
// the session's keys are derived (docs/security.md). A template so that it
// builds against tokens that do not carry one yet.
template <typename Token>
void give_session_key(Token& token, EnetConfig& client) {
  if constexpr (requires(Token & t) { t.session_key; }) {
    token.session_key = TokenKey::generate();
    client.validation.token_session_key = token.session_key;
  }
}

}  // namespace

std::string mode_name(const testing::TestParamInfo<SessionMode>& info) {
  switch (info.param) {
    case SessionMode::kDefaults: return "Defaults";
    case SessionMode::kTokens: return "ConnectTokens";
    case SessionMode::kPinnedServerKey: return "PinnedServerKey";
  }
  return "Unknown";
}

void require_tokens(EnetConfig& server, EnetConfig& client, const Address& server_address) {
  const TokenKey key = TokenKey::generate();
  server.validation.token_key = key;
  server.validation.token_address = server_address;
  ConnectToken token;
  token.created_unix_seconds = unix_now() - 60;
  token.expires_unix_seconds = unix_now() + 600;
  token.servers = {server_address};
  token.client_id = 42;
  token.session_key = TokenKey::generate();
  auto minted = mint_connect_token(token, key);
  ASSERT_TRUE(minted.ok()) << minted.error().detail;
  client.validation.connect_token = minted.value();
  // The backend hands the client the session key with the token; it is
  // read back from the token, so that the client holds exactly what the
  // server will find in it (docs/security.md: the session's keys are mixed
  // with it).
  auto opened = open_connect_token(minted.value(), key);
  ASSERT_TRUE(opened.ok()) << opened.error().detail;
  client.validation.token_session_key = opened.value().session_key;
}

std::vector<std::uint8_t> forged_payload(std::size_t size, std::uint8_t salt) {
  std::vector<std::uint8_t> out(size);
  const char mark[] = "EVIL";
  for (std::size_t i = 0; i < size; ++i) {
    out[i] = i < 4 ? static_cast<std::uint8_t>(mark[i]) : static_cast<std::uint8_t>(salt + 31 * i);
  }
  return out;
}

VictimSession::VictimSession(SessionMode mode) {
  EnetConfig server_cfg = server_config();
  EnetConfig client_cfg = client_config();
  server_cfg.bind = free_loopback_address();
  switch (mode) {
    case SessionMode::kDefaults: break;
    case SessionMode::kTokens: require_tokens(server_cfg, client_cfg, *server_cfg.bind); break;
    case SessionMode::kPinnedServerKey: {
      const ServerIdentity identity = ServerIdentity::generate();
      server_cfg.validation.server_identity = identity;
      client_cfg.validation.server_key = identity.public_key();
      break;
    }
  }
  server = make_node(server_cfg);
  victim = make_node(client_cfg);
  if (!server.transport || !victim.transport) return;
  link = connect_pair(server, victim);
  if (link.at_server == PeerId()) {
    for (const TransportEvent& e : victim.of_type(Type::kDisconnected)) {
      ADD_FAILURE() << "the victim was refused: " << to_string(e.reason);
    }
    return;
  }
  server_address = server.address();
  victim_address = server.of_type(Type::kConnected).back().address;
  exchange();
  up = pump_until({&server, &victim},
                  [&] { return got_reliable_from(server, kToServer, 0) && got_reliable_from(victim, kToClient, 0); });
}

std::vector<std::uint8_t> VictimSession::honest(std::uint8_t direction, Delivery delivery) {
  std::vector<std::uint8_t> out(kHonestSize, 0x5A);
  std::copy(std::begin(kHonestMark), std::end(kHonestMark), out.begin());
  out[4] = direction;
  out[5] = delivery == Delivery::kReliableOrdered ? 'R' : 'U';
  const std::uint32_t number = next_number_++;
  for (std::size_t i = 0; i < 4; ++i) out[6 + i] = static_cast<std::uint8_t>(number >> (8 * i));
  return out;
}

void VictimSession::exchange() {
  // A send to a peer the attack has already ended fails; expect_no_harm()
  // says so once, rather than every send here.
  const Time now = wall_now();
  for (const Delivery delivery : {Delivery::kUnreliable, Delivery::kReliableOrdered}) {
    (void)victim.transport->send(link.at_client, delivery, honest(kToServer, delivery), now);
    (void)server.transport->send(link.at_server, delivery, honest(kToClient, delivery), now);
  }
  victim.transport->flush(now);
  server.transport->flush(now);
}

std::size_t VictimSession::foreign_at_server() const { return foreign_among(server, kToServer); }
std::size_t VictimSession::foreign_at_victim() const { return foreign_among(victim, kToClient); }

void VictimSession::expect_no_harm(const std::string& attack) {
  const std::uint32_t from = next_number_;
  exchange();
  const bool flowing = pump_until({&server, &victim}, [&] {
    return got_reliable_from(server, kToServer, from) && got_reliable_from(victim, kToClient, from);
  });
  EXPECT_TRUE(flowing) << attack << ": the victim's payloads stopped arriving";
  pump(50ms);  // anything forged still in flight gets its chance to be delivered
  EXPECT_TRUE(server.of_type(Type::kDisconnected).empty())
      << attack << ": the server dropped the victim (" << to_string(server.of_type(Type::kDisconnected).front().reason)
      << ")";
  EXPECT_TRUE(victim.of_type(Type::kDisconnected).empty())
      << attack << ": the victim lost its session (" << to_string(victim.of_type(Type::kDisconnected).front().reason)
      << ")";
  EXPECT_EQ(foreign_at_server(), 0U) << attack << ": the server was handed payloads the victim never sent";
  EXPECT_EQ(foreign_at_victim(), 0U) << attack << ": the victim was handed payloads the server never sent";
  expect_counters_match(server, link.at_server, "the server", attack);
  expect_counters_match(victim, link.at_client, "the victim", attack);
}

std::optional<std::uint64_t> server_wide_drops(const EnetTransport& transport) {
  const ValidationStats s = transport.validation_stats();
  return s.unsealed_dropped + s.unknown_connection + s.wrong_source + s.failed_to_verify + s.replayed + s.foreign_slot;
}

AttackSockets::AttackSockets(bool with_sniffer) {
  auto sender = spoof::RawSender::open();
  if (!sender) {
    unavailable = sender.error().detail;
    return;
  }
  spoofer.emplace(std::move(*sender));
  if (!with_sniffer) return;
  auto watcher = spoof::RawSniffer::open();
  if (!watcher) {
    unavailable = watcher.error().detail;
    return;
  }
  sniffer.emplace(std::move(*watcher));
}

std::mt19937_64 seeded_rng() { return std::mt19937_64(test_seed()); }

}  // namespace tickwire::transport::enet_testing
