// The snapshot codebook the arena ships: data/arena.twcb, compiled in.
// With it the server shares each entity's coded change between clients
// (docs/snapshots.md, "What is shared") and keeps no coding models per
// client. scripts/train_codebook.sh trains it again after the schema or
// the game's motion changes (a stale one no longer fits the schema's hash,
// and ArenaCodebook.TheShippedOneFitsTheSchema fails).

#include "tickwire/arena/arena.h"
#include "tickwire/snapshot/codebook.h"

namespace tickwire::arena {

namespace {
constexpr unsigned char kShipped[] = {
#include "arena_codebook_bytes.inc"
    0};  // a byte past the end, so that an empty file still makes an array
}  // namespace

std::shared_ptr<const snapshot::ModelState> Game::snapshot_codebook() const {
  static const std::shared_ptr<const snapshot::ModelState> book = [] {
    auto read = snapshot::read_codebook(std::span(kShipped, sizeof kShipped - 1), arena::schema().schema);
    return read ? std::move(read).value() : nullptr;
  }();
  return book;
}

ProtocolFingerprint Game::protocol_fingerprint() {
  const snapshot::Schema& s = arena::schema().schema;
  return {s.hash(), snapshot::fingerprint_codebook_hash(Game().snapshot_codebook().get(), s)};
}

}  // namespace tickwire::arena
