// tickwire-bots: many scripted clients in one process against a server.
// Each bot is a full client runtime over its own UDP socket.

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "tickwire/client/client.h"
#include "tickwire/core/logging.h"
#include "tickwire/transport/enet_transport.h"

namespace {

using namespace tickwire;

struct Options {
  std::string connect = "127.0.0.1:7777";
  int bots = 4;
  double duration_s = 10.0;
  double ramp_s = 0.0;
  std::string name = "bot";
  std::string log_level = "warn";
  std::uint64_t schema_hash = 0;
  int frame_rate = 144;
};

struct Bot {
  std::unique_ptr<client::Client> client;
  bool started = false;
  bool connected_once = false;
  std::optional<client::ClientEvent> last_end;
};

Time now_since(std::chrono::steady_clock::time_point epoch) {
  const auto d = std::chrono::steady_clock::now() - epoch;
  return Time::from_micros(std::chrono::duration_cast<std::chrono::microseconds>(d).count());
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"tickwire-bots: runs scripted bot clients against a Tickwire server.", "tickwire-bots"};
  app.add_option("--connect", o.connect, "Server address HOST:PORT")->capture_default_str();
  app.add_option("--bots", o.bots, "Number of bots")->capture_default_str()->check(CLI::Range(1, 4096));
  app.add_option("--duration", o.duration_s, "Seconds to play")->capture_default_str()->check(CLI::Range(0.1, 1e6));
  app.add_option("--ramp", o.ramp_s, "Seconds over which the bots connect")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  app.add_option("--log-level", o.log_level, "Log level")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  app.add_option("--schema-hash", o.schema_hash, "Game schema hash to claim (testing denials)")->group("Advanced");
  app.add_option("--frame-rate", o.frame_rate, "Client frames per second")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  auto server = transport::Address::parse(o.connect);
  if (!server) {
    std::cerr << "tickwire-bots: --connect: " << server.error().detail << "\n";
    return 2;
  }

  Logging logging(parse_log_level(o.log_level).value(), LogFormat::kText);
  const auto epoch = std::chrono::steady_clock::now();
  std::vector<Bot> bots(static_cast<std::size_t>(o.bots));
  for (std::size_t i = 0; i < bots.size(); ++i) {
    transport::EnetConfig net;
    net.max_peers = 1;
    auto t = transport::EnetTransport::create(net);
    if (!t) {
      std::cerr << "tickwire-bots: cannot open a socket: " << t.error().detail << "\n";
      return 1;
    }
    client::ClientConfig cc;
    cc.name = o.name + "-" + std::to_string(i);
    cc.schema_hash = o.schema_hash;
    cc.logger = logging.get("bot");
    bots[i].client = std::make_unique<client::Client>(std::move(t).value(), cc);
  }

  const Duration frame = Duration::micros(1'000'000 / o.frame_rate);
  const Duration duration = Duration::micros(static_cast<std::int64_t>(o.duration_s * 1e6));
  const Duration ramp = Duration::micros(static_cast<std::int64_t>(o.ramp_s * 1e6));
  Time now = now_since(epoch);
  const Time start = now;
  while (now - start < duration) {
    for (std::size_t i = 0; i < bots.size(); ++i) {
      Bot& bot = bots[i];
      const Duration start_at = bots.size() > 1
                                    ? ramp * static_cast<std::int64_t>(i) / static_cast<std::int64_t>(bots.size() - 1)
                                    : Duration::zero();
      if (!bot.started && now - start >= start_at) {
        bot.started = true;
        if (auto r = bot.client->connect(*server, now); !r)
          std::cerr << "bot " << i << ": " << r.error().detail << "\n";
      }
      bot.client->update(now);
      while (auto e = bot.client->poll_event()) {
        if (e->type == client::ClientEvent::Type::kConnected) {
          bot.connected_once = true;
        } else {
          bot.last_end = e;
          std::cout << "bot " << i << " " << (e->type == client::ClientEvent::Type::kDenied ? "denied" : "disconnected")
                    << ": " << transport::to_string(e->reason) << "\n";
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(frame.micros()));
    now = now_since(epoch);
  }

  // Summary, then a clean goodbye from every bot still connected.
  int connected = 0, still = 0, ended = 0;
  double rtt_sum = 0;
  std::uint64_t ticks_heard = 0, bytes_in = 0, bytes_out = 0;
  for (auto& bot : bots) {
    connected += bot.connected_once ? 1 : 0;
    if (bot.client->state() == client::ClientState::kConnected) {
      ++still;
      rtt_sum += bot.client->stats().rtt.millis_f();
    }
    ended += bot.last_end ? 1 : 0;
    ticks_heard += bot.client->stats().server_ticks_heard;
    bytes_in += bot.client->stats().bytes_in;
    bytes_out += bot.client->stats().bytes_out;
  }
  for (auto& bot : bots) bot.client->disconnect(now_since(epoch));
  const double secs = (now - start).seconds_f();
  std::printf("bots summary: %d bots, %.1f s\n", o.bots, secs);
  std::printf("  connected            %d/%d\n", connected, o.bots);
  std::printf("  still connected      %d\n", still);
  std::printf("  ended early          %d\n", ended);
  std::printf("  rtt mean             %.2f ms\n", still > 0 ? rtt_sum / still : 0.0);
  std::printf("  server ticks heard   %llu (%.1f per bot per second)\n", static_cast<unsigned long long>(ticks_heard),
              connected > 0 ? static_cast<double>(ticks_heard) / connected / secs : 0.0);
  std::printf("  kbps in / out        %.1f / %.1f per bot\n",
              connected > 0 ? static_cast<double>(bytes_in) * 8 / 1000 / secs / connected : 0.0,
              connected > 0 ? static_cast<double>(bytes_out) * 8 / 1000 / secs / connected : 0.0);
  return (connected == o.bots && still == o.bots) ? 0 : 1;
}
