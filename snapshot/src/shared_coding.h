#pragma once
// The coding of changed entities with a codebook: prefix codes built from
// the codebook's models, so that an entity's bits depend only on the
// entity, its baseline and reference values and the packet's motion
// choice, never on what came before it in the packet. The server then
// codes each entity's change once per baseline and copies the bits into
// every packet that needs them (EntityBitsCache). Layout and obligations:
// docs/wire-format.md, "Codebook bodies". Private to the snapshot library.
//
// An entity's bits are: per chunk of its decisions, one symbol saying how
// each went (a quaternion's largest component as predicted or not; a
// residual zero, one away, or more) and whether any decision after the
// chunk went other than the likely way, coded with a table picked by the
// context the chunk starts in; chunks stop after one that says none did;
// then, in the order code_changed_entity
// makes its decisions, the rest of each: a quaternion's index when not as
// predicted (2 raw bits), a residual's sign (raw) and, when more than one
// away, its exponent (prefix-coded, by decision and context) and lower
// bits (raw). Grouping is what keeps this close to the range coder: a
// prefix code spends at least a bit a symbol, and most of an entity's
// decisions are zero flags worth a fraction of a bit each.
//
// The tables are built from the codebook's models, the probabilities the
// range coder would code with, so a codebook file carries no more than
// its models.

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "entity_coding.h"
#include "prefix_code.h"
#include "tickwire/snapshot/body_models.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::snapshot::detail {

// A chunk's symbol has at most this many values.
inline constexpr std::uint32_t kMaxChunkSymbols = 8192;

// One decision of code_changed_entity that a chunk symbol covers.
struct PrefixDecision {
  bool flag = false;  // a quaternion's index flag (2 outcomes); else a residual (3)
  std::uint8_t max_exponent = 0;
};

struct PrefixChunk {
  std::size_t first = 0;  // decisions [first, first + count)
  std::size_t count = 0;
  // The symbol's outcomes take this many values; all but the last chunk
  // double that with "more follows".
  std::uint32_t outcomes = 1;
  PrefixCode codes[kResidualContexts];  // by the context the chunk starts in
  // By symbol (below `outcomes`): each decision's outcome in two bits,
  // the first lowest, and the largest residual outcome in bits 30-31. A
  // table read instead of a division a decision, for the decoder.
  std::vector<std::uint32_t> unpacked;
};

struct PrefixType {
  std::vector<PrefixDecision> decisions;  // in coding order
  std::vector<PrefixChunk> chunks;
  // Exponents 1.. of residuals more than one away, [decision *
  // kResidualContexts + context].
  std::vector<PrefixCode> exponents;
};

class PrefixTables {
 public:
  PrefixTables(std::shared_ptr<const ModelState> codebook, const Schema& schema);
  // The codes of a type for an entity whose baseline values are
  // `ticks_old` ticks old (its codebook age set).
  const PrefixType& type(TypeId id, std::int64_t ticks_old) const { return *sets_[age_set(ticks_old)][id.value]; }
  const ModelState* codebook() const { return codebook_.get(); }

 private:
  std::shared_ptr<const ModelState> codebook_;  // held: the tables are keyed by its address
  std::array<std::vector<std::shared_ptr<const PrefixType>>, kAgeSets> sets_;  // by set, by type id
};

// The tables of a codebook and schema, built once and shared by every
// sender and receiver holding them (a chunk code of up to 8192
// symbols: too much to keep per client).
std::shared_ptr<const PrefixTables> prefix_tables(const std::shared_ptr<const ModelState>& codebook,
                                                  const Schema& schema);

// Codes one changed entity: code_changed_entity calls it as it calls
// EncodeIo, and finish() writes the entity's bits.
class PrefixEncodeIo {
 public:
  static constexpr bool kDecoding = false;
  static constexpr bool kRangeCoded = false;
  static constexpr bool adaptive = false;

  void begin(const PrefixType& type);
  bool flag(BitModel& /*model*/, bool& same) {
    outcomes_[next_++] = same ? 0 : 1;
    return true;
  }
  bool raw(std::uint32_t& v, int bits) {
    tail_.put(v, bits);
    return true;
  }
  bool residual(ResidualModelRef /*model*/, std::int64_t& r, int max_exponent, std::uint64_t /*max_magnitude*/);
  // A residual of zero, the common case, without residual()'s work.
  void zero() { outcomes_[next_++] = 0; }
  void finish(BitSink& out) const;

 private:
  const PrefixType* type_ = nullptr;
  std::size_t next_ = 0;
  int context_ = 0;
  std::vector<std::uint8_t> outcomes_;  // by decision: 0 likely, 1 and 2 not
  BitSink tail_;
};

// Reads what PrefixEncodeIo wrote; begin() reads the chunk symbols.
class PrefixDecodeIo {
 public:
  static constexpr bool kDecoding = true;
  static constexpr bool kRangeCoded = false;
  static constexpr bool adaptive = false;

  // `outcomes`: storage the decoder keeps, so that a packet allocates
  // nothing.
  PrefixDecodeIo(BitSource& in, std::vector<std::uint8_t>& outcomes) : in_(in), outcomes_(outcomes) {}
  bool begin(const PrefixType& type);
  bool flag(BitModel& /*model*/, bool& same) {
    same = decided_[next_++] == 0;
    return true;
  }
  bool raw(std::uint32_t& v, int bits) {
    v = in_.bits(bits);
    return !in_.overran() || fail("snapshot body ended early");
  }
  bool residual(ResidualModelRef /*model*/, std::int64_t& r, int max_exponent, std::uint64_t max_magnitude);
  // The next decision when take_zero() said it is not a zero residual:
  // the residual read and the value stored from the prediction `pred`.
  [[gnu::noinline]] bool nonzero_value(const ComponentSpec& c, std::uint32_t pred, std::uint32_t& value);
  // Takes the next decision when it is a residual of zero.
  bool take_zero() {
    if (decided_[next_] != 0) return false;
    ++next_;
    return true;
  }
  bool fail(const char* why) {
    if (failure == nullptr) failure = why;
    return false;
  }
  const char* failure = nullptr;  // set with the first rejection

 private:
  BitSource& in_;
  const PrefixType* type_ = nullptr;
  std::size_t next_ = 0;
  int context_ = 0;
  std::vector<std::uint8_t>& outcomes_;
  // outcomes_.data() from begin() on: read through the vector, every
  // decision would load the vector's pointer again.
  const std::uint8_t* decided_ = nullptr;
};

// Raw fields of spawned entities, into or out of the same bits.
struct PrefixRawWriter {
  static constexpr bool kDecoding = false;
  BitSink& out;
  bool raw(std::uint32_t& v, int bits) {
    out.put(v, bits);
    return true;
  }
};

}  // namespace tickwire::snapshot::detail
