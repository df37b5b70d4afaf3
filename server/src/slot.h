#pragma once
// The server's record of one peer: from the transport connection through
// the handshake (a peer) to the game (a client with a player).

#include <memory>
#include <optional>
#include <string>

#include "tickwire/core/packet_channel.h"
#include "tickwire/prediction/input_queue.h"
#include "tickwire/server/server.h"
#include "tickwire/snapshot/record.h"
#include "tickwire/snapshot/sender.h"
#include "tickwire/timesync/input_arrival_tracker.h"
#include "view_judge.h"

namespace tickwire::server {

struct Server::Slot {
  PeerId peer;
  std::string address;
  std::optional<transport::PeerIdentity> identity;  // from the connect token, if any
  ClientId id = 0;                                  // 0 until the handshake completes
  std::string name;
  Time connected_at;
  Time last_heard;
  // Anything heard after the Welcome: the client has it, the handshake is
  // over. Until then silence is judged by the handshake timeout, since
  // the Welcome itself may need retries over a slow, lossy link.
  bool heard_since_welcome = false;
  PacketChannel channel{PacketChannel::Acks::kIgnored};  // snapshot acks come in the inputs
  Duration rtt;
  bool has_rtt = false;
  int bad_in_window = 0;
  Time bad_window_start;
  // Packets in the current one-second budget window (joined clients only).
  std::uint32_t packets_in_second = 0;
  Time second_start;
  // Inputs the queue refused within the current bad_packet_window, and the
  // queue's running total already charged to it.
  int rejected_in_window = 0;
  Time rejected_window_start;
  std::uint64_t rejected_charged = 0;
  ClientStats stats;

  // From the Welcome on: the client's player in the game.
  prediction::PlayerId player;
  std::unique_ptr<snapshot::SnapshotSender> sender;
  std::unique_ptr<prediction::InputQueue> queue;
  std::unique_ptr<timesync::InputArrivalTracker> tracker;
  std::unique_ptr<ViewJudge> view_judge;      // the rewind policy and the inputs' arrivals
  std::unique_ptr<snapshot::Record> neutral;  // what the player does before its inputs flow
  // Kept from tick to tick so the send path stops allocating once warm:
  // the ids the game found relevant (its list is only valid until its
  // next call, and every client's is taken before any is encoded), the
  // snapshot payload and the whole packet.
  std::vector<snapshot::EntityId> relevant_ids;
  std::vector<std::uint8_t> payload;
  std::vector<std::uint8_t> packet;
  // The first tick the client sent an input for: ticks before it are not
  // the client's to have missed.
  std::optional<Tick> first_input_tick;

  bool welcomed() const { return id != 0; }
};

}  // namespace tickwire::server
