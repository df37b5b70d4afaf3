#pragma once
// The client runtime a game embeds. Call update(now) once per frame: it
// polls the transport, advances the time system, runs every predicted tick
// that is due (sampling the game's input and calling its simulate), applies
// the snapshots that arrived with rollback and replay, and prepares what to
// draw: the client's own entities predicted and smoothed, everyone else's
// interpolated behind the server. It never blocks, reads no clock and
// starts no thread, so hundreds of clients can live in one process.
//
//   arena::Game game;
//   client::Client c(std::move(transport), game, sample_input, {});
//   c.connect(server_address, now);
//   every frame: c.update(now); draw(c.view());

#include <spdlog/logger.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tickwire/client/draw_metrics.h"
#include "tickwire/client/timeline_blend.h"
#include "tickwire/core/bit_stream.h"
#include "tickwire/core/network_time.h"
#include "tickwire/core/packet_channel.h"
#include "tickwire/core/packet_header.h"
#include "tickwire/core/result.h"
#include "tickwire/core/tick.h"
#include "tickwire/core/time.h"
#include "tickwire/prediction/client_prediction.h"
#include "tickwire/prediction/correction_cause.h"
#include "tickwire/prediction/input_packet.h"
#include "tickwire/prediction/input_redundancy.h"
#include "tickwire/prediction/net_game.h"
#include "tickwire/snapshot/interpolator.h"
#include "tickwire/snapshot/receiver.h"
#include "tickwire/snapshot/world.h"
#include "tickwire/timesync/time_provider.h"
#include "tickwire/timesync/time_system.h"
#include "tickwire/transport/transport.h"

