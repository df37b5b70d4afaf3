#pragma once
// A codebook: coding models trained on recorded traffic and then held
// fixed, the same for every client (Quake III shipped such a table for its
// Huffman code). With one (SenderConfig::codebook and
// ReceiverConfig::codebook, the same on both ends, as the schema is), a
// snapshot body is coded with these models and they never adapt, so the
// bits of an entity's change no longer depend on the client's own history
// of packets. The price is what adaptation buys: bench_snapshot --ablation
// measures it ("static models trained on another run"), and
// docs/snapshots.md discusses it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tickwire/core/result.h"
#include "tickwire/snapshot/body_models.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::snapshot {

// True when `codebook` has the layout `schema`'s types give their models
// (no more types than the schema, each table as the type's own would be)
// and every probability lies strictly between 0 and 1. Senders and
// receivers refuse one that does not.
bool codebook_fits(const ModelState& codebook, const Schema& schema);

// A codebook's bytes, for a file a game ships or a server is given:
// "TWCB", a format version (2), the schema's hash (64 bits), every op and
// spawn model's probability (16 bits each, in a fixed order), the number
// of age sets (a byte, 1 to kAgeSets), then per set the schema's type
// count (32 bits), and per type a byte (1: a table follows, 0: the type
// starts at one half) and its table: the model count (32 bits) and each
// probability. Little-endian.
std::vector<std::uint8_t> write_codebook(const ModelState& codebook, const Schema& schema);

// Reads what write_codebook wrote, for `schema`. Every byte is checked, so
// any file is safe to read: another format or version, another schema's
// hash, a type count or table size other than the schema's, a probability
// of 0 or 1, a file cut short and bytes after the end are each an error
// that says which.
Result<std::shared_ptr<const ModelState>> read_codebook(std::span<const std::uint8_t> bytes, const Schema& schema);

// read_codebook on a file, and write_codebook to one; errors name the path.
Result<std::shared_ptr<const ModelState>> load_codebook(const std::string& path, const Schema& schema);
Result<void> save_codebook(const std::string& path, const ModelState& codebook, const Schema& schema);

// FNV-1a of the codebook's bytes. Server and client fold it into the
// protocol fingerprint, so ends with different codebooks (or one without)
// are denied at connect instead of misreading each other's snapshots.
std::uint64_t codebook_hash(const ModelState& codebook, const Schema& schema);

// The schema hash a protocol fingerprint is made from, with the codebook's
// hash folded in when there is one (nullptr: `schema_hash` unchanged).
inline std::uint64_t with_codebook(std::uint64_t schema_hash, const ModelState* codebook, const Schema& schema) {
  return codebook != nullptr ? schema_hash ^ codebook_hash(*codebook, schema) : schema_hash;
}

// The tables coding with `codebook` needs besides its models (the prefix
// codes of docs/wire-format.md, "Codebook bodies"), built on the first
// call and shared by every sender and receiver of the process while any
// handle or coder holds them. A server holds them from its start: they
// are a cost of the process, not of a client, and building them when the
// first client connects would stall that tick.
std::shared_ptr<const void> hold_codebook_tables(const std::shared_ptr<const ModelState>& codebook,
                                                 const Schema& schema);

class CodebookTrainer {
 public:
  explicit CodebookTrainer(const Schema& schema);

  // Adds the models one packet ended with (a sender's or a receiver's state's
  // models()); `age` is the packet's baseline age in ticks (0: none), which
  // picks the age set its type tables train (age_set in body_models.h).
  void add(const ModelState& models, std::uint32_t age);
  std::uint64_t packets() const { return packets_; }

  // Each model's probability averaged over the packets that had it: an
  // estimate of how often its decision went each way. Per age set; a set
  // no packet trained for a type takes the nearest set's table. Types no
  // packet touched are left out (they start at one half).
  std::shared_ptr<const ModelState> codebook() const;
  // Writes codebook() to `path` (save_codebook). A trainer that saw no
  // packet (no client was sent a snapshot while it trained) knows nothing:
  // its codebook would be the untrained one-half models, worse than
  // adapting, so it refuses (kInvalidArgument, saying so) and leaves
  // `path` alone.
  Result<void> save(const std::string& path, const Schema& schema) const;

 private:
  struct Sums {
    std::vector<double> p;
    std::uint64_t count = 0;
  };
  std::vector<TypeSpec> types_;
  Sums fixed_;                                     // the op and spawn models, flattened
  std::array<std::vector<Sums>, kAgeSets> typed_;  // by age set, by type id
  std::uint64_t packets_ = 0;
};

}  // namespace tickwire::snapshot
