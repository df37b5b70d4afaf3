#include "step.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "child.h"

namespace tickwire::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPoll = std::chrono::milliseconds(20);

// Whether something holds UDP 127.0.0.1:port: the server has bound it once
// binding it here fails. ENet binds without SO_REUSEADDR, and so does this.
bool port_taken(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool taken = ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 && errno == EADDRINUSE;
  ::close(fd);
  return taken;
}

// Reads the lines a growing file gained since the last call.
class LineFollower {
 public:
  explicit LineFollower(std::string path) : path_(std::move(path)) {}
  std::vector<std::string> next() {
    std::ifstream in(path_, std::ios::binary);
    std::vector<std::string> lines;
    if (!in) return lines;
    in.seekg(static_cast<std::streamoff>(offset_));
    std::stringstream rest;
    rest << in.rdbuf();
    const std::string text = rest.str();
    std::size_t start = 0;
    for (auto nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', start)) {
      lines.push_back(text.substr(start, nl - start));
      start = nl + 1;
    }
    offset_ += start;  // a partly written line waits for the next call
    return lines;
  }

 private:
  std::string path_;
  std::size_t offset_ = 0;
};

std::unique_ptr<Child> start_bots(const StepConfig& c, const std::string& prefix, int count, const std::string& script,
                                  std::uint64_t seed, double duration) {
  const std::string report = prefix + script + ".json";
  std::filesystem::remove(report);
  std::vector<std::string> argv = {c.bots_bin, "--connect", "127.0.0.1:" + std::to_string(c.port), "--bots",
                                   std::to_string(count), "--script", script, "--name", script, "--seed",
                                   std::to_string(seed), "--duration", std::to_string(duration), "--ramp",
                                   std::to_string(c.ramp), "--frame-rate", "60", "--report-json", report,
                                   // Generous thresholds: the benchmark judges the step, not the bots.
                                   "--max-late-inputs", "1", "--max-mispredictions-per-min", "1000000000",
                                   "--max-disconnects", "1000000", "--min-connected", "0"};
  if (c.thin_bots) argv.push_back("--thin");
  if (c.input_interval != 1) argv.insert(argv.end(), {"--input-interval", std::to_string(c.input_interval)});
  if (!c.codebook.empty()) argv.insert(argv.end(), {"--codebook", c.codebook});
  if (c.adaptive_models) argv.emplace_back("--adaptive-models");
  if (!c.link_profile.empty()) argv.insert(argv.end(), {"--profile", c.link_profile});
  return std::make_unique<Child>(argv, prefix + script + ".log", c.bots_cpu);
}

// The bots' own late-input count and inputs sent, from their JSON report.
std::pair<double, double> bots_late(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  const auto summary = text.find("\"summary\":");
  if (summary == std::string::npos) return {0, 0};
  return {json_number(text, "late_inputs", summary).value_or(0), json_number(text, "inputs_sent", summary).value_or(0)};
}

std::string failure(const std::string& what, const Child& child) {
  return what + "; the end of " + child.log_path() + ":\n" + tail_of(child.log_path(), 8);
}

}  // namespace