namespace tickwire::client {

using snapshot::EntityId;
using snapshot::TypeId;

// The most ticks of input one input packet may stand for
// (ClientConfig::input_interval).
inline constexpr std::uint32_t kMaxInputInterval = 8;

struct ClientConfig {
  std::string name = "player";
  // The schema hash in the protocol fingerprint; unset: the game's schema.
  std::optional<std::uint64_t> schema_hash;
  Duration connect_timeout = Duration::seconds(5);  // connect to Welcome
  Duration timeout = Duration::seconds(5);          // nothing heard from the server
  // Before inputs flow (and whenever none went out for this long) the
  // client sends keep-alives, so round trips can be measured.
  Duration keep_alive_interval = Duration::millis(50);
  // Makes the time provider once the server's tick rate is known; unset:
  // timesync::ClientTimeProvider with its defaults.
  std::function<std::unique_ptr<timesync::TimeProvider>(std::uint32_t tick_rate)> time_provider;
  std::uint32_t max_ticks_per_update = 8;  // see timesync::TimeSystemConfig
  // Prediction: deepest replay, input redundancy, correction smoothing.
  std::uint32_t max_replay_ticks = 32;
  // inputs.redundancy is the most copies a packet may carry; within it, the
  // redundancy policy sets how many each input rides in from the bursts of
  // loss it sees on the uplink (prediction/input_redundancy.h).
  prediction::InputHistoryConfig inputs{.capacity = 256, .redundancy = 16};
  prediction::InputRedundancyConfig input_redundancy{};
  // Ticks of input per input packet. 1 sends each tick's input the tick it
  // is sampled. N > 1 sends one packet every N ticks carrying the N new
  // inputs and the redundant copies: each input still rides in as many
  // packets (a packet reaches back inputs.redundancy x N ticks at most,
  // within prediction::kMaxInputsPerPacket). The server reads N times fewer
  // datagrams and the uplink carries N times fewer headers, which is what a
  // server of many clients or a metered uplink wants. The price is latency:
  // the first input of a batch waits N - 1 ticks before it leaves, and a
  // lost packet's inputs come with the next one N ticks later rather than
  // one, so the client runs further ahead of the server: about N - 1 ticks
  // more on a clean link, more on a lossy one. The default time provider
  // learns this from the server's arrival reports (the wait is part of the
  // uplink delay it measures); a custom provider that ignores them must add
  // it itself. The player's own actions are predicted as before, but the
  // server's answer to them, and other players' view of them, come later.
  // Snapshot acknowledgements ride in input packets and go at the same
  // rate; keep-alives wait a tick longer than the interval. 1..8.
  std::uint32_t input_interval = 1;
  // Corrections fade over smoothing.duration, a large one no faster than
  // smoothing.max_correction_speed: 8 units a second here (metres, for a
  // game of human scale), so no correction of a walking player or a rolling
  // ball pops; set it to your game's scale.
  prediction::SmoothingConfig smoothing{.max_correction_speed = 8.0F};
  // An entity that starts or stops being predicted (NetGame::
  // predicted_entities) moves between the interpolated timeline and the
  // predicted one: its drawing blends from one to the other over this long,
  // so it never jumps. Zero: it jumps.
  Duration prediction_switch_blend = Duration::millis(200);
  // Whether other players' entities that the game lists among the
  // predicted are predicted (with NetGame::guess_input's guess of their
  // input) or left on the interpolated timeline.
  bool predict_remote_players = false;
  // A drawn entity that moves further in one frame than its velocity
  // explains, by more than this (game units), is a visual pop
  // (ClientStats::visual_pops).
  float visual_pop_distance = 0.25F;
  // What each snapshot is checked for against the prediction: replays
  // skipped when everything matched, an audit of those skips, per-field
  // tolerances (prediction::PredictionChecks, docs/prediction.md). Checked
  // against the game's schema at construction; set_prediction_checks
  // changes them while the client runs.
  prediction::PredictionChecks prediction_checks{};
  // A predicted spawn the server has not confirmed once its state is this
  // many ticks past the spawn is removed (1..65536).
  std::uint32_t spawn_confirm_ticks = 32;
  snapshot::InterpolationConfig interpolation{};
  // Snapshot states kept; must equal the server's.
  std::uint32_t snapshot_history_ticks = 64;
  // A thin client does the whole protocol (handshake, time sync, inputs
  // with redundancy, acks, decoding every snapshot to keep its baselines)
  // but neither predicts nor interpolates: it samples an input for each
  // tick without simulating it, and view(), authoritative_world() and
  // avatar() stay empty. For load generators, which need many clients'
  // traffic and none of their pictures.
  bool thin = false;
  // The server's codebook (ServerConfig::snapshot_codebook), when it codes
  // snapshots with one; its hash is part of the protocol fingerprint, so a
  // client with another codebook, or none, is denied at connect. A codebook
  // made for another schema is refused at construction. Unset: the game's
  // (NetGame::snapshot_codebook), unless adaptive_snapshot_models.
  std::shared_ptr<const snapshot::ModelState> snapshot_codebook;
  // True: without snapshot_codebook, expect snapshots coded with adaptive
  // models even when the game ships a codebook (for a server set so).
  bool adaptive_snapshot_models = false;
  std::shared_ptr<spdlog::logger> logger;

