#pragma once
// The load-testing bots runner, for any game. A game builds its own bots
// binary from its NetGame and a few scripts, and gets the whole runner:
// the fleet and its ramp, network conditions inside each bot, thin bots,
// evil bots, thresholds, the text, JSON and HTML reports (docs/bots.md).
//
//   class Circle final : public bots::BotScript {
//    public:
//     explicit Circle(std::uint64_t seed) : rng_(seed) {}
//     void input(const bots::BotView& view, Tick tick, snapshot::Record& out) override {
//       out.set(my_game::schema().input_move, ...);
//     }
//   };
//   int main(int argc, char** argv) {
//     bots::BotsSpec spec;
//     spec.game_name = "my game";
//     spec.make_game = [] { return std::make_unique<my_game::Game>(); };
//     spec.scripts = {{"circle", "runs in circles", [](std::uint64_t s) { return std::make_unique<Circle>(s); }}};
//     return bots::run_bots(argc, argv, spec);
//   }
//
// Every bots binary also offers the schema-driven scripts (generic_scripts)
// and thin bots with no game code at all: `--thin --schema FILE` plays any
// server whose schema was written with snapshot::save_schema.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tickwire/core/tick.h"
#include "tickwire/core/time.h"
#include "tickwire/prediction/net_game.h"
#include "tickwire/snapshot/ids.h"
#include "tickwire/snapshot/record.h"
#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::bots {

// What a bot sees when it picks an input or looks at the game. Its
// references and pointer are valid only during the input() or observe()
// call it is passed to: a script copies what it wants to keep.
struct BotView {
  // In input(): the world as drawn this frame, or, for a script that
  // views_at_input_time(), the other entities interpolated at the view
  // time the input claims. In observe(): the newest server state decoded.
  // Thin bots draw nothing: it stays empty.
  const snapshot::World& world;
  std::optional<snapshot::EntityId> self;  // the bot's avatar, once the server spawned it
  const snapshot::Schema& schema;
  snapshot::TypeId input_type;
  std::optional<std::uint32_t> player;  // the bot's client id, once welcomed
  // The predicted world at the newest predicted tick (in input(): the tick
  // before the one being sampled, where the server's simulation of it
  // starts); null for thin bots and before prediction starts.
  const snapshot::World* predicted = nullptr;
  // views_at_input_time() only: whether `world` lies between two real
  // server states. Held before the oldest or extrapolated past the newest,
  // it is a guess at where things were, not what the server had then.
  bool interpolated = false;
  // The server's ticks per second, once welcomed; 0 before (a script then
  // assumes its own default, 60 for the generic ones).
  std::uint32_t tick_rate = 0;
};

// Where a bot stands, for scripts that come and go.
struct Presence {
  bool joined = false;     // it has a client: connecting or connected
  bool connected = false;  // the server welcomed it
  Duration since_change;   // since it joined, was welcomed or left, whichever came last
};

// Shots a script scored, reported as hit registration: the share of shots
// on target in the bot's view that the server counted as hits, and the
// share of shots off target it counted as hits (false hits).
struct ShotFigures {
  std::uint64_t on_target = 0;  // judged by the server
  std::uint64_t on_target_hits = 0;
  std::uint64_t off_target = 0;
  std::uint64_t off_target_hits = 0;
  // Refused by the game's own rules (a target that respawned after the
  // view time, say), and left out of registration.
  std::uint64_t teleport_blocked = 0;
  // Fired but never judged, or judged in a state the bot never got.
  std::uint64_t unresolved = 0;
};

void add_shot_figures(ShotFigures& into, const ShotFigures& from);

// How a bot plays. Deterministic given its seed and what it is shown: a
// script draws only from its own generator, seeded per bot from --seed and
// the bot's index, so a run can be replayed bot for bot.
class BotScript {
 public:
  virtual ~BotScript();
  BotScript() = default;
  BotScript(const BotScript&) = delete;
  BotScript& operator=(const BotScript&) = delete;

  // The input for one tick; `out` starts at the input type's defaults.
  virtual void input(const BotView& view, Tick tick, snapshot::Record& out) = 0;
  // Asked every frame: whether the bot should be in the game now. Leaving
  // because of it is not a failure.
  virtual bool wants_connected(const Presence& /*presence*/) { return true; }
  // Whether the runner replays this bot's predicted world through the
  // prediction sync test every --sync-test-interval seconds, with inputs
  // from a fresh script of the same kind.
  virtual bool runs_sync_test() const { return false; }
  // Whether input() is shown the world at exactly the view time its input
  // claims (BotView::world, BotView::interpolated): for scripts that aim a
  // lag-compensated weapon. Costs an interpolation per input.
  virtual bool views_at_input_time() const { return false; }
  // Every frame after the client's update, with the newest server state:
  // for scripts that read the server's verdicts. Called only when
  // observes() is true.
  virtual bool observes() const { return false; }
  virtual void observe(const BotView& /*newest*/) {}
  // The bot's client was dropped (it left, or was disconnected): answers
  // still awaited from the server will not come.
  virtual void client_closed() {}
  // What the script scored, added to the run's hit registration.
  virtual ShotFigures shots() const { return {}; }
};

struct ScriptInfo {
  std::string name;
  std::string description;
  std::function<std::unique_ptr<BotScript>(std::uint64_t seed)> make;
};

struct BotsSpec {
  // The binary's name, for messages and --help.
  std::string program = "tickwire-bots";
  std::string game_name;     // "mygame", in --help and the report
  std::string game_version;  // printed by --version
  // One game object per bot (and per sync test). Null: the binary has no
  // game of its own and needs --thin --schema FILE.
  std::function<std::unique_ptr<prediction::NetGame>()> make_game;
  // The game's scripts, in the order --help lists them; the generic ones
  // (generic_scripts()) follow.
  std::vector<ScriptInfo> scripts;
  // --script's default; empty: the first of `scripts` (or generic-walk).
  std::string default_script;
};

// Parses the command line, runs the bots against the server and reports.
// Exit status: 0 pass, 1 a threshold failed, 2 bad flags.
int run_bots(int argc, const char* const* argv, const BotsSpec& spec);

// The scripts that need nothing but the schema: they draw the input
// record's fields within their declared ranges (generic-idle,
// generic-held, generic-walk, generic-bursts).
const std::vector<ScriptInfo>& generic_scripts();

// A game with no rules, from a schema alone: it names the input type and
// nothing else (no avatar, no simulation). What thin bots with --schema
// play; throws std::invalid_argument when `input_type` is not a record type.
std::unique_ptr<prediction::NetGame> make_schema_game(snapshot::Schema schema, snapshot::TypeId input_type);

// The seed of bot `index` in a run seeded with `run_seed`: distinct per
// bot, and the same on every machine.
std::uint64_t bot_seed(std::uint64_t run_seed, std::size_t index);

}  // namespace tickwire::bots
