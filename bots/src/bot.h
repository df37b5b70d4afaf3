#pragma once
// One bot: a full client runtime with its own game object and its own
// UDP socket (optionally behind a ConditionedTransport), driven by a
// script. It keeps its figures across the clients it uses: a bot that
// leaves and rejoins gets a fresh client, and the old one's counters are
// added to what the bot reports.

#include <spdlog/logger.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bot_socket.h"
#include "game_setup.h"
#include "metrics.h"
#include "tickwire/bots/bots.h"
#include "tickwire/client/client.h"
#include "tickwire/core/time.h"
#include "tickwire/snapshot/interpolator.h"
#include "tickwire/transport/address.h"
#include "tickwire/transport/conditioned_transport.h"
#include "tickwire/transport/connect_token.h"
#include "tickwire/transport/enet_transport.h"

namespace tickwire::bots {

struct BotConfig {
  std::size_t index = 0;
  std::uint64_t seed = 1;  // the bot's own, from bot_seed()
  std::string name;
  std::shared_ptr<const GameSetup> game;
  const ScriptInfo* script = nullptr;  // one of game->scripts
  transport::Address server;
  // Impairments applied inside this bot's transport; none: a plain socket.
  std::optional<transport::ConditionedConfig> link;
  std::optional<std::uint64_t> schema_hash;
  std::optional<transport::TokenKey> token_key;  // set: mint a connect token per join
  SessionSecurity security;                      // --server-key, --plaintext
  // Silence after which a bot's client and its ENet peer give up; the
  // connect may take twice as long (several round trips on a slow link).
  Duration timeout = Duration::seconds(5);
  Duration sync_test_interval = Duration::seconds(2);
  bool thin = false;                                     // client::ClientConfig::thin: no prediction, no interpolation
  std::uint32_t input_interval = 1;                      // client::ClientConfig::input_interval
  std::string time_provider = "adaptive";                // timesync::make_time_provider's name
  std::shared_ptr<const snapshot::ModelState> codebook;  // client::ClientConfig::snapshot_codebook
  bool adaptive_models = false;                          // client::ClientConfig::adaptive_snapshot_models
  std::shared_ptr<spdlog::logger> logger;
};

class Bot {
 public:
  // Throws std::invalid_argument without a game or a script.
  explicit Bot(BotConfig config);
  ~Bot();
  Bot(const Bot&) = delete;
  Bot& operator=(const Bot&) = delete;

  // Once per frame: joins or leaves as the script asks, updates the client
  // and handles its events. The first call joins.
  void update(Time now);
  // Says goodbye at the end of the run (not counted as a disconnect).
  void leave(Time now);
  // After leave(): lets the client finish saying goodbye; never rejoins.
  void drain(Time now);
  // Between frames: lets the conditioned link send and take in what is
  // due, so its delays are not rounded up to a frame.
  void service(Time now);
  // Between frames: the client reads what has arrived (Client::receive).
  void receive(Time now);
  // The socket to wait on; null while the bot has no client or its
  // traffic goes through a conditioned link.
  transport::EnetTransport* socket() const { return socket_; }

  BotFigures figures(Time now) const;
  bool started() const { return first_join_.has_value(); }
  bool connected() const { return connected_; }
  bool connected_once() const { return connected_once_; }
  std::uint32_t tick_rate() const { return client_ ? client_->tick_rate() : 0; }
  // When the client wants a receive() between frames (client::Client::next_deadline).
  std::optional<Time> next_deadline() const { return client_ ? client_->next_deadline() : std::nullopt; }
  const std::map<std::string, std::uint64_t>& disconnects() const { return disconnects_; }
  const std::map<std::string, std::uint64_t>& denials() const { return denials_; }
  std::uint64_t leaves_by_script() const { return leaves_by_script_; }
  const std::string& first_desync() const { return first_desync_; }

 private:
  void join(Time now);
  void depart(Time now);  // asked-for leave: goodbye, then retire
  void retire(Time now);  // keeps the client's counters, drops the client
  void handle(const client::ClientEvent& event, Time now);
  void pump(Time now);  // updates the client and handles its events
  void maybe_check_sync(Time now);
  void sample_input(Tick tick, snapshot::Record& record);
  // For a script that views_at_input_time(): the others interpolated at
  // the view time the input claims, into aim_world_; whether they lie
  // between two real states.
  bool sample_at_view_time();
  BotView view_of(const snapshot::World& world) const;
  BotFigures client_counters(Time now) const;
  // What crossed this client's socket so far.
  WireFigures wire_figures() const;

  BotConfig config_;
  std::unique_ptr<BotScript> script_;
  std::unique_ptr<prediction::NetGame> game_;
  std::unique_ptr<client::Client> client_;
  transport::ConditionedTransport* link_ = nullptr;  // inside client_, when conditioned
  transport::EnetTransport* socket_ = nullptr;       // inside client_, when not
  std::uint64_t joins_ = 0;
  std::optional<Time> first_join_;
  Time changed_at_;  // last join, welcome or retirement (Presence::since_change)
  bool connected_ = false;
  bool connected_once_ = false;
  bool ended_ = false;    // the client was turned away or dropped; it does not come back
  bool leaving_ = false;  // we said goodbye: the disconnect that follows is ours
  Time connected_since_;
  BotFigures retired_;  // counters of the clients already dropped
  std::map<std::string, std::uint64_t> disconnects_;
  std::map<std::string, std::uint64_t> denials_;
  std::uint64_t leaves_by_script_ = 0;
  std::uint64_t sampled_ = 0;  // inputs the current client sampled
  std::optional<Time> next_sync_check_;
  std::uint64_t sync_checks_ = 0;
  std::uint64_t desyncs_ = 0;
  std::string first_desync_;
  // Views at the input's claimed view time (views_at_input_time()).
  std::unique_ptr<snapshot::Interpolator> aim_interpolator_;
  std::unique_ptr<snapshot::World> aim_world_;
};

}  // namespace tickwire::bots
