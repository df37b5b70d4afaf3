#include "bot.h"

#include <stdexcept>
#include <utility>

#include "bot_socket.h"
#include "options.h"
#include "sync_check.h"
#include "tickwire/transport/enet_transport.h"

namespace tickwire::bots {
namespace {

using Event = client::ClientEvent::Type;
static_assert(kMaxInputInterval == static_cast<int>(client::kMaxInputInterval));

// The link's stream for the n-th join of a bot: every session draws fresh
// fates, the same ones on every run with the same --seed.
std::uint64_t link_seed(std::uint64_t bot, std::uint64_t join) { return bot_seed(bot ^ 0x6A09E667F3BCC909ULL, join); }

double ms(Duration d) { return d.millis_f(); }

}  // namespace

Bot::Bot(BotConfig config) : config_(std::move(config)) {
  if (!config_.game || config_.script == nullptr) throw std::invalid_argument("a bot needs a game and a script");
  script_ = config_.script->make(config_.seed);
  if (!script_) throw std::invalid_argument("--script " + config_.script->name + ": ScriptInfo::make gave no script");
}

Bot::~Bot() = default;

void Bot::update(Time now) {
  if (!first_join_) {
    first_join_ = now;
    join(now);
  }
  const bool wanted = script_->wants_connected(Presence{client_ != nullptr, connected_, now - changed_at_});
  if (client_ && !wanted && !ended_) {
    depart(now);
  } else if (!client_ && wanted && !ended_) {
    join(now);
  }
  pump(now);
  if (!client_) return;
  if (script_->observes()) script_->observe(view_of(client_->authoritative_world()));
  maybe_check_sync(now);
}

void Bot::drain(Time now) { pump(now); }

void Bot::service(Time now) {
  if (link_ != nullptr) link_->service(now);
}

void Bot::receive(Time now) {
  if (client_) client_->receive(now);
}

void Bot::pump(Time now) {
  if (!client_) return;
  client_->update(now);
  // An event may retire the client, so look again before each one.
  while (client_) {
    auto event = client_->poll_event();
    if (!event) break;
    handle(*event, now);
  }
}

void Bot::leave(Time now) {
  if (!client_) return;
  if (connected_) retired_.connected_seconds += (now - connected_since_).seconds_f();
  connected_ = false;
  leaving_ = true;
  client_->disconnect(now);
}

void Bot::join(Time now) {
  ++joins_;
  leaving_ = false;
  changed_at_ = now;
  // The game's own hook: setup made one game, but a later call may still
  // fail, and ends this bot rather than the run.
  std::string no_game = "BotsSpec::make_game gave no game";
  try {
    game_ = config_.game->make_game();
  } catch (const std::exception& e) {
    no_game = e.what();
  }
  if (!game_) {
    ++disconnects_["no game: " + no_game];
    ended_ = true;
    return;
  }
  auto net = bot_socket_config(config_.timeout, config_.server, {config_.index, config_.token_key}, config_.security);
  if (!net) {
    ++disconnects_["no token: " + net.error().detail];
    ended_ = true;
    return;
  }
  auto socket = transport::EnetTransport::create(net.value());
  if (!socket) {
    ++disconnects_["no socket: " + socket.error().detail];
    ended_ = true;
    return;
  }
  socket_ = socket.value().get();
  std::unique_ptr<transport::Transport> wire = std::move(socket).value();
  if (config_.link) {
    socket_ = nullptr;
    transport::ConditionedConfig link = *config_.link;
    link.seed = link_seed(config_.seed, joins_);
    auto conditioned = std::make_unique<transport::ConditionedTransport>(std::move(wire), link);
    link_ = conditioned.get();
    wire = std::move(conditioned);
  }
  sampled_ = 0;
  client::ClientConfig cc;
  cc.name = config_.name;
  cc.schema_hash = config_.schema_hash;
  cc.timeout = config_.timeout;
  cc.connect_timeout = config_.timeout * 2;
  cc.logger = config_.logger;
  cc.thin = config_.thin;
  cc.input_interval = config_.input_interval;
  cc.snapshot_codebook = config_.codebook;
  cc.adaptive_snapshot_models = config_.adaptive_models;
  try {
    client_ = std::make_unique<client::Client>(
        std::move(wire), *game_, [this](Tick tick, snapshot::Record& r) { sample_input(tick, r); }, cc);
  } catch (const std::exception& e) {
    ++disconnects_[std::string("no client: ") + e.what()];
    ended_ = true;
    link_ = nullptr;
    socket_ = nullptr;
    game_.reset();
    return;
  }
  if (auto started = client_->connect(config_.server, now); !started) {
    ++disconnects_["connect refused: " + started.error().detail];
    ended_ = true;
    retire(now);
  }
}

void Bot::depart(Time now) {
  ++leaves_by_script_;
  leave(now);
  retire(now);
}

void Bot::retire(Time now) {
  if (!client_) return;
  add_counters(retired_, client_counters(now));
  connected_ = false;
  changed_at_ = now;
  // The client goes first: it holds a reference to the game.
  link_ = nullptr;
  socket_ = nullptr;
  client_.reset();
  game_.reset();
  script_->client_closed();
  aim_interpolator_.reset();
  aim_world_.reset();
}

void Bot::handle(const client::ClientEvent& event, Time now) {
  switch (event.type) {
    case Event::kConnected:
      if (leaving_) break;
      connected_ = true;
      connected_once_ = true;
      connected_since_ = now;
      changed_at_ = now;
      if (script_->runs_sync_test() && !next_sync_check_) next_sync_check_ = now + config_.sync_test_interval;
      break;
    case Event::kDenied:
      ++denials_[transport::to_string(event.reason)];
      ended_ = true;
      retire(now);
      break;
    case Event::kDisconnected:
      if (!leaving_) ++disconnects_[transport::to_string(event.reason)];
      ended_ = true;
      retire(now);
      break;
    case Event::kEntitySpawned:
    case Event::kEntityDespawned: break;
  }
}

BotView Bot::view_of(const snapshot::World& world) const {
  BotView view{world, client_->avatar(), config_.game->schema, config_.game->input_type, client_->client_id()};
  view.predicted = client_->predicted_world();
  view.tick_rate = client_->tick_rate();
  return view;
}

bool Bot::sample_at_view_time() {
  if (!aim_interpolator_) {
    aim_interpolator_ = std::make_unique<snapshot::Interpolator>(config_.game->schema);
    aim_world_ = std::make_unique<snapshot::World>(config_.game->schema);
  }
  // Inside the client's tick: interpolation_time() is the view time this
  // input claims.
  return aim_interpolator_->sample(client_->receiver(), client_->interpolation_time().ticks_f(), *aim_world_) ==
         snapshot::SampleMode::kInterpolated;
}

void Bot::sample_input(Tick tick, snapshot::Record& record) {
  ++sampled_;
  if (!script_->views_at_input_time()) {
    script_->input(view_of(client_->view()), tick, record);
    return;
  }
  const bool interpolated = sample_at_view_time();
  BotView view = view_of(*aim_world_);
  view.interpolated = interpolated;
  script_->input(view, tick, record);
}

void Bot::maybe_check_sync(Time now) {
  if (!next_sync_check_ || now < *next_sync_check_ || !connected_) return;
  next_sync_check_ = now + config_.sync_test_interval;
  const snapshot::World* world = client_->predicted_world();
  const std::optional<Tick> tick = client_->predicted_tick();
  const std::optional<std::uint32_t> player = client_->client_id();
  if (world == nullptr || !tick || !player) return;
  const SyncCheckResult result = run_sync_check(*world, *tick, *player, client_->tick_rate(),
                                                {config_.game.get(), config_.script}, config_.seed + sync_checks_);
  sync_checks_ += result.checks;
  if (result.failure) {
    ++desyncs_;
    if (first_desync_.empty()) first_desync_ = config_.name + ": " + *result.failure;
  }
}

BotFigures Bot::client_counters(Time now) const {
  BotFigures f;
  if (!client_) return f;
  const client::ClientStats& s = client_->stats();
  f.connected = connected_;
  f.synced = client_->time_system() != nullptr && client_->time_system()->initialized();
  f.rtt_ms = ms(s.rtt);
  f.jitter_ms = ms(s.jitter);
  f.loss = s.loss;
  f.lead_ms = ms(s.lead);
  f.interpolation_delay_ms = ms(s.interpolation_delay);
  f.connected_seconds = connected_ ? (now - connected_since_).seconds_f() : 0.0;
  f.bytes_in = s.bytes_in;
  f.bytes_out = s.bytes_out;
  f.snapshots = s.snapshots;
  // A thin client predicts nothing; the inputs it sampled are what it sent.
  f.predicted_ticks = config_.thin ? sampled_ : s.predicted_ticks;
  f.mispredictions = s.mispredictions;
  f.rollbacks = s.rollbacks;
  f.max_rollback_depth = s.max_rollback_depth;
  f.late_inputs = s.late_inputs;
  f.missing_inputs = s.missing_inputs;
  f.hard_resets = s.hard_resets;
  f.wire = wire_figures();
  if (const timesync::InputMarginMonitor* margins = client_->input_margins()) {
    f.margins = margins->histogram();
    f.margins_exact = margins->exact();
  }
  f.late_burst_seconds = s.late_burst_seconds;
  f.corrections.by_cause = s.mispredictions_by_cause;
  f.corrections.by_type = s.mispredictions_by_type;
  f.corrections.corrections_drawn = s.corrections_drawn;
  f.corrections.correction_m_p50 = s.correction_p50;
  f.corrections.correction_m_p99 = s.correction_p99;
  f.corrections.visual_pops = s.visual_pops;
  f.corrections.frames_drawn = s.frames_drawn;
  return f;
}

WireFigures Bot::wire_figures() const {
  std::optional<transport::WireStats> w;
  if (socket_ != nullptr) w = socket_->wire_stats();
  if (link_ != nullptr) w = link_->wire_stats();
  if (!w) return {};
  return {w->datagrams_received, w->bytes_received, w->datagrams_sent, w->bytes_sent};
}

BotFigures Bot::figures(Time now) const {
  BotFigures f = client_counters(now);
  add_counters(f, retired_);
  f.shots = script_->shots();
  f.sync_checks = sync_checks_;
  f.desyncs = desyncs_;
  return f;
}

}  // namespace tickwire::bots
