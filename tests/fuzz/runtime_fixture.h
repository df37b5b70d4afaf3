#pragma once
// The assembled runtimes under fuzz: a Server or a Client hosting the
// arena, on an in-memory transport the fuzz input drives, past the
// handshake so that inputs reach the session code.
//
// The fuzz input is a stream of transport events, each record:
//   control    1 byte   bits 0-1: kind (0 unreliable datagram, 1 reliable
//                       datagram, 2 the peer connects or, if connected,
//                       disconnects, 3 nothing: time passes)
//                       bit 2: which peer (0 the one the fixture
//                       connected, 1 another)
//                       bits 3-7: milliseconds that pass first, in 4 ms
//                       steps (0 to 124)
//   length     2 bytes  little endian, datagram kinds only; clamped to
//                       what is left of the input
//   payload    length bytes
// After each record the runtime updates once; after the last it runs a
// few more ticks. The transport behaves like a real one: a peer the
// runtime disconnected says nothing more, and a peer that reconnects comes
// back under a new id.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_check.h"
#include "tickwire/arena/arena.h"
#include "tickwire/client/client.h"
#include "tickwire/core/client_report.h"
#include "tickwire/core/handshake.h"
#include "tickwire/core/keep_alive.h"
#include "tickwire/core/packet_header.h"
#include "tickwire/prediction/input_packet.h"
#include "tickwire/server/server.h"
#include "tickwire/timesync/snapshot_timing.h"
#include "tickwire/transport/transport.h"

namespace tickwire::fuzz {

using transport::Delivery;
using transport::DisconnectReason;
using transport::TransportEvent;

// ---- the record stream ----

enum class Kind : std::uint8_t { kUnreliable = 0, kReliable = 1, kToggle = 2, kIdle = 3 };
inline constexpr std::uint32_t kStepMicros = 4000;
inline constexpr std::uint8_t kMaxSteps = 31;

struct Record {
  Kind kind = Kind::kIdle;
  std::uint8_t peer = 0;   // 0 or 1
  std::uint8_t steps = 0;  // time before the event, in kStepMicros
  std::span<const std::uint8_t> payload;
};

// Splits the input into records; a record cut short takes what is left.
class RecordReader {
 public:
  explicit RecordReader(std::span<const std::uint8_t> input) : input_(input) {}

  std::optional<Record> next() {
    if (at_ >= input_.size()) return std::nullopt;
    const std::uint8_t control = input_[at_++];
    Record r;
    r.kind = static_cast<Kind>(control & 3U);
    r.peer = static_cast<std::uint8_t>((control >> 2) & 1U);
    r.steps = static_cast<std::uint8_t>(control >> 3);
    if (r.kind == Kind::kUnreliable || r.kind == Kind::kReliable) {
      std::size_t length = 0;
      for (int i = 0; i < 2 && at_ < input_.size(); ++i) length |= std::size_t{input_[at_++]} << (8 * i);
      length = std::min(length, input_.size() - at_);
      r.payload = input_.subspan(at_, length);
      at_ += length;
    }
    return r;
  }

 private:
  std::span<const std::uint8_t> input_;
  std::size_t at_ = 0;
};

// Appends a record to a stream (the seed generators' side of the format).
inline void append_record(std::vector<std::uint8_t>& out, Kind kind, std::uint8_t peer, std::uint8_t steps,
                          std::span<const std::uint8_t> payload = {}) {
  out.push_back(
      static_cast<std::uint8_t>(static_cast<unsigned>(kind) | (unsigned{peer} << 2) | (unsigned{steps} << 3)));
  if (kind == Kind::kUnreliable || kind == Kind::kReliable) {
    out.push_back(static_cast<std::uint8_t>(payload.size() & 0xFFU));
    out.push_back(static_cast<std::uint8_t>(payload.size() >> 8));
    out.insert(out.end(), payload.begin(), payload.end());
  }
}

// ---- the transport ----

class FakeTransport final : public transport::Transport {
 public:
  struct Sent {
    PeerId peer;
    Delivery delivery = Delivery::kUnreliable;
    std::vector<std::uint8_t> bytes;
  };