StepFigures run_step(int bots, const StepConfig& c, const Targets& targets, const std::atomic<int>& stop) {
  StepFigures failed;
  failed.bots = bots;
  if (port_taken(c.port)) {
    failed.error = "UDP port " + std::to_string(c.port) + " is in use; choose another with --port";
    return failed;
  }
  // Every step keeps its own files, for looking into a step afterwards.
  const std::string prefix = c.work_dir + "/" + std::to_string(bots) + "-";
  const std::string stats_path = prefix + "server-stats.jsonl";
  std::filesystem::remove(stats_path);
  const double warmup = c.ramp + c.settle;
  // Backstops in case the benchmark cannot stop them itself.
  const double run_for = warmup + c.seconds + 60;
  std::vector<std::string> server_argv{c.server_bin,
                                       "--bind",
                                       "127.0.0.1",
                                       "--port",
                                       std::to_string(c.port),
                                       "--tick-rate",
                                       "60",
                                       "--send-rate",
                                       std::to_string(c.send_rate),
                                       "--nearest",
                                       "64",
                                       "--max-clients",
                                       std::to_string(std::min(bots + 8, 4000)),
                                       "--stats-interval",
                                       "1",
                                       "--stats-json",
                                       stats_path,
                                       "--duration",
                                       std::to_string(run_for),
                                       "--log-level",
                                       "warn"};
  if (!c.codebook.empty()) server_argv.insert(server_argv.end(), {"--codebook", c.codebook});
  if (c.adaptive_models) server_argv.emplace_back("--adaptive-models");
  Child server(server_argv, prefix + "server.log", c.server_cpu);
  const auto t0 = Clock::now();
  const auto since_start = [t0] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  while (server.running() && !port_taken(c.port) && since_start() < 5) std::this_thread::sleep_for(kPoll);
  if (!server.running() || !port_taken(c.port)) {
    failed.error = failure("the server did not start listening", server);
    return failed;
  }

  // The server's first stats line, before any bot joins, gives its
  // resident set and heap with no clients.
  LineFollower follower(stats_path);
  std::optional<IdleMemory> idle;
  const double listening_at = since_start();
  while (!idle && server.running() && since_start() < listening_at + 3) {
    std::this_thread::sleep_for(kPoll);
    for (const std::string& text : follower.next()) {
      const auto line = parse_stats_line(text);
      if (line && line->clients == 0 && line->rss_kb > 0) idle = IdleMemory{line->rss_kb, line->heap_kb};
    }
  }

  // Server time and this clock start together, near enough: the warm-up
  // counts from when the bots start.
  const double bots_started = since_start();
  const int wander = bots / 2;
  auto bots_a = start_bots(c, prefix, wander, "wander", c.seed, run_for);
  auto bots_b = start_bots(c, prefix, bots - wander, "chase", c.seed + 1, run_for);

  std::optional<Sample> baseline;
  std::vector<Sample> window;
  const double deadline = bots_started + warmup + c.seconds + 15;
  while (failed.error.empty()) {
    std::this_thread::sleep_for(kPoll);
    if (stop.load() != 0)
      failed.error = "interrupted";
    else if (!server.running())
      failed.error = failure("the server exited during the step", server);
    else if (!bots_a->running())
      failed.error = failure("the wander bots exited during the step", *bots_a);
    else if (!bots_b->running())
      failed.error = failure("the chase bots exited during the step", *bots_b);
    else if (since_start() > deadline)
      failed.error = "the server's stats lines stopped coming";
    if (!failed.error.empty()) break;
    const auto server_cpu = server.cpu_us();
    const double bots_cpu = bots_a->cpu_us().value_or(0) + bots_b->cpu_us().value_or(0);
    bool done = false;
    for (const std::string& text : follower.next()) {
      const auto line = parse_stats_line(text);
      if (!line || !server_cpu) continue;
      const Sample sample{*line, *server_cpu, bots_cpu, since_start()};
      if (!baseline) {
        if (line->t >= bots_started + warmup) baseline = sample;
      } else {
        window.push_back(sample);
        // Lines come about a second apart; a quarter second of slack keeps
        // a line that came slightly early from adding a whole extra second.
        done = done || line->t >= baseline->line.t + c.seconds - 0.25;
      }
    }
    if (done) break;
  }

  // The bots leave first, so that their goodbyes are not counted against
  // a server that is still measuring; then the server.
  bots_a->stop(std::chrono::seconds(10));
  bots_b->stop(std::chrono::seconds(10));
  server.stop(std::chrono::seconds(5));
  if (!failed.error.empty() || !baseline) {
    if (failed.error.empty()) failed.error = "no stats line after the warm-up";
    return failed;
  }
  StepFigures f = compute_figures(bots, window, *baseline, targets, idle);
  f.expected_packets_per_s = 60.0 / c.input_interval;
  const auto [late_a, sent_a] = bots_late(prefix + "wander.json");
  const auto [late_b, sent_b] = bots_late(prefix + "chase.json");
  if (sent_a + sent_b > 0) f.bots_late_fraction = (late_a + late_b) / (sent_a + sent_b);
  return f;
}

}  // namespace tickwire::bench
