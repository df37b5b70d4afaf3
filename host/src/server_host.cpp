// run_server: options, the game, then start, serve and stop.
#include "tickwire/host/server_host.h"

#include <iostream>
#include <stdexcept>
#include <variant>

#include "options.h"
#include "serve_loop.h"
#include "session.h"
#include "shutdown.h"
#include "signals.h"
#include "startup.h"
#include "tickwire/snapshot/schema_file.h"

#ifndef TICKWIRE_VERSION
#define TICKWIRE_VERSION "unknown"
#endif

namespace tickwire::host {
namespace {

int fail(const std::string& program, int code, const std::string& message) {
  std::cerr << program << ": " << message << "\n";
  return code;
}

ServerSettings settings_of(const Options& opt) {
  ServerSettings settings;
  settings.tick_rate = opt.tick_rate;
  settings.send_rate = opt.send_rate;
  settings.max_clients = opt.max_clients;
  settings.max_rewind = Duration::millis(opt.max_rewind_ms);
  return settings;
}

// The parsed options, or the exit status after printing what stopped them.
std::variant<Options, int> parse(int argc, const char* const* argv, const GameInfo& info,
                                 const std::function<void(GameOptions&)>& add_options) {
  auto parsed = parse_options(argc, argv, info, add_options);
  if (auto* exit = std::get_if<ParseExit>(&parsed)) {
    (exit->code == 0 ? std::cout : std::cerr) << exit->message << "\n";
    return exit->code;
  }
  return std::get<Options>(std::move(parsed));
}

// --write-schema: the file thin bots read to play this game (snapshot/schema_file.h).
int write_schema(const Options& opt, const prediction::NetGame& game, const std::string& program) {
  if (auto saved = snapshot::save_schema(opt.write_schema, game.schema()); !saved) {
    return fail(program, 1, "--write-schema " + saved.error().detail);
  }
  std::cout << "schema of " << game.schema().type_count() << " types written to " << opt.write_schema << "\n";
  return 0;
}

int host_game(const Options& opt, prediction::NetGame& game, const GameInfo& info, const std::string& program) {
  if (!opt.write_schema.empty()) return write_schema(opt, game, program);
  clear_signal();  // a signal that stopped an earlier server in this process is not this one's
  Session session(opt, game,
                  StartInfo{program, TICKWIRE_VERSION, info.name, info.version, opt.address().to_string(),
                            opt.tick_rate, opt.send_rate, opt.max_clients, false});
  if (auto failed = start_session(session)) return fail(program, failed->code, failed->message);
  const int sig = serve(session);
  return stop_session(session, sig);
}

}  // namespace

int run_server(int argc, const char* const* argv, const ServerSpec& spec) {
  const std::string program = program_name(argc, argv, spec.game);
  auto parsed = parse(argc, argv, spec.game, spec.add_options);
  if (auto* code = std::get_if<int>(&parsed)) return *code;
  const auto& opt = std::get<Options>(parsed);
  if (!spec.make_game) return fail(program, 2, "no game to host (ServerSpec::make_game is empty)");
  std::unique_ptr<prediction::NetGame> game;
  try {
    game = spec.make_game(settings_of(opt));
  } catch (const std::invalid_argument& e) {
    return fail(program, 2, std::string("invalid settings: ") + e.what());
  }
  if (!game) return fail(program, 2, "the game could not be made with these settings");
  return host_game(opt, *game, spec.game, program);
}

int run_server(int argc, const char* const* argv, prediction::NetGame& game, const GameInfo& info) {
  auto parsed = parse(argc, argv, info, {});
  if (auto* code = std::get_if<int>(&parsed)) return *code;
  return host_game(std::get<Options>(parsed), game, info, program_name(argc, argv, info));
}

}  // namespace tickwire::host