  // A peer that has connected: events from it go to the runtime.
  PeerId add_peer(const std::string& host) {
    const PeerId id(next_peer_++);
    connected_.push_back(id);
    TransportEvent e;
    e.type = TransportEvent::Type::kConnected;
    e.peer = id;
    e.address = transport::Address{host, 4000};
    inbox_.push_back(std::move(e));
    return id;
  }
  bool is_connected(PeerId peer) const {
    return std::find(connected_.begin(), connected_.end(), peer) != connected_.end();
  }
  void deliver(PeerId peer, Delivery delivery, std::span<const std::uint8_t> bytes) {
    if (!is_connected(peer)) return;
    TransportEvent e;
    e.type = TransportEvent::Type::kReceived;
    e.peer = peer;
    e.delivery = delivery;
    e.data.assign(bytes.begin(), bytes.end());
    inbox_.push_back(std::move(e));
  }
  void remote_disconnect(PeerId peer, DisconnectReason reason) {
    if (!is_connected(peer)) return;
    forget(peer);
    TransportEvent e;
    e.type = TransportEvent::Type::kDisconnected;
    e.peer = peer;
    e.reason = reason;
    inbox_.push_back(std::move(e));
  }
  std::vector<Sent> take_sent() { return std::exchange(sent_, {}); }

  Result<PeerId> connect(const transport::Address& remote, Time /*now*/) override { return add_peer(remote.host); }

  Result<void> send(PeerId peer, Delivery delivery, std::span<const std::uint8_t> bytes, Time /*now*/) override {
    const std::size_t limit =
        delivery == Delivery::kUnreliable ? limits_.max_unreliable_payload : limits_.max_reliable_payload;
    if (bytes.size() > limit) return make_error(ErrorCode::kTooLarge, "over the transport's limit");
    if (!is_connected(peer)) return make_error(ErrorCode::kNotConnected, "unknown peer");
    sent_.push_back({peer, delivery, std::vector<std::uint8_t>(bytes.begin(), bytes.end())});
    return {};
  }

  std::optional<TransportEvent> poll(Time /*now*/) override {
    if (inbox_.empty()) return std::nullopt;
    TransportEvent e = std::move(inbox_.front());
    inbox_.pop_front();
    return e;
  }

  void flush(Time /*now*/) override {}
  void disconnect(PeerId peer, DisconnectReason /*reason*/, Time /*now*/) override { forget(peer); }
  std::optional<transport::PeerStats> stats(PeerId peer) const override {
    if (!is_connected(peer)) return std::nullopt;
    return transport::PeerStats{};
  }
  std::optional<transport::Address> local_address() const override { return transport::Address{"fuzz", 4000}; }
  const transport::TransportLimits& limits() const override { return limits_; }

 private:
  void forget(PeerId peer) {
    connected_.erase(std::remove(connected_.begin(), connected_.end(), peer), connected_.end());
    // Whatever it had queued for the runtime is lost with it.
    std::erase_if(inbox_, [peer](const TransportEvent& e) { return e.peer == peer; });
  }

