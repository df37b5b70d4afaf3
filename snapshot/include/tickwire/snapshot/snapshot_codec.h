#pragma once
// Encoding one snapshot for one client, and decoding it. The body is a
// delta against the baseline state the client acknowledged: per baseline
// entity an op (unchanged, changed, skipped, removed), residuals of the
// changed fields against a motion prediction, then the spawns. Layout and
// receiver obligations: docs/wire-format.md, "Snapshot".
//
// These are the mechanics; SnapshotSender (sender.h) decides baselines,
// priorities and budgets, and SnapshotReceiver (receiver.h) keeps the
// states a client decodes against.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "tickwire/core/tick.h"
#include "tickwire/snapshot/body_models.h"
#include "tickwire/snapshot/delta.h"
#include "tickwire/snapshot/entity_bits_cache.h"
#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/snapshot_header.h"
#include "tickwire/snapshot/world_state.h"

namespace tickwire::snapshot {

namespace detail {
class PrefixTables;
struct SharedScratch;
struct MotionContext;
}  // namespace detail

// Beyond this many ticks between reference and baseline the motion
// predictor is not used (it also keeps its integer arithmetic small).
inline constexpr std::int64_t kMaxMotionSpan = 1 << 16;

struct EncodeInput {
  const WorldState* current = nullptr;     // the world at the snapshot tick
  const WorldState* baseline = nullptr;    // the client's state to delta against; nullptr: full snapshot
  const WorldState* reference = nullptr;   // an older client state for motion prediction; nullptr: none
  const WorldState* reference2 = nullptr;  // older still, for second-order prediction; nullptr: none
  bool adaptive = true;                    // false: fixed codes (for measuring what adaptation buys)
  bool inherit_models = true;              // false: models start fresh (ditto)
  // Where the models start when not the baseline's: an older state the
  // client holds (its packet's models; the header names it). nullptr: the
  // baseline's.
  const WorldState* models_from = nullptr;
  // With adaptive: the body is coded with this codebook (codebook.h), which
  // both ends hold, not the baseline's models; the header says static
  // models. Its operations go through a range coder with the codebook's
  // models held fixed, its changed entities and spawns are prefix-coded
  // (docs/wire-format.md, "Codebook bodies"). It must be the one given to
  // SnapshotEncoder::set_codebook. nullptr: adaptive models as above.
  const ModelState* codebook = nullptr;
  // With a codebook: where the coded changes of this tick's entities are
  // kept for every client's encoding (the shared path). nullptr: each
  // encoding codes its own; the bytes are the same.
  EntityBitsCache* bits_cache = nullptr;
  // Per type, per component: 1 to predict the field from motion, 0 to hold
  // its baseline value (for fields whose changes are jumps, which a motion
  // prediction overshoots). Only fields declared with motion can use it;
  // for a quaternion the flag of its first component counts. nullptr: motion
  // wherever declared.
  const std::vector<std::vector<std::uint8_t>>* motion_choice = nullptr;
  // When set, `current` is a capture held in `shared`, and the view refers
  // to the codes there instead of copying them, for every entity whose
  // values come from `shared_from` or later (older ones are copied: their
  // capture may be overwritten while the view is still in use).
  const SharedCodes* shared = nullptr;
  Tick shared_from{};
};

// What the residuals of a sample of changed entities would cost, per type
// and component, with motion prediction and with the baseline value held.
struct PredictionCosts {
  std::vector<std::vector<std::uint64_t>> motion;
  std::vector<std::vector<std::uint64_t>> hold;
};

class SnapshotEncoder {
 public:
  explicit SnapshotEncoder(Schema schema);
  ~SnapshotEncoder();
  SnapshotEncoder(SnapshotEncoder&&) noexcept;
  SnapshotEncoder& operator=(SnapshotEncoder&&) noexcept;

  // The codebook inputs will name (EncodeInput::codebook); builds, or
  // finds already built, the prefix codes made from it. nullptr: none.
  void set_codebook(const std::shared_ptr<const ModelState>& codebook);

  // Writes the snapshot to `bytes` (replacing its content) and the state the
  // client will hold after decoding it to `view`. `items` come from
  // diff_states on the same current and baseline. With `item_bits`, each
  // item's cost in bits is stored at its index (0 for items not coded).
  void encode(const EncodeInput& in, std::span<const DeltaItem> items, std::vector<std::uint8_t>& bytes,
              WorldState& view, std::vector<std::uint32_t>* item_bits = nullptr);

