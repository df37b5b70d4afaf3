#pragma once
// The server runtime: accepts clients through the handshake and runs the
// game on a fixed tick, driven by the server time system. Per tick it
// feeds each client's input queue into the game's simulate, quantizes and
// captures the world, and at the send rate encodes each client its
// snapshot with the time system's feedback on that client's inputs. A
// client's sends fall on the ticks its id selects, so when the send rate is
// below the tick rate no tick carries every client.
//
// The caller owns the loop: call update(now) whenever time has passed or
// traffic may have arrived; next_tick_time() says when the next tick is
// due. Nothing here reads a clock (ServerConfig::clock, when set, only
// times the work of each tick) or starts a thread.

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tickwire/core/bit_stream.h"
#include "tickwire/core/client_report.h"
#include "tickwire/core/handshake.h"
#include "tickwire/core/logging.h"
#include "tickwire/core/network_time.h"
#include "tickwire/core/packet_header.h"
#include "tickwire/core/result.h"
#include "tickwire/core/tick.h"
#include "tickwire/core/time.h"
#include "tickwire/lagcomp/rewind_policy.h"
#include "tickwire/prediction/input_packet.h"
#include "tickwire/prediction/net_game.h"
#include "tickwire/server/server_config.h"
#include "tickwire/snapshot/entity_bits_cache.h"
#include "tickwire/snapshot/reference_probe.h"
#include "tickwire/snapshot/state_ring.h"
#include "tickwire/snapshot/world.h"
#include "tickwire/snapshot/world_state.h"
#include "tickwire/timesync/time_system.h"
#include "tickwire/transport/transport.h"