  transport::TransportLimits limits_;
  std::uint32_t next_peer_ = 1;
  std::vector<PeerId> connected_;
  std::deque<TransportEvent> inbox_;
  std::vector<Sent> sent_;
};

// ---- what the runtimes send must always decode ----

inline ProtocolFingerprint arena_fingerprint() { return arena::Game::protocol_fingerprint(); }

inline void check_server_output(const FakeTransport::Sent& s) {
  BitReader r(s.bytes);
  if (s.delivery == Delivery::kReliableOrdered) {
    PacketPrefix prefix;
    Welcome welcome;
    TICKWIRE_FUZZ_CHECK(serialize(r, prefix) && check_prefix(prefix).ok() && prefix.type == PacketType::kWelcome);
    TICKWIRE_FUZZ_CHECK(serialize(r, welcome) && r.finish());
    return;
  }
  PacketHeader header;
  timesync::SnapshotTimeBlock block;
  TICKWIRE_FUZZ_CHECK(serialize(r, header) && check_prefix(header.prefix).ok());
  TICKWIRE_FUZZ_CHECK(header.prefix.type == PacketType::kSnapshot);
  TICKWIRE_FUZZ_CHECK(serialize(r, block) && r.align());
}

inline void check_client_output(const FakeTransport::Sent& s) {
  BitReader r(s.bytes);
  if (s.delivery == Delivery::kReliableOrdered) {
    PacketPrefix prefix;
    Hello hello;
    TICKWIRE_FUZZ_CHECK(serialize(r, prefix) && check_prefix(prefix).ok() && prefix.type == PacketType::kHello);
    TICKWIRE_FUZZ_CHECK(serialize(r, hello) && r.finish());
    return;
  }
  PacketHeader header;
  TICKWIRE_FUZZ_CHECK(serialize(r, header) && check_prefix(header.prefix).ok());
  if (header.prefix.type == PacketType::kInput) {
    prediction::InputPacket packet;
    const arena::Schema& game = arena::schema();
    TICKWIRE_FUZZ_CHECK(prediction::serialize_input_packet(r, packet, game.schema, game.input_type) && r.finish());
  } else if (header.prefix.type == PacketType::kReport) {
    ClientReport report;
    TICKWIRE_FUZZ_CHECK(serialize(r, report) && r.finish());
  } else {
    KeepAlive body;
    TICKWIRE_FUZZ_CHECK(header.prefix.type == PacketType::kKeepAlive && serialize(r, body) && r.finish());
  }
}

inline std::vector<std::uint8_t> hello_bytes(ProtocolFingerprint fingerprint, const std::string& name) {
  PacketPrefix prefix;
  prefix.type = PacketType::kHello;
  Hello hello{fingerprint, name};
  BitWriter w(256);
  TICKWIRE_FUZZ_CHECK(serialize(w, prefix) && serialize(w, hello));
  return w.take();
}

inline std::vector<std::uint8_t> welcome_bytes(std::uint32_t client_id, std::uint16_t tick_rate,
                                               std::uint16_t send_rate, Tick tick) {
  PacketPrefix prefix;
  prefix.type = PacketType::kWelcome;
  Welcome welcome{client_id, tick_rate, send_rate, tick};
  BitWriter w(64);
  TICKWIRE_FUZZ_CHECK(serialize(w, prefix) && serialize(w, welcome));
  return w.take();
}

inline constexpr std::int64_t kStartMicros = 10'000'000;
inline constexpr std::int64_t kTickMicros = 16'667;
inline constexpr int kTrailingTicks = 6;

// ---- the two runtimes ----

// How a toggle record plays on one side of the wire.
struct Toggle {
  DisconnectReason hangup;  // a connected peer goes away with this reason
  const char* first;        // a new connection in peer slot 0 comes from here
  const char* other;        // and in slot 1 from here
};

// Plays one record's traffic into `net`: datagrams to a connected peer, a
// toggle connecting or disconnecting it. Peers the runtime dropped on its
// own are forgotten first.
inline void play(FakeTransport& net, std::optional<PeerId> (&peers)[2], const Record& r, const Toggle& toggle) {
  std::optional<PeerId>& peer = peers[r.peer];
  if (peer && !net.is_connected(*peer)) peer.reset();
  switch (r.kind) {
    case Kind::kUnreliable:
    case Kind::kReliable:
      if (peer)
        net.deliver(*peer, r.kind == Kind::kReliable ? Delivery::kReliableOrdered : Delivery::kUnreliable, r.payload);
      break;
    case Kind::kToggle:
      if (peer) {
        net.remote_disconnect(*peer, toggle.hangup);
        peer.reset();
      } else {
        peer = net.add_peer(r.peer == 0 ? toggle.first : toggle.other);
      }
      break;
    case Kind::kIdle: break;
  }
}

// A server hosting the arena with one client (peer slot 0) past the
// handshake; peer slot 1 starts unconnected.
struct ServerFixture {
  arena::Game game;
  FakeTransport* net = nullptr;  // owned by the server
  std::unique_ptr<server::Server> server;
  Time now = Time::from_micros(kStartMicros);
  std::optional<PeerId> peers[2];
  std::vector<FakeTransport::Sent>* sink = nullptr;  // what it sends, for the seed generator

