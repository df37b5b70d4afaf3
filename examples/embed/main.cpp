// The smallest complete embedding of Tickwire's client: a headless game
// loop that joins a tickwire-server hosting the arena, walks its player in
// a circle for a while, prints what it would draw, and leaves cleanly.
//
//   tickwire-embed 127.0.0.1:7777 [seconds] [--server-key HEX] [--token-file FILE] [--plaintext]
//
// --server-key pins the server's public key; --token-file holds a connect
// token and its session key (two lines of hex, as tickwire-token mint
// writes them); --plaintext asks for an unencrypted session (debugging).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tickwire/arena/arena.h"
#include "tickwire/client/client.h"
#include "tickwire/transport/enet_transport.h"

using namespace tickwire;

namespace {

// The game owns the clock; the runtime only ever sees the times it is given.
Time now() {
  static const auto epoch = std::chrono::steady_clock::now();
  const auto since = std::chrono::steady_clock::now() - epoch;
  return Time::from_micros(std::chrono::duration_cast<std::chrono::microseconds>(since).count());
}

// The player's input for one tick: called by the runtime once per
// predicted tick, never again for the same tick (replays reuse it).
void sample_input(Tick tick, snapshot::Record& input) {
  arena::Input in;
  const float angle = static_cast<float>(tick.value()) * 0.02F;
  in.move = {std::cos(angle), std::sin(angle)};
  in.aim = angle;
  in.shoot = tick.value() % 90 == 0;
  input = arena::to_record(in);
}

void print_frame(const client::Client& c) {
  const arena::Schema& s = arena::schema();
  const snapshot::World& view = c.view();
  if (!c.avatar() || !view.contains(*c.avatar())) return;
  const auto drawn = view.get(*c.avatar(), s.player_position);
  const auto server = c.authoritative_world().get(*c.avatar(), s.player_position);
  std::printf("tick %u  me (%6.2f, %6.2f)  server said (%6.2f, %6.2f) at tick %u\n", c.predicted_tick()->value(),
              drawn.x, drawn.y, server.x, server.y, c.authoritative_tick()->value());
  for (snapshot::EntityId id : view.entities(s.player_type)) {
    if (id == *c.avatar()) continue;
    const auto p = view.get(id, s.player_position);
    std::printf("    player %d at (%6.2f, %6.2f)\n", view.get(id, s.player_owner), p.x, p.y);
  }
}

constexpr const char* kUsage =
    "usage: tickwire-embed HOST:PORT [seconds] [--server-key HEX] [--token-file FILE] [--plaintext]";

bool refuse(const std::string& why) {
  std::fprintf(stderr, "tickwire-embed: %s\n", why.c_str());
  return false;
}

// The session's security from the flags after HOST:PORT; a bad one is
// reported and ends the program with status 2.
bool parse_security(int argc, char** argv, transport::EnetConfig& net, double& seconds) {
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    const bool has_value = i + 1 < argc;
    if (flag == "--plaintext") {
      net.plaintext = true;
    } else if (flag == "--server-key" && has_value) {
      auto key = transport::ServerPublicKey::from_hex(argv[++i]);
      if (!key) return refuse("--server-key: " + key.error().detail);
      net.validation.server_key = key.value();
    } else if (flag == "--token-file" && has_value) {
      auto token = transport::load_client_token(argv[++i]);
      if (!token) return refuse("--token-file " + token.error().detail);
      net.validation.connect_token = token->token;
      net.validation.token_session_key = token->session_key;
    } else if (i == 2 && flag.rfind("--", 0) != 0) {
      seconds = std::atof(argv[i]);
    } else {
      return refuse("unexpected '" + flag + "'\n" + kUsage);
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "%s\n", kUsage);
    return 2;
  }
  auto server = transport::Address::parse(argv[1]);
  double seconds = 10.0;
  transport::EnetConfig net;
  if (!parse_security(argc, argv, net, seconds)) return 2;
  if (!server || !(seconds > 0.0)) {
    std::fprintf(stderr, "tickwire-embed: expected HOST:PORT and a positive number of seconds\n");
    return 2;
  }
  // Line by line even into a pipe or a file, so that a run stopped early
  // (Ctrl-C, a timeout) still leaves everything it printed.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  // 1. A transport (ENet over UDP), the game, and the client runtime.
  auto transport = transport::EnetTransport::create(net);
  if (!transport) {
    std::fprintf(stderr, "tickwire-embed: %s\n", transport.error().detail.c_str());
    return 1;
  }
  // Kept to wait on between frames; the client owns the transport.
  transport::EnetTransport* enet = transport.value().get();
  arena::Game game;
  client::ClientConfig config;
  config.name = "embed";
  client::Client c(std::move(transport).value(), game, sample_input, config);
  if (auto ok = c.connect(*server, now()); !ok) {
    std::fprintf(stderr, "tickwire-embed: %s\n", ok.error().detail.c_str());
    return 1;
  }

  // 2. The frame loop: update once per frame, react to events, draw.
  const Time end = now() + Duration::micros(static_cast<std::int64_t>(seconds * 1e6));
  const Duration frame = Duration::micros(16667);
  Time next_frame = now();
  std::vector<std::size_t> ready;
  int frames = 0;
  while (now() < end) {
    c.update(now());
    while (auto e = c.poll_event()) {
      using Type = client::ClientEvent::Type;
      if (e->type == Type::kConnected) std::printf("connected as client %u\n", *c.client_id());
      if (e->type == Type::kDenied || e->type == Type::kDisconnected) {
        std::printf("%s\n", client::to_string(*e).c_str());
        return 1;
      }
    }
    if (++frames % 30 == 0) print_frame(c);
    // Until the next frame, read what arrives as it comes: the round trip
    // and clock readings then leave out the wait for the frame.
    next_frame = std::max(next_frame + frame, now());
    for (Time t = now(); t < next_frame; t = now()) {
      transport::EnetTransport::wait_for_any({&enet, 1}, next_frame - t, ready);
      c.receive(now());
    }
  }

  // 3. Leave cleanly: the server hears why at once instead of timing out.
  const client::ClientStats& s = c.stats();
  std::printf("rtt %.1f ms, lead %.1f ms, interpolation delay %.1f ms, mispredictions %llu, late inputs %llu\n",
              s.rtt.millis_f(), s.lead.millis_f(), s.interpolation_delay.millis_f(),
              static_cast<unsigned long long>(s.mispredictions), static_cast<unsigned long long>(s.late_inputs));
  c.disconnect(now());
  return 0;
}