namespace tickwire::server {

using ClientId = std::uint32_t;

struct ServerEvent {
  enum class Type : std::uint8_t { kClientConnected, kClientDenied, kClientDisconnected };
  Type type = Type::kClientConnected;
  ClientId client = 0;  // 0 for a denied peer that never became a client
  std::string name;
  std::string address;
  // Denied, disconnected: why. A connect ends nothing and leaves it
  // kUnknown, which means nothing there: print an event with
  // to_string(event), which names a reason only where there is one.
  transport::DisconnectReason reason = transport::DisconnectReason::kUnknown;
  // The client id its connect token carried, when the server requires tokens.
  std::optional<std::uint64_t> token_client_id;
};
const char* to_string(ServerEvent::Type type);  // "connected", "denied", "disconnected"
// One line for a log, as the server's own log says it: "client 3 (ann)
// connected from 10.0.0.8:5100", "denied 10.0.0.8:5100: server full",
// "client 3 (ann) disconnected: timed out". The name is the client's
// own choice: escape it where that matters.
std::string to_string(const ServerEvent& event);

struct ClientStats {
  ClientId id = 0;
  std::string name;
  std::string address;
  Duration rtt;  // smoothed, from echoed timestamps
  std::uint64_t packets_in = 0;
  std::uint64_t packets_out = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t bad_packets = 0;
  std::uint64_t duplicate_packets = 0;
  std::uint64_t snapshots = 0;
  std::uint64_t inputs = 0;            // first copies of inputs queued
  std::uint64_t redundant_inputs = 0;  // later copies of inputs already queued (the client's redundancy)
  std::uint64_t missing_inputs = 0;    // ticks run without this client's input
  std::uint64_t late_inputs = 0;       // of those, inputs that came afterwards
  std::uint64_t rejected_inputs = 0;   // invalid, too far ahead or stale
  // Packets over the per-second budget, dropped unread.
  std::uint64_t rate_limited_packets = 0;
  // The latest arrival margin of an input (its tick's start minus its
  // arrival); negative when it came too late.
  std::optional<Duration> input_margin;
  // The client's own figures (mispredictions, rollbacks, its RTT), as it
  // last reported them: claims, kept apart from what the server measures.
  std::optional<ClientReport> reported;
  // The rewind policy's decisions on this client's view times (lag
  // compensation): claims used, replaced by the server's estimate, clamped.
  lagcomp::RewindStats rewind;
};

// How one tick went: `lateness` is how long after its due time it started,
// `duration` how long its work took (zero when ticks are not timed).
struct TickTiming {
  Tick tick;
  Duration lateness;
  Duration duration;
};

// Where the server's time went, summed over its life in microseconds of
// ServerConfig::phase_clock, else ServerConfig::clock (all zero with
// neither). Each phase is
// one block of work bracketed by two clock reads, so timing costs a few
// reads per tick, not per client.
struct PhaseTimes {
  std::uint64_t receive_us = 0;    // draining the transport and handling what came
  std::uint64_t simulate_us = 0;   // inputs, the game's step and capturing the world
  std::uint64_t relevancy_us = 0;  // the game's relevancy for each client sent to
  std::uint64_t encode_us = 0;     // encoding each client's snapshot packet
  std::uint64_t send_us = 0;       // handing packets to the transport and its flush
};

struct ServerStats {
  Tick tick;
  PhaseTimes phases;
  std::size_t clients = 0;
  std::uint64_t ticks_run = 0;
  std::uint64_t ticks_skipped = 0;  // due ticks dropped after a stall
  // Ticks whose work ended after the next tick was due (timed ticks only).
  std::uint64_t ticks_overrun = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t packets_in = 0;
  std::uint64_t packets_out = 0;
  std::uint64_t connects = 0;
  std::uint64_t denials = 0;
  std::uint64_t disconnects = 0;
  std::uint64_t snapshots = 0;
  std::uint64_t missing_inputs = 0;  // summed over clients, past and present
  // With a codebook, the shared path: changed entities whose coded bits
  // were copied from another client's snapshot of the tick, and those
  // coded afresh.
  std::uint64_t shared_bits_hits = 0;
  std::uint64_t shared_bits_misses = 0;
  // States the senders of the connected clients hold now (views: each a
  // possible baseline or motion reference; docs/snapshot-memory.md), and
  // the longest reference span the shared probe chose (0 before any, or
  // without the shared path): together they say where a client's memory is.
  std::uint64_t views_held = 0;
  std::int64_t longest_reference_span = 0;
  std::uint64_t late_inputs = 0;
  std::uint64_t rejected_inputs = 0;
  std::uint64_t rate_limited_packets = 0;  // summed over clients, past and present
  // Mispredictions the clients reported (their running totals, summed).
  std::uint64_t reported_mispredictions = 0;
  // The rewind policy's decisions, summed over clients past and present.
  lagcomp::RewindStats rewind;
  // Dropped packets by reason, indexed by ErrorCode.
  std::array<std::uint64_t, 16> bad_packets_by_reason{};
  std::uint64_t bad_packets() const;
};

class EncodePool;

class Server {
 public:
  // Hosts `game`, which must outlive the server. The first tick runs one
  // tick interval after `now`. Throws std::invalid_argument when the config
  // is invalid or the game does not run at its tick rate.
  Server(std::unique_ptr<transport::Transport> transport, prediction::NetGame& game, ServerConfig config, Time now);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Drains the transport, runs every tick that is due (up to the catch-up
  // limit) and sends what those ticks produced.
  void update(Time now);
  Time next_tick_time() const;

  // Disconnects every client with kServerShuttingDown and flushes. The
  // server accepts nobody afterwards.
  void shutdown(Time now);
  void disconnect(ClientId client, transport::DisconnectReason reason, Time now);

  std::optional<ServerEvent> poll_event();
  // The last tick run and the world as it left it.
  Tick tick() const { return tick_; }
  const snapshot::World& world() const { return world_; }
  // Timings of the ticks run since the last call (at most the last 4096).
  void take_tick_timings(std::vector<TickTiming>& out);
  const ServerConfig& config() const { return config_; }
  ServerStats stats() const;
  std::vector<ClientStats> client_stats() const;

  // Who the client's connect token says it is (client id and the backend's
  // user data); none for an unknown client or a server without tokens.
  std::optional<transport::PeerIdentity> identity_of(ClientId client) const;
  std::optional<transport::Address> local_address() const { return transport_->local_address(); }

 private:
  struct Slot;

  void handle_event(transport::TransportEvent& event, Time now);
  void handle_reliable(Slot& slot, const std::vector<std::uint8_t>& bytes, Time now);
  void handle_unreliable(Slot& slot, const std::vector<std::uint8_t>& bytes, Time now);
  void handle_hello(Slot& slot, std::span<const std::uint8_t> bytes, Time now);
  void handle_input(Slot& slot, BitReader& reader, Time now);
  void welcome(Slot& slot, Time now);
  void run_tick(const timesync::TickContext& ctx, Time now);
  void encode_snapshot(Slot& slot, Time now, std::size_t worker);
  void send_snapshot(Slot& slot, Time now);
  // Adds the time since `mark` to `phase` and moves the mark to now; a
  // no-op when ticks are not timed.
  void charge(std::uint64_t& phase, Time& mark);
  Time mark() const {
    const auto& clock = config_.phase_clock ? config_.phase_clock : config_.clock;
    return clock ? clock() : Time();
  }
  bool send_packet(Slot& slot, std::span<const std::uint8_t> bytes, Time now);
  void forget(Slot& slot);
  void count_inputs(Slot& slot);
  bool accept_header(Slot& slot, const PacketHeader& header, Time now);
  NetworkTime server_time_at(Time now) const;
  void bad_packet(Slot& slot, const Error& error, Time now);
  // The limits on what a joined client sends (server_limits.cpp). Each
  // returns false when the packet must go no further; the client may have
  // been dropped, so its slot must not be touched after a false.
  bool within_packet_budget(Slot& slot, Time now);
  bool charge_rejected_inputs(Slot& slot, Time now);
  void drop(PeerId peer, transport::DisconnectReason reason, Time now);
  void deny(Slot& slot, transport::DisconnectReason reason, const std::string& detail, Time now);
  void check_timeouts(Time now);
  std::size_t connected_clients() const;

  std::unique_ptr<transport::Transport> transport_;
  prediction::NetGame& game_;
  ServerConfig config_;
  ProtocolFingerprint fingerprint_;
  std::shared_ptr<spdlog::logger> log_;
  timesync::TimeSystem time_;
  Time last_update_;
  Tick tick_;
  std::uint32_t send_divisor_;  // ticks between sends to one client
  snapshot::World world_;
  // The world quantized at each recent tick, one capture for every
  // client: the senders' views of what each client holds point into it.
  // Twice the snapshot history deep, so that only an entity starved of
  // updates for longer than that is ever copied into a view.
  snapshot::WorldHistory history_;
  std::vector<prediction::PlayerInput> tick_inputs_;
  prediction::InputPacket input_scratch_;                     // every input packet is read into it
  std::vector<Slot*> sending_;                                // the clients this tick sends to, reused
  std::unique_ptr<EncodePool> encoders_;                      // with config.workers > 1
  std::function<void(std::size_t, std::size_t)> encode_job_;  // encodes sending_[i] at encode_now_ on worker w
  // With a codebook: each encoding thread's coded entity changes of the
  // tick, shared by the clients it encodes (snapshot/entity_bits_cache.h).
  std::vector<snapshot::EntityBitsCache> bit_caches_;
  // With a codebook: the reference span and motion choices, probed once
  // for every client (snapshot/reference_probe.h), so that clients with
  // the same baseline choose alike and share each other's coded changes.
  std::unique_ptr<snapshot::SharedReferenceProbe> reference_probe_;
  std::shared_ptr<const void> codebook_tables_;  // held while the server lives
  std::optional<Time> timeouts_checked_;         // when check_timeouts last read every slot
  Time encode_now_;
  std::vector<TickTiming> timings_;  // kept storage: a tick adds one
  std::size_t timings_next_ = 0;
  bool shutting_down_ = false;
  ClientId next_client_id_ = 1;
  std::map<PeerId, std::unique_ptr<Slot>> slots_;
  std::deque<ServerEvent> events_;
  ServerStats stats_;
  RateLimiter bad_packet_log_limit_{10, Duration::seconds(10)};
  // Warnings about peers over a limit and the disconnects that follow: a
  // hostile peer (or many) must not be able to flood the log.
  RateLimiter abuse_log_limit_{10, Duration::seconds(10)};
  // Kept apart so that the per-packet warnings never crowd out the line
  // saying why a client was disconnected.
  RateLimiter disconnect_log_limit_{20, Duration::seconds(10)};
};

}  // namespace tickwire::server
