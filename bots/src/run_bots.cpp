// run_bots: many scripted clients of a game in one process against a real
// server, for load and soak runs. Owns the loop and the clock; everything
// it measures goes through the pieces beside it.

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <thread>

#include "fleet.h"
#include "game_setup.h"
#include "options.h"
#include "progress.h"
#include "report.h"
#include "tickwire/core/logging.h"
#include "tickwire/snapshot/schema_file.h"

namespace tickwire::bots {
namespace {

std::atomic<int> g_signal{0};
void on_signal(int sig) { g_signal.store(sig); }

constexpr Duration kSampleInterval = Duration::seconds(1);
constexpr Duration kGoodbyeTime = Duration::millis(300);
// With links conditioned inside the bots, the loop also wakes this often
// between frames so the links' delays are kept to within it rather than
// rounded up to a frame.
constexpr Duration kLinkServiceInterval = Duration::millis(2);

class Clock {
 public:
  Time now() const {
    return Time::from_micros(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - epoch_).count());
  }
  void sleep_until(Time t) const { std::this_thread::sleep_until(epoch_ + std::chrono::microseconds(t.micros())); }

 private:
  std::chrono::steady_clock::time_point epoch_ = std::chrono::steady_clock::now();
};

bool write_file(const std::string& program, const std::string& path, const std::string& text, const char* what) {
  std::ofstream out(path, std::ios::out | std::ios::trunc);
  out << text;
  if (!out) {
    std::cerr << program << ": cannot write the " << what << " to " << path << "\n";
    return false;
  }
  return true;
}

std::vector<ServerSample> load_server_stats(const std::string& program, const std::string& path) {
  if (path.empty()) return {};
  std::ifstream in(path);
  if (!in) {
    std::cerr << program << ": cannot read --server-stats " << path << "; the report leaves it out\n";
    return {};
  }
  return read_server_stats(in);
}

}  // namespace