  // A quick estimate of what the residuals of changed entities would cost
  // with this input's references and motion choices (sum of their
  // Exp-Golomb lengths), over at most `max_entities` of them spread across
  // the list; with `costs`, also per component with motion and held. For
  // choosing references and predictions without encoding.
  std::uint64_t estimate_residual_bits(const EncodeInput& in, std::span<const DeltaItem> items,
                                       std::size_t max_entities, PredictionCosts* costs = nullptr) const;

  const Schema& schema() const { return schema_; }

 private:
  void code_shared_entity(const EncodeInput& in, const TypeSpec& type, TypeModels& models, const EntityState& b,
                          std::uint32_t current, const detail::MotionContext& m, std::uint32_t* codes,
                          const std::uint8_t* motion);

  Schema schema_;
  std::unique_ptr<detail::SharedScratch> shared_;  // with a codebook
  BodyModels models_;
  std::vector<std::uint8_t> header_;
  std::vector<std::uint8_t> body_;
  std::vector<std::vector<std::uint8_t>> masks_;  // motion choices coded in this packet, per type
};

// Why a receiver dropped a snapshot; one counter each.
enum class DropReason : std::uint8_t {
  kOversized,         // longer than the receiver's payload limit
  kTruncated,         // the input ended before the snapshot did
  kMalformed,         // trailing bytes, a bad header, an impossible structure
  kOutOfRange,        // an entity id, type or field value outside its bounds
  kMissingBaseline,   // the baseline it was encoded against is not held
  kMissingReference,  // the reference state for motion prediction is not held
  kTooManyEntities,   // the result would exceed the receiver's entity limit
  kStale,             // older than the receiver's history
  kDuplicate,         // a tick already decoded
};
inline constexpr std::size_t kDropReasonCount = 9;
const char* to_string(DropReason reason);

struct DecodeFailure {
  DropReason reason = DropReason::kMalformed;
  const char* detail = "";
};

struct DecodeLimits {
  std::uint32_t max_entities = 16384;  // entities one decoded state may hold
  std::uint32_t history_ticks = 64;    // largest accepted baseline age, exclusive
  std::size_t max_payload = 1200;      // longer input is rejected unread
};

// The states a receiver holds, for the decoder to look baselines up in.
class BaselineStore {
 public:
  virtual ~BaselineStore() = default;
  virtual const WorldState* find(Tick tick) const = 0;
  // The held state whose tick's low 16 bits are `low`, if any.
  virtual const WorldState* find_by_low_bits(std::uint16_t low) const = 0;
};

struct ParsedHeader {
  SnapshotHeader header;
  Tick tick;
  const WorldState* baseline = nullptr;
  const WorldState* reference = nullptr;
  const WorldState* reference2 = nullptr;
  const WorldState* models_from = nullptr;  // with models_elsewhere: whose models the body starts from
  std::size_t body_offset = 0;
};

class SnapshotDecoder {
 public:
  SnapshotDecoder(Schema schema, DecodeLimits limits);

  // Reads the header and finds the baseline and reference in `store`.
  std::optional<DecodeFailure> parse_header(std::span<const std::uint8_t> bytes, const BaselineStore& store,
                                            ParsedHeader& out) const;
  // Decodes the body into `out`, which holds partial results on failure.
  std::optional<DecodeFailure> decode_body(std::span<const std::uint8_t> bytes, const ParsedHeader& header,
                                           WorldState& out);

  const DecodeLimits& limits() const { return limits_; }
  const Schema& schema() const { return schema_; }
  // The codebook (codebook.h) the sender codes with, if it does: a body
  // whose header says static models is then read with these models rather
  // than as fixed codes. Both ends must hold the same one, as they hold the
  // same schema.
  void set_codebook(std::shared_ptr<const ModelState> codebook);

 private:
  Schema schema_;
  DecodeLimits limits_;
  std::shared_ptr<const ModelState> codebook_;
  std::shared_ptr<const detail::PrefixTables> prefix_;  // built from codebook_
  std::vector<std::uint8_t> prefix_outcomes_;           // an entity's decisions, reused
  BodyModels models_;
  std::vector<std::vector<std::uint8_t>> masks_;  // motion choices read in this packet, per type
};

namespace detail {
// The type field of a spawn: at least one bit, so every spawn consumes
// input and a packet's bytes bound how many it can carry.
inline int spawn_type_bits(std::size_t type_count) {
  const int bits = type_count > 1 ? static_cast<int>(std::bit_width(type_count - 1)) : 0;
  return bits < 1 ? 1 : bits;
}
}  // namespace detail

}  // namespace tickwire::snapshot