  // Throws std::invalid_argument naming the first bad setting.
  void validate() const;
};

enum class ClientState : std::uint8_t { kIdle, kConnecting, kHandshaking, kConnected, kDisconnected };
const char* to_string(ClientState state);

struct ClientEvent {
  enum class Type : std::uint8_t { kConnected, kDenied, kDisconnected, kEntitySpawned, kEntityDespawned };
  Type type = Type::kConnected;
  // Denied, disconnected: why. The other events end nothing and leave it
  // kUnknown, which means nothing for them: print an event with
  // to_string(event), which names a reason only where there is one.
  transport::DisconnectReason reason = transport::DisconnectReason::kUnknown;
  EntityId entity{};  // spawned, despawned: as the server numbers it
  TypeId entity_type{};
};
const char* to_string(ClientEvent::Type type);  // "connected", "denied", ...
// One line for a log: "connected", "denied: server full", "disconnected:
// timed out", "entity 12 spawned".
std::string to_string(const ClientEvent& event);

struct ClientStats {
  Duration rtt;                  // smoothed round trip
  Duration rtt_min;              // windowed minimum
  Duration jitter;               // snapshots' one-way jitter
  double loss = 0.0;             // fraction of the server's packets that never arrived
  Duration lead;                 // predicted time ahead of the estimated server time
  Duration interpolation_delay;  // estimated server time minus interpolation time
  std::uint64_t packets_in = 0;
  std::uint64_t packets_out = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t bad_packets = 0;
  std::uint64_t connect_retries = 0;    // handshakes the network lost, started again
  std::uint64_t snapshots = 0;          // decoded
  std::uint64_t snapshots_dropped = 0;  // undecodable or without a baseline
  std::uint64_t predicted_ticks = 0;
  std::uint64_t mispredictions = 0;  // snapshots that corrected a prediction
  std::uint64_t rollbacks = 0;       // replays run
  std::uint32_t max_rollback_depth = 0;
  std::uint64_t late_inputs = 0;         // reported by the server
  std::uint64_t missing_inputs = 0;      // reported by the server
  std::uint64_t hard_resets = 0;         // time jumps
  std::uint32_t input_copies = 0;        // packets each input rides in now (the redundancy policy)
  std::uint32_t input_loss_burst = 0;    // longest run of lost input packets lately
  double input_loss = 0.0;               // share of input packets lost lately
  std::uint64_t input_resends = 0;       // input packets sent a second time
  std::uint64_t server_ticks_heard = 0;  // packets that carried a newer server tick
  // How early our inputs reached the server, from its reports (see
  // timesync/input_margins.h): an input's margin is the server time its
  // tick started minus the arrival of its first copy, negative when late.
  std::uint64_t input_margins = 0;            // inputs with a margin (those whose report arrived)
  std::uint64_t input_margins_exact = 0;      // of those, known exactly; the rest count at their report's worst
  Duration input_margin_p50;                  // half the inputs arrived at least this early
  Duration input_margin_p99;                  // 99% did: the low tail (the 1st percentile)
  std::uint32_t late_inputs_last_second = 0;  // reported during the last whole second
  std::uint64_t late_burst_seconds = 0;       // whole seconds in which over 1% of the inputs sent were late
  // Why snapshots corrected the prediction (docs/prediction.md): corrected
  // entities by cause (indexed by prediction::CorrectionCause) and by
  // entity type (indexed by TypeId value; empty until the first).
  prediction::CorrectionCounts mispredictions_by_cause{};
  std::vector<std::uint64_t> mispredictions_by_type;
  // What corrections did to the picture, in the game's units (positions of
  // prediction::MotionFields): how far each moved what was drawn, at the
  // first frame after it, and frames in which a drawn entity moved further
  // than its velocity explains by more than ClientConfig::visual_pop_distance
  // (teleports excepted).
  std::uint64_t corrections_drawn = 0;
  double correction_p50 = 0.0;
  double correction_p99 = 0.0;
  std::uint64_t visual_pops = 0;
  std::uint64_t frames_drawn = 0;
};

// What update() draws into view(): teaching toggles for a viewer. They
// change only the drawing; prediction, inputs and snapshots run as always,
// so turning one back on shows the usual picture at once.
struct DrawOptions {
  bool prediction = true;     // off: this client's own entities drawn from the snapshots, like the others
  bool interpolation = true;  // off: entities drawn from the snapshots are at the newest one, raw
  bool smoothing = true;      // off: a correction of a predicted entity is drawn as the jump it is
  bool operator==(const DrawOptions&) const = default;
};

class Client {
 public:
  // `game` must outlive the client; `sampler` fills in the player's input
  // for each predicted tick. Throws std::invalid_argument for a bad config
  // or a null transport.
  Client(std::unique_ptr<transport::Transport> transport, prediction::NetGame& game, prediction::InputSampler sampler,
         ClientConfig config);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Starts connecting. Fails when already connecting or connected.
  Result<void> connect(const transport::Address& server, Time now);
  // Once per frame. Never blocks.
  void update(Time now);
  // Optional, between frames on the same thread: reads what has arrived
  // and notes when, without running a frame; the next update() handles it
  // as having arrived then. A game that waits for its next frame (or a
  // tool running many clients) calls it as traffic comes, so round trips
  // and clock readings leave out the wait for the frame. Never blocks;
  // holds at most kMaxArrivals events, the rest wait in the transport.
  void receive(Time now);
  // When the client next wants a receive() or update() call between
  // frames: the second sending of an input packet on a lossy uplink
  // (prediction/input_redundancy.h). A loop that waits for traffic between
  // frames should wake by then; one that does not loses only the benefit
  // (the copy then goes out with the next frame).
  std::optional<Time> next_deadline() const { return resend_at_; }
  static constexpr std::size_t kMaxArrivals = 256;
  // Leaves with kRequested; the server sees the reason.
  void disconnect(Time now);