  ServerFixture() {
    auto transport = std::make_unique<FakeTransport>();
    net = transport.get();
    server = std::make_unique<server::Server>(std::move(transport), game, server::ServerConfig{}, now);
    peers[0] = net->add_peer("fuzz-client");
    net->deliver(*peers[0], Delivery::kReliableOrdered, hello_bytes(arena_fingerprint(), "fuzz"));
    update(Duration::zero());
    TICKWIRE_FUZZ_CHECK(server->stats().clients == 1);
  }

  void update(Duration step) {
    now += step;
    server->update(now);
    for (auto& s : net->take_sent()) {
      check_server_output(s);
      if (sink != nullptr) sink->push_back(std::move(s));
    }
    const server::ServerStats stats = server->stats();
    TICKWIRE_FUZZ_CHECK(stats.clients <= server->config().max_clients);
    while (server->poll_event()) {
    }
  }

  void apply(const Record& r) {
    // The server drops peers itself; a toggle is the client hanging up.
    play(*net, peers, r, {DisconnectReason::kRequested, "fuzz-client", "fuzz-other"});
    update(Duration::micros(std::int64_t{r.steps} * kStepMicros));
  }

  void finish() {
    for (int i = 0; i < kTrailingTicks; ++i) update(Duration::micros(kTickMicros));
  }
};

// The player's input for a tick: moves in a slow circle, dashes and shoots
// now and then, so inputs change from tick to tick as a real player's do.
inline arena::Input scripted_input(Tick tick) {
  const float t = static_cast<float>(tick.value() % 360U) * 0.0174533F;
  arena::Input in;
  in.move = {std::cos(t), std::sin(t)};
  in.aim = t;
  in.dash = tick.value() % 97U == 0;
  in.shoot = tick.value() % 23U == 0;
  return in;
}

// A client of the arena, connected (peer slot 0 is its server; slot 1 is
// a peer it never asked for).
struct ClientFixture {
  arena::Game game;
  FakeTransport* net = nullptr;  // owned by the client
  std::unique_ptr<client::Client> client;
  Time now = Time::from_micros(kStartMicros);
  std::optional<PeerId> peers[2];
  std::vector<FakeTransport::Sent>* sink = nullptr;  // what it sends, for the seed generator

  ClientFixture() {
    auto transport = std::make_unique<FakeTransport>();
    net = transport.get();
    auto sampler = [](Tick tick, snapshot::Record& input) { input = arena::to_record(scripted_input(tick)); };
    client = std::make_unique<client::Client>(std::move(transport), game, sampler, client::ClientConfig{});
    TICKWIRE_FUZZ_CHECK(client->connect(transport::Address{"fuzz-server", 4000}, now).ok());
    peers[0] = PeerId(1);
    update(Duration::zero());  // connected at transport level: sends its hello
    net->deliver(*peers[0], Delivery::kReliableOrdered, welcome_bytes(1, 60, 30, Tick(0)));
    update(Duration::zero());
    TICKWIRE_FUZZ_CHECK(client->state() == client::ClientState::kConnected);
  }

  void update(Duration step) {
    now += step;
    client->update(now);
    for (auto& s : net->take_sent()) {
      check_client_output(s);
      if (sink != nullptr) sink->push_back(std::move(s));
    }
    if (client->state() == client::ClientState::kConnected) {
      TICKWIRE_FUZZ_CHECK(client->client_id() == 1U);
      TICKWIRE_FUZZ_CHECK(client->partial_tick() >= 0.0 && client->partial_tick() < 1.0);
      TICKWIRE_FUZZ_CHECK(!client->interpolation_time().is_negative());
    }
    while (client->poll_event()) {
    }
  }

  void apply(const Record& r) {
    // A toggle is the server kicking the client, or a connection nobody
    // asked for, which a real transport reports and the client must ignore.
    play(*net, peers, r, {DisconnectReason::kKicked, "fuzz-server-again", "fuzz-stranger"});
    update(Duration::micros(std::int64_t{r.steps} * kStepMicros));
  }

  void finish() {
    for (int i = 0; i < kTrailingTicks; ++i) update(Duration::micros(kTickMicros));
  }
};

}  // namespace tickwire::fuzz
