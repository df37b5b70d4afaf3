// Writes the seed corpora of every fuzz target but snapshot_decode (see
// snapshot_corpus.cpp): real traffic between the fuzz fixtures' Server and
// Client, pumped through the same record streams the runtime targets read,
// and the single messages cut from it for the decoder targets; and connect
// tokens minted under the connect_token target's fixed key. Each seed
// stays under the 1200 bytes scripts/fuzz.sh lets inputs grow to.
//
//   fuzz_corpus DIR      writes DIR/TARGET/seed-N

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "connect_token_fixture.h"
#include "runtime_fixture.h"

namespace {

using namespace tickwire;
using namespace tickwire::fuzz;
using Bytes = std::vector<std::uint8_t>;

constexpr std::size_t kMaxSeed = 1100;
constexpr std::uint8_t kFrameSteps = 4;  // 16 ms frames

class Writer {
 public:
  explicit Writer(std::filesystem::path root) : root_(std::move(root)) {}

  void write(const std::string& target, const Bytes& bytes) {
    if (bytes.empty() || bytes.size() > 1200) {
      std::fprintf(stderr, "fuzz_corpus: %s seed of %zu bytes skipped\n", target.c_str(), bytes.size());
      return;
    }
    const auto dir = root_ / target;
    std::filesystem::create_directories(dir);
    int& n = counts_[target];
    std::ofstream out(dir / ("seed-" + std::to_string(n++)), std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }

  void report() const {
    for (const auto& [target, n] : counts_) std::printf("%-16s %d seeds\n", target.c_str(), n);
  }

 private:
  std::filesystem::path root_;
  std::map<std::string, int> counts_;
};

// One side's record stream, applied to its fixture as it is written, so the
// stream replays exactly what the fixture went through.
template <class Fixture>
struct Side {
  Fixture& fixture;
  Bytes stream;
  std::size_t cut = 0;  // stream length at the last record boundary within kMaxSeed

  void add(Kind kind, std::uint8_t peer, std::uint8_t steps, std::span<const std::uint8_t> payload = {}) {
    Bytes one;
    append_record(one, kind, peer, steps, payload);
    RecordReader reader(one);
    fixture.apply(*reader.next());
    stream.insert(stream.end(), one.begin(), one.end());
    if (stream.size() <= kMaxSeed) cut = stream.size();
  }

