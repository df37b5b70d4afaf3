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

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "tickwire/snapshot/body_models.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::snapshot {

// True when `codebook` has the layout `schema`'s types give their models
// (no more types than the schema, each table as the type's own would be)
// and every probability lies strictly between 0 and 1. Senders and
// receivers refuse one that does not.
bool codebook_fits(const ModelState& codebook, const Schema& schema);

class CodebookTrainer {
 public:
  explicit CodebookTrainer(const Schema& schema);

  // Adds the models one packet ended with (a sender's or a receiver's state's
  // models()).
  void add(const ModelState& models);
  std::uint64_t packets() const { return packets_; }

  // Each model's probability averaged over the packets that had it: an
  // estimate of how often its decision went each way. Types no packet
  // touched are left out (they start at one half).
  std::shared_ptr<const ModelState> codebook() const;

 private:
  struct Sums {
    std::vector<double> p;
    std::uint64_t count = 0;
  };
  std::vector<TypeSpec> types_;
  Sums fixed_;               // the op and spawn models, flattened
  std::vector<Sums> typed_;  // by type id
  std::uint64_t packets_ = 0;
};

}  // namespace tickwire::snapshot