int run_bots(int argc, const char* const* argv, const BotsSpec& spec) {
  auto parsed = parse_options(argc, argv, spec);
  if (const int* status = std::get_if<int>(&parsed)) return *status;
  Options& o = std::get<Options>(parsed);
  const std::string& program = spec.program;
  auto game = make_game_setup(o, spec);
  if (!game) {
    std::cerr << program << ": " << game.error().detail << "\n";
    return 2;
  }
  if (!o.write_schema.empty()) {
    if (auto saved = snapshot::save_schema(o.write_schema, game.value()->schema); !saved) {
      std::cerr << program << ": --write-schema " << saved.error().detail << "\n";
      return 1;
    }
    return 0;
  }

  Logging logging(parse_log_level(o.log_level).value(), LogFormat::kText);
  std::unique_ptr<Fleet> fleet;
  try {
    fleet = std::make_unique<Fleet>(o, game.value(), logging.get("bot"));
  } catch (const std::exception& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return 2;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);

  const Clock clock;
  const Duration frame = Duration::micros(1'000'000 / o.frame_rate);
  const Duration duration = Duration::micros(static_cast<std::int64_t>(o.duration_s * 1e6));
  Recorder recorder;
  Progress progress(stdout, Progress::is_terminal(stdout));
  std::printf("%s: %d bots, script %s, %s for %.1f s, link %s, seed %llu\n", program.c_str(), o.bots, o.script.c_str(),
              o.server.to_string().c_str(), o.duration_s, o.link ? o.link->description.c_str() : "none",
              static_cast<unsigned long long>(o.seed));
  if (fleet->evil_size() > 0) {
    std::string mix;
    for (const auto& [script, count] : o.evil) mix += (mix.empty() ? "" : ", ") + script + " x" + std::to_string(count);
    std::printf("%s: plus %zu evil bots (%s), kept out of the thresholds\n", program.c_str(), fleet->evil_size(),
                mix.c_str());
  }
  std::fflush(stdout);

  const Time start = clock.now();
  Time now = start;
  Time next_frame = start;
  Time next_sample = start + kSampleInterval;
  std::uint32_t tick_rate = 60;
  while (now - start < duration && g_signal.load() == 0) {
    fleet->update(now);
    if (now >= next_sample) {
      next_sample += kSampleInterval;
      const auto figures = fleet->figures(now);
      recorder.sample((now - start).seconds_f(), figures);
      ProgressState state{fleet->size(), (now - start).seconds_f(), (duration - (now - start)).seconds_f(), 0};
      for (const BotFigures& f : figures) state.late_inputs += f.late_inputs;
      progress.update(recorder.series().back(), state);
      tick_rate = fleet->tick_rate();
    }
    // The next frame is due one frame after the last; a frame that ran
    // late is not caught up with a burst.
    next_frame = std::max(next_frame + frame, clock.now());
    // Between frames the bots read traffic as it comes, as a game waiting
    // for its next frame can, so that round trips and clock readings leave
    // out the wait for the frame. A conditioned link is serviced on a
    // clock of its own instead, so its delays are not rounded up either.
    if (o.link) {
      for (Time t = clock.now() + kLinkServiceInterval; t < next_frame; t += kLinkServiceInterval) {
        clock.sleep_until(t);
        fleet->service(clock.now());
      }
    } else {
      for (Time t = clock.now(); t < next_frame; t = clock.now()) {
        if (!fleet->receive(next_frame - t, [&clock] { return clock.now(); })) break;
      }
    }
    clock.sleep_until(next_frame);
    now = clock.now();
  }
  progress.finish();

  const double seconds = (now - start).seconds_f();
  const std::vector<BotFigures> figures = fleet->figures(now);
  Outcome outcome = fleet->outcome();
  std::vector<EvilScriptOutcome> evil = fleet->evil_outcome(now);
  tick_rate = std::max(tick_rate, fleet->tick_rate());

  // Goodbye from every bot, with a few frames for the goodbyes to leave.
  fleet->leave_all(now);
  for (const Time goodbye_end = now + kGoodbyeTime; now < goodbye_end; now = clock.now()) {
    fleet->drain(now);
    clock.sleep_until(now + frame);
  }

  Report report;
  report.run = RunInfo{o.server.to_string(),
                       o.script,
                       o.link ? o.link->description : "none",
                       static_cast<std::size_t>(o.bots),
                       o.duration_s,
                       o.ramp_s,
                       o.seed,
                       o.frame_rate,
                       tick_rate,
                       program};
  const snapshot::Schema& schema = game.value()->schema;
  for (std::size_t t = 0; t < schema.type_count(); ++t) {
    // Records (inputs) are never corrected: no key of their own.
    const snapshot::TypeSpec& type = schema.type(snapshot::TypeId{static_cast<std::uint16_t>(t)});
    report.run.type_names.push_back(type.role == snapshot::TypeRole::kEntity ? type.name : std::string());
  }
  report.summary = summarize(recorder, figures, std::move(outcome), seconds, tick_rate);
  report.series = recorder.series();
  report.server = load_server_stats(program, o.server_stats);
  // With every bot evil there is no honest play to hold to the thresholds.
  if (o.bots > 0) report.checks = evaluate(report.summary, o.thresholds);
  if (!evil.empty() && o.evil_must_fail) report.checks.push_back(evil_check(evil));
  report.evil = std::move(evil);

  std::fputs(summary_text(report).c_str(), stdout);
  std::fflush(stdout);
  bool written = true;
  if (!o.report_json.empty()) written = write_file(program, o.report_json, to_json(report), "JSON report") && written;
  if (!o.report_html.empty()) written = write_file(program, o.report_html, to_html(report), "HTML report") && written;
  if (!report.passed()) {
    for (const ThresholdCheck& check : report.checks) {
      if (!check.passed) std::fprintf(stderr, "%s: threshold failed: %s\n", program.c_str(), check.describe().c_str());
    }
    return 1;
  }
  return written ? 0 : 1;
}

}  // namespace tickwire::bots