  std::optional<ClientEvent> poll_event();
  ClientState state() const { return state_; }
  std::optional<std::uint32_t> client_id() const { return client_id_; }
  std::uint32_t tick_rate() const { return tick_rate_; }
  std::uint32_t send_rate() const { return send_rate_; }
  std::optional<transport::DisconnectReason> disconnect_reason() const { return disconnect_reason_; }

  // --- Drawing, after update() ---
  // Every entity as it should be drawn this frame: the predicted ones at
  // the predicted time (smoothed after corrections), the others
  // interpolated at the interpolation time. Ids are the server's, except
  // predicted spawns not yet confirmed (ids above the server's range).
  const snapshot::World& view() const { return view_; }
  // Applies from the next update(), and to later sessions.
  void set_draw_options(const DrawOptions& options);
  // Replaces ClientConfig::prediction_checks from the next snapshot on, for
  // this session and later ones. Throws std::invalid_argument for a
  // tolerance that is not a field of the game's schema, changing nothing.
  void set_prediction_checks(const prediction::PredictionChecks& checks);
  const prediction::PredictionChecks& prediction_checks() const { return config_.prediction_checks; }
  const DrawOptions& draw_options() const { return draw_options_; }
  // The player's avatar, once the server spawned it and a snapshot
  // carried it.
  std::optional<EntityId> avatar() const { return avatar_; }
  // The predicted world at the newest predicted tick (unsmoothed).
  const snapshot::World* predicted_world() const;
  // The newest server state decoded, and its tick.
  const snapshot::World& authoritative_world() const { return authoritative_; }
  std::optional<Tick> authoritative_tick() const { return authoritative_tick_; }
  std::optional<Tick> predicted_tick() const;
  // How far the predicted time is into the tick after the last one run,
  // in [0, 1): for blending the last two predicted ticks.
  double partial_tick() const;
  NetworkTime predicted_time() const { return time_ ? time_->predicted_time() : NetworkTime(1); }
  NetworkTime interpolation_time() const { return time_ ? time_->interpolation_time() : NetworkTime(1); }

  const ClientStats& stats() const { return stats_; }
  // The parts, for tools that want every figure.
  const timesync::TimeSystem* time_system() const { return time_.get(); }
  const prediction::ClientPrediction* prediction() const { return prediction_.get(); }
  const snapshot::SnapshotReceiver& receiver() const { return receiver_; }
  // Every input margin of the session so far (the histogram behind the
  // stats' quantiles); null before the session starts.
  const timesync::InputMarginMonitor* input_margins() const {
    return time_ ? &time_->measurements()->input_margins() : nullptr;
  }

