#pragma once

#include <spdlog/logger.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "tickwire/core/time.h"

namespace tickwire::snapshot {
struct ModelState;
class CodebookTrainer;
}  // namespace tickwire::snapshot

namespace tickwire::server {

struct ServerConfig {
  std::uint32_t tick_rate = 60;  // simulation ticks per second
  std::uint32_t send_rate = 30;  // snapshots per second; must divide tick_rate
  std::size_t max_clients = 64;
  // The schema hash in the protocol fingerprint; unset: the game's schema.
  std::optional<std::uint64_t> schema_hash;
  // Transport-connected but no Hello yet, or welcomed but not heard from since.
  Duration handshake_timeout = Duration::seconds(5);
  Duration client_timeout = Duration::seconds(5);  // nothing heard from a client after that
  // Most ticks one update() may run after a stall; further due ticks are
  // skipped (and counted) so a slow server cannot spiral.
  int max_catch_up_ticks = 8;
  // A client sending more undecodable packets than this within one
  // bad_packet_window is disconnected with kProtocolError.
  int max_bad_packets = 32;
  Duration bad_packet_window = Duration::seconds(10);
  // Snapshot budget per client: bytes per packet and per second on
  // average (0: no average cap).
  std::size_t max_snapshot_bytes = 1100;
  std::uint32_t snapshot_bytes_per_second = 0;
  // Snapshot states kept per client; must equal the clients' (64 at 60 Hz
  // is a round trip of about a second).
  std::uint32_t snapshot_history_ticks = 64;
  // States in flight per client that keep their coding models
  // (SenderConfig::max_models_in_flight): the server's memory per client on
  // long round trips against a little bandwidth; 0: no bound.
  std::uint32_t snapshot_models_in_flight = 4;
  // States in flight kept per client at all (SenderConfig::
  // max_views_in_flight): on a long round trip, most of a client's memory,
  // against a baseline a tick or two older, which costs bytes and encoding
  // time; 0: no bound, else 2..4096.
  std::uint32_t snapshot_views_in_flight = 16;
  // A codebook (snapshot/codebook.h): every client's snapshots are coded
  // with its fixed models instead of models carried per client, so no
  // state keeps models and each entity's coded change is shared by the
  // clients whose baselines match (the shared path). Clients must hold the
  // same one: its hash is part of the protocol fingerprint. Unset: the
  // game's (NetGame::snapshot_codebook), unless adaptive_snapshot_models.
  std::shared_ptr<const snapshot::ModelState> snapshot_codebook;
  // True: without snapshot_codebook, code with models adapted per client
  // even when the game ships a codebook (fewer bytes when the traffic is
  // unlike the codebook's training run, more CPU per client:
  // docs/snapshots.md, "What is shared"). Clients must do the same.
  bool adaptive_snapshot_models = false;
  // When set, the models every snapshot ended with are added to it, on the
  // loop's thread, to train a codebook from play (about a microsecond per
  // snapshot). Not together with snapshot_codebook, whose snapshots keep no
  // models; a server training a codebook codes with adaptive models, so its
  // clients must set adaptive_snapshot_models.
  std::shared_ptr<snapshot::CodebookTrainer> codebook_trainer;
  // A client's input may claim a tick at most this far ahead of the server.
  // A client leads by its one-way delay plus a margin: 128 ticks (2.1 s at
  // 60 Hz) admits a one-way delay of a second with 100 ms of jitter, the
  // harshest link the soak tests run; a claim beyond that buys nothing.
  std::uint32_t max_input_ticks_ahead = 128;
  // Packets a client may send per second once joined (inputs, keep-alives
  // and reports alike); unset: 4 x tick_rate. An honest client sends one
  // input packet per tick plus the odd burst after a hitch, so the budget
  // only binds on a flood. Packets over it are dropped unread and counted;
  // more than twice the budget within one second disconnects the client
  // with kProtocolError.
  std::optional<std::uint32_t> max_input_packets_per_second;
  // A client whose inputs the queue refuses (too far ahead, invalid) more
  // than this many times within one bad_packet_window is disconnected with
  // kProtocolError: it is claiming future ticks (a speed hack) or broken.
  int max_rejected_inputs = 64;
  // Threads that encode clients' snapshots, the calling thread included:
  // 1 (the default) encodes on the calling thread alone. The simulation,
  // relevancy and sends stay on the calling thread, so the game needs no
  // locking and runs the same whatever the count.
  std::uint32_t workers = 1;
  // Lag compensation (docs/lag-compensation.md): how far back a shot may
  // be judged; the game's hit history must keep at least this much.
  Duration max_rewind = Duration::millis(250);  // 0..1000 ms
  // A client's claimed view time further than this from the server's own
  // estimate is replaced by the estimate (Source's 200 ms check).
  Duration view_tolerance = Duration::millis(200);  // 0..1000 ms
  // The interpolation delay the estimate assumes for every client (the
  // server is not told a client's own): two snapshot intervals at 30 Hz
  // and a little jitter, what the clients' time system settles near on a
  // good link; the tolerance absorbs the difference on worse ones.
  Duration assumed_interpolation_delay = Duration::millis(80);  // 0..1000 ms
  // Reads a clock to time each tick's work (duration and overruns); unset:
  // ticks are not timed. The loop itself runs on the times passed in.
  std::function<Time()> clock;
  // Reads a clock to time the phases of the loop (ServerStats::phases);
  // unset: `clock`. A CPU-time clock makes the phases what the process
  // spent, whatever else shared its core.
  std::function<Time()> phase_clock;
  std::shared_ptr<spdlog::logger> logger;  // none: logging off

  // max_input_packets_per_second with its default applied.
  std::uint32_t input_packet_budget() const { return max_input_packets_per_second.value_or(4 * tick_rate); }

  // Throws std::invalid_argument naming the first bad setting.
  void validate() const;
};

}  // namespace tickwire::server