  Bytes seed() const { return Bytes(stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(cut)); }
};

// Moves what one side sent to its peer slot 0 into the other side's
// stream: the first datagram after a frame's time, the rest at once. The
// unreliable ones are kept in `delivered`, with the time they arrived.
template <class To>
void pump(std::vector<FakeTransport::Sent>& sent, Side<To>& to, PeerId from_peer, std::vector<Bytes>& delivered,
          std::vector<Time>& delivered_at) {
  std::uint8_t steps = kFrameSteps;
  for (const auto& s : sent) {
    if (s.peer != from_peer) continue;
    const bool reliable = s.delivery == Delivery::kReliableOrdered;
    to.add(reliable ? Kind::kReliable : Kind::kUnreliable, 0, steps, s.bytes);
    steps = 0;
    if (!reliable) {
      delivered.push_back(s.bytes);
      delivered_at.push_back(to.fixture.now);
    }
  }
  if (steps != 0) to.add(Kind::kIdle, 0, steps);
  sent.clear();
}

struct Traffic {
  std::vector<Bytes> to_server;  // unreliable datagrams, in order
  std::vector<Bytes> to_client;
  std::vector<Time> to_client_at;
  Bytes server_stream;
  Bytes client_stream;
};

// A match between the fixtures for `frames` frames. `prologue` writes
// records into the server's stream first (another peer joining, say).
template <class Prologue>
Traffic play(int frames, Prologue prologue) {
  ServerFixture server;
  ClientFixture client;
  std::vector<FakeTransport::Sent> from_server;
  std::vector<FakeTransport::Sent> from_client;
  server.sink = &from_server;
  client.sink = &from_client;
  Side<ServerFixture> s{server, {}};
  Side<ClientFixture> c{client, {}};
  prologue(s);
  Traffic t;
  std::vector<Time> to_server_at;
  for (int i = 0; i < frames; ++i) {
    pump(from_client, s, *client.peers[0], t.to_server, to_server_at);
    pump(from_server, c, *server.peers[0], t.to_client, t.to_client_at);
  }
  t.server_stream = s.seed();
  t.client_stream = c.seed();
  return t;
}

Bytes concat(const std::vector<Bytes>& parts) {
  Bytes out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// ---- decoder seeds cut from the traffic ----

void packet_header_seeds(Writer& w, const Traffic& t) {
  std::vector<Bytes> keep_alives;
  bool input = false;
  bool report = false;
  for (const auto& d : t.to_server) {
    BitReader r(d);
    PacketHeader h;
    if (!serialize(r, h)) continue;
    if (h.prefix.type == PacketType::kKeepAlive && keep_alives.size() < 6) keep_alives.push_back(d);
    if (h.prefix.type == PacketType::kInput && !input) {
      w.write("packet_header", d);
      input = true;
    }
    if (h.prefix.type == PacketType::kReport && !report) {
      w.write("packet_header", d);
      report = true;
    }
  }
  if (!keep_alives.empty()) w.write("packet_header", keep_alives.front());
  w.write("packet_header", concat(keep_alives));
  if (!t.to_client.empty()) w.write("packet_header", t.to_client.front());
  if (t.to_client.size() > 10) w.write("packet_header", t.to_client[10]);
  // A keep-alive from the server, which carries its tick, and one holding
  // a packet for as long as a peer may claim.
  for (const bool server_side : {true, false}) {
    PacketHeader h;
    h.prefix.type = PacketType::kKeepAlive;
    h.sequence = Sequence(65535);
    h.ack = Sequence(17);
    h.ack_bits = 0xFFFF0F0FU;
    h.hold = Hold{server_side ? 250U : static_cast<std::uint32_t>(kMaxHoldMicros)};
    KeepAlive k;
    if (server_side) k.server_tick = Tick(4242);
    BitWriter bw(64);
    serialize(bw, h);
    serialize(bw, k);
    w.write("packet_header", bw.take());
  }
}

void handshake_seeds(Writer& w) {
  w.write("handshake", hello_bytes(arena_fingerprint(), "fuzz"));
  w.write("handshake", hello_bytes({}, ""));
  w.write("handshake",
          hello_bytes({0xFFFFFFFFFFFFFFFFULL, 0xFFFFFFFFFFFFFFFFULL}, std::string(kMaxClientNameLength, 'n')));
  w.write("handshake", welcome_bytes(1, 60, 30, Tick(0)));
  w.write("handshake", welcome_bytes(0xFFFFFFFFU, 1000, 1, Tick(0xFFFFFFFFU)));
  w.write("handshake", welcome_bytes(7, 60, 60, Tick(123456)));
}

void snapshot_timing_seeds(Writer& w, const Traffic& t) {
  // The client's arrivals as the time system saw them: the block after
  // each snapshot's header, the gap since the previous one, a round trip.
  for (std::uint8_t provider = 0; provider < 5; ++provider) {
    BitWriter bw(kMaxSeed);
    std::uint32_t provider_byte = provider;
    bw.bits(provider_byte, 8);
    Time previous = Time::from_micros(kStartMicros);
    for (std::size_t i = 0; i < t.to_client.size() && bw.bytes_written() < kMaxSeed - 64; ++i) {
      BitReader r(t.to_client[i]);
      PacketHeader h;
      timesync::SnapshotTimeBlock block;
      if (!serialize(r, h) || !serialize(r, block)) continue;
      std::uint32_t gap =
          static_cast<std::uint32_t>(std::min<std::int64_t>((t.to_client_at[i] - previous).micros() / 1000, 127));
      previous = t.to_client_at[i];
      bool has_rtt = (i + provider) % 3 != 0;
      std::uint32_t rtt = 30U + static_cast<std::uint32_t>((i * 7U + provider) % 11U);
      if (!serialize(bw, block) || !bw.bits(gap, 7) || !bw.boolean(has_rtt) || (has_rtt && !bw.bits(rtt, 10))) break;
    }
    w.write("snapshot_timing", bw.take());
  }
}

void input_packet_seeds(Writer& w, const Traffic& t) {
  const arena::Schema& game = arena::schema();
  std::vector<prediction::InputPacket> packets;
  for (const auto& d : t.to_server) {
    BitReader r(d);
    PacketHeader h;
    prediction::InputPacket p;
    if (!serialize(r, h) || h.prefix.type != PacketType::kInput) continue;
    if (prediction::serialize_input_packet(r, p, game.schema, game.input_type)) packets.push_back(p);
  }
  auto stream = [&](std::size_t from, std::size_t count, std::uint32_t first_step, std::uint32_t step) {
    BitWriter bw(kMaxSeed);
    for (std::size_t i = from; i < from + count && i < packets.size(); ++i) {
      std::uint32_t s = i == from ? first_step : step;
      if (!bw.bits(s, 8) || !prediction::serialize_input_packet(bw, packets[i], game.schema, game.input_type) ||
          !bw.align())
        break;
    }
    return bw.take();
  };
  if (packets.empty()) return;
  w.write("input_packet", stream(0, 1, 128, 1));                   // arrives as the server reaches its first tick
  w.write("input_packet", stream(packets.size() / 2, 1, 120, 1));  // a little early
  w.write("input_packet", stream(0, 12, 126, 1));                  // a run, one server tick per packet
  w.write("input_packet", stream(4, 12, 140, 3));                  // late: the server runs ahead
  w.write("input_packet", stream(packets.size() - 1, 1, 0, 1));    // far too early
}

// Tokens under the target's fixed key: accepted ones (one server, and every
// limit at once), and one for each way a check fails. The minted bytes
// differ on every run (random nonces); any of them serves.
void connect_token_seeds(Writer& w) {
  using transport::Address;
  const auto mint = [](transport::ConnectToken t, const transport::TokenKey& key) {
    auto bytes = transport::mint_connect_token(t, key);
    return bytes.ok() ? bytes.value() : Bytes{};
  };
  transport::ConnectToken one;
  one.created_unix_seconds = kTokenFuzzNow - 60;
  one.expires_unix_seconds = kTokenFuzzNow + 10LL * 365 * 24 * 3600;
  one.servers = {token_fuzz_server()};
  one.client_id = 42;
  one.session_key = token_fuzz_session_key();
  one.user_data = {'e', 'u'};
  const Bytes valid = mint(one, token_fuzz_key());
  w.write("connect_token", valid);

  transport::ConnectToken full = one;
  full.servers.clear();
  for (std::uint16_t i = 0; i < transport::kMaxTokenServers - 1; ++i) {
    full.servers.push_back(Address{"10.0.0." + std::to_string(i + 1), static_cast<std::uint16_t>(7000 + i)});
  }
  full.servers.push_back(token_fuzz_server());
  full.client_id = ~std::uint64_t{0};
  full.user_data.assign(transport::kMaxTokenUserData, 0x5A);
  w.write("connect_token", mint(full, token_fuzz_key()));

  transport::ConnectToken expired = one;
  expired.created_unix_seconds = kTokenFuzzNow - 30;
  expired.expires_unix_seconds = kTokenFuzzNow;
  w.write("connect_token", mint(expired, token_fuzz_key()));

  transport::ConnectToken elsewhere = one;
  elsewhere.servers = {Address{"127.0.0.1", 7778}};
  w.write("connect_token", mint(elsewhere, token_fuzz_key()));

  transport::TokenKey other = token_fuzz_key();
  other.bytes[0] ^= 1U;
  w.write("connect_token", mint(one, other));

  w.write("connect_token", Bytes(valid.begin(), valid.begin() + std::min<std::ptrdiff_t>(60, std::ssize(valid))));
  Bytes next_version = valid;
  if (!next_version.empty()) next_version[7] = '3';
  w.write("connect_token", next_version);
  Bytes previous_version = valid;  // TWTOKEN1, from before session keys
  if (!previous_version.empty()) previous_version[7] = '1';
  w.write("connect_token", previous_version);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_corpus DIR\n");
    return 2;
  }
  Writer w(argv[1]);
  const auto nothing = [](Side<ServerFixture>&) {};

  // A plain match, long enough for inputs and deltas to flow.
  const Traffic plain = play(150, nothing);
  w.write("server_receive", plain.server_stream);
  w.write("client_receive", plain.client_stream);

  // A second player joins first (the client then sees two players).
  const Traffic second = play(150, [](Side<ServerFixture>& s) {
    s.add(Kind::kToggle, 1, 0);
    s.add(Kind::kReliable, 1, 1, hello_bytes(arena_fingerprint(), "second"));
  });
  w.write("server_receive", second.server_stream);
  w.write("client_receive", second.client_stream);

  // Peers the server must turn away, before the match goes on.
  const Traffic denied = play(100, [&plain](Side<ServerFixture>& s) {
    s.add(Kind::kToggle, 1, 0);
    s.add(Kind::kReliable, 1, 1, hello_bytes({arena_fingerprint().schema_hash ^ 1U, 0}, "wrong-schema"));
    s.add(Kind::kToggle, 2, 0);
    s.add(Kind::kReliable, 2, 1, hello_bytes({arena_fingerprint().schema_hash, 0}, "no-codebook"));
    s.add(Kind::kToggle, 1, 1);
    s.add(Kind::kUnreliable, 1, 1, plain.to_server.front());  // before any hello
  });
  w.write("server_receive", denied.server_stream);

  // The client leaves and comes back under a new connection.
  {
    RecordReader reader(plain.server_stream);
    Bytes cut;
    std::size_t used = 0;
    while (auto r = reader.next()) {
      Bytes one;
      append_record(one, r->kind, r->peer, r->steps, r->payload);
      if (used + one.size() > 300) break;
      used += one.size();
      cut.insert(cut.end(), one.begin(), one.end());
    }
    append_record(cut, Kind::kToggle, 0, 2);
    append_record(cut, Kind::kToggle, 0, 2);
    const Bytes hello = hello_bytes(arena_fingerprint(), "again");
    append_record(cut, Kind::kReliable, 0, 1, hello);
    append_record(cut, Kind::kIdle, 0, 31);
    w.write("server_receive", cut);
  }

  // The server goes away mid-match; a stranger's datagram is ignored.
  {
    RecordReader reader(plain.client_stream);
    Bytes cut;
    while (auto r = reader.next()) {
      Bytes one;
      append_record(one, r->kind, r->peer, r->steps, r->payload);
      if (cut.size() + one.size() > 600) break;
      cut.insert(cut.end(), one.begin(), one.end());
    }
    Bytes stranger;
    append_record(stranger, Kind::kToggle, 1, 0);
    append_record(stranger, Kind::kUnreliable, 1, 1, plain.to_client.front());
    stranger.insert(stranger.end(), cut.begin(), cut.end());
    w.write("client_receive", stranger);
    append_record(cut, Kind::kToggle, 0, 4);
    append_record(cut, Kind::kIdle, 0, 31);
    w.write("client_receive", cut);
  }

  packet_header_seeds(w, plain);
  handshake_seeds(w);
  snapshot_timing_seeds(w, plain);
  snapshot_timing_seeds(w, second);
  input_packet_seeds(w, plain);
  connect_token_seeds(w);
  w.report();
  return 0;
}