 private:
  void handle_event(transport::TransportEvent& event, Time now);
  void handle_welcome(std::span<const std::uint8_t> bytes, Time now);
  void handle_unreliable(std::span<const std::uint8_t> bytes, Time now);
  void handle_snapshot(const PacketHeader& header, BitReader& reader, std::span<const std::uint8_t> bytes, Time now);
  bool accept_header(const PacketHeader& header, Time now);
  void run_session(Time now);
  void apply_snapshot(Tick tick);
  void update_predicted_set();
  // Predicts `id`, one the game wants predicted, in its role; false: it
  // stays interpolated (another player's, predict_remote_players off).
  bool predict_wanted(EntityId id, prediction::PlayerId me);
  // `id` moves between the timelines before the next frame.
  void switch_timeline(EntityId id);
  void send_inputs(Time now);
  void send_report(Time now);
  void draw(Time now);
  void send_hello(Time now);
  void send_keep_alive(Time now);
  Duration keep_alive_after() const;
  bool send_packet(std::span<const std::uint8_t> bytes, Time now);
  void start_session();
  // client_corrections.cpp: what each snapshot's corrections are blamed on.
  void start_correction_causes();
  void set_correction_context();
  bool retry_connect(transport::DisconnectReason reason, Time now);
  void finish(transport::DisconnectReason reason, bool denied);
  void fail(transport::DisconnectReason reason, Time now);
  void refresh_stats(Time now);
  void refresh_draw_stats(Time now);  // draw_metrics.cpp

  std::unique_ptr<transport::Transport> transport_;
  prediction::NetGame& game_;
  prediction::InputSampler sampler_;
  ClientConfig config_;
  std::shared_ptr<spdlog::logger> log_;
  ClientState state_ = ClientState::kIdle;
  PeerId server_;
  transport::Address server_address_;
  Time connect_started_;
  Time last_heard_;
  Time last_sent_;
  std::optional<std::uint32_t> client_id_;
  std::uint32_t tick_rate_ = 0;
  std::uint32_t send_rate_ = 0;
  std::optional<transport::DisconnectReason> disconnect_reason_;
  std::deque<ClientEvent> events_;
  ClientStats stats_;
  // Read by receive(), handled by the next update() at the time they came.
  struct Arrival {
    transport::TransportEvent event;
    Time at;
  };
  std::vector<Arrival> arrivals_;
  bool greet_ = false;  // a keep-alive is due at once: the session just started

  // The session, from the Welcome on.
  PacketChannel channel_;
  std::vector<Sequence> acked_;  // take_acked's, kept for its storage
  std::unique_ptr<timesync::TimeSystem> time_;
  std::unique_ptr<prediction::ClientPrediction> prediction_;
  prediction::InputRedundancy redundancy_;
  std::optional<Time> resend_at_;   // the last input packet goes out again then
  std::uint32_t ticks_unsent_ = 0;  // sampled since the last input packet (config_.input_interval)
  void resend_inputs(Time now);
  bool send_input_packet(Time now);
  snapshot::SnapshotReceiver receiver_;
  snapshot::Interpolator interpolator_;
  snapshot::World authoritative_;
  std::optional<Tick> authoritative_tick_;
  std::optional<Tick> newest_server_tick_;
  std::optional<EntityId> avatar_;
  snapshot::World view_;
  DrawMetrics draw_metrics_;
  DrawOptions draw_options_;
  std::vector<EntityId> carried_;
  std::vector<EntityId> wanted_;
  std::vector<EntityId> drop_;
  std::optional<TimelineBlend> switch_blend_;  // from the session's start
  std::vector<std::uint8_t> payload_;
  prediction::InputPacket input_packet_;    // reused by every input packet
  std::vector<std::uint8_t> packet_bytes_;  // the bytes of the last one, kept for their capacity
  std::optional<Sequence> first_sequence_;
  // The client tells the server what it sees this often (core/client_report.h).
  static constexpr Duration kReportInterval = Duration::seconds(1);
  std::optional<Sequence> newest_sequence_;
  std::uint64_t packets_accepted_ = 0;
  std::uint64_t expected_packets_ = 0;
  std::optional<Time> last_report_;
  // For the causes of corrections: the input type's defaults and a guess
  // of another player's input (NetGame::guess_input), and the server's
  // count of this player's missed inputs when the last snapshot applied.
  std::optional<Time> quantiles_at_;  // when refresh_draw_stats last sorted the correction sizes
  std::uint64_t quantiles_count_ = 0;  // and how many it had
  std::optional<snapshot::Record> guess_neutral_;
  std::optional<snapshot::Record> guess_scratch_;
  std::uint64_t inputs_missed_seen_ = 0;
};

}  // namespace tickwire::client
