#include <algorithm>
#include <limits>

#include "entity_coding.h"
#include "motion_context.h"
#include "shared_coding.h"
#include "tickwire/core/bit_stream.h"
#include "tickwire/snapshot/snapshot_codec.h"

namespace tickwire::snapshot {

const char* to_string(DropReason reason) {
  switch (reason) {
    case DropReason::kOversized: return "oversized";
    case DropReason::kTruncated: return "truncated";
    case DropReason::kMalformed: return "malformed";
    case DropReason::kOutOfRange: return "out of range";
    case DropReason::kMissingBaseline: return "missing baseline";
    case DropReason::kMissingReference: return "missing reference";
    case DropReason::kTooManyEntities: return "too many entities";
    case DropReason::kStale: return "stale";
    case DropReason::kDuplicate: return "duplicate";
  }
  return "unknown";
}

namespace {

DecodeFailure fail(DropReason reason, const char* detail) { return DecodeFailure{reason, detail}; }

EntityOp decode_op(RangeDecoder& rc, EntityOpModels& m, std::size_t prev) {
  if (rc.bit(m.same[prev])) return static_cast<EntityOp>(prev);
  std::size_t others[3];
  other_ops(prev, others);
  if (rc.bit(m.first[prev])) return static_cast<EntityOp>(others[0]);
  return static_cast<EntityOp>(rc.bit(m.second[prev]) ? others[1] : others[2]);
}

DropReason reason_of(ErrorCode code) {
  switch (code) {
    case ErrorCode::kTruncated: return DropReason::kTruncated;
    case ErrorCode::kOutOfRange:
    case ErrorCode::kTooLong: return DropReason::kOutOfRange;
    default: return DropReason::kMalformed;
  }
}

}  // namespace

SnapshotDecoder::SnapshotDecoder(Schema schema, DecodeLimits limits) : schema_(std::move(schema)), limits_(limits) {}

void SnapshotDecoder::set_codebook(std::shared_ptr<const ModelState> codebook) {
  codebook_ = std::move(codebook);
  prefix_ = codebook_ ? detail::prefix_tables(codebook_, schema_) : nullptr;
}

namespace {
// A codebook body's first field: the prefix-coded part's length in bytes,
// LEB128 in at most three bytes (a body is far shorter than 2^21).
std::optional<DecodeFailure> split_codebook_body(std::span<const std::uint8_t> body,
                                                 std::span<const std::uint8_t>& prefix_part,
                                                 std::span<const std::uint8_t>& range_part) {
  std::size_t length = 0;
  std::size_t used = 0;
  for (int shift = 0;; shift += 7) {
    if (used == body.size()) return fail(DropReason::kTruncated, "snapshot body ended early");
    if (shift > 14) return fail(DropReason::kMalformed, "prefix-coded part's length longer than three bytes");
    const std::uint8_t b = body[used++];
    length |= std::size_t{b & 0x7FU} << shift;
    if ((b & 0x80U) == 0) break;
  }
  if (length > body.size() - used) return fail(DropReason::kTruncated, "prefix-coded part longer than the body");
  prefix_part = body.subspan(used, length);
  range_part = body.subspan(used + length);
  return std::nullopt;
}
}  // namespace

std::optional<DecodeFailure> SnapshotDecoder::parse_header(std::span<const std::uint8_t> bytes,
                                                           const BaselineStore& store, ParsedHeader& out) const {
  if (bytes.size() > limits_.max_payload) return fail(DropReason::kOversized, "snapshot longer than the payload limit");
  BitReader reader(bytes);
  SnapshotHeader h;
  if (!serialize(reader, h)) {
    return fail(reader.error() ? reason_of(reader.error()->code) : DropReason::kMalformed, "bad snapshot header");
  }
  out = ParsedHeader{};
  out.header = h;
  out.body_offset = reader.bits_read() / 8;
  if (!h.has_baseline) {
    out.tick = Tick(h.tick);
    return std::nullopt;
  }
  out.baseline = store.find_by_low_bits(h.baseline_low);
  if (out.baseline == nullptr) return fail(DropReason::kMissingBaseline, "baseline not held");
  if (h.age >= limits_.history_ticks) return fail(DropReason::kOutOfRange, "baseline older than the history");
  const std::uint64_t tick = std::uint64_t{out.baseline->tick().value()} + h.age;
  if (tick > std::numeric_limits<Tick::Rep>::max()) return fail(DropReason::kOutOfRange, "snapshot tick overflows");
  out.tick = Tick(static_cast<Tick::Rep>(tick));
  if (h.models_elsewhere) {
    if (h.models_gap > out.baseline->tick().value()) {
      return fail(DropReason::kOutOfRange, "models' state before tick 0");
    }
    out.models_from = store.find(Tick(out.baseline->tick().value() - h.models_gap));
    if (out.models_from == nullptr) return fail(DropReason::kMissingBaseline, "state the models start from not held");
  }
  if (h.has_reference) {
    if (h.reference_gap > out.baseline->tick().value()) return fail(DropReason::kOutOfRange, "reference before tick 0");
    out.reference = store.find(Tick(out.baseline->tick().value() - h.reference_gap));
    if (out.reference == nullptr) return fail(DropReason::kMissingReference, "reference state not held");
    if (h.has_reference2) {
      if (h.reference2_gap > out.reference->tick().value()) {
        return fail(DropReason::kOutOfRange, "second reference before tick 0");
      }
      out.reference2 = store.find(Tick(out.reference->tick().value() - h.reference2_gap));
      if (out.reference2 == nullptr) return fail(DropReason::kMissingReference, "second reference state not held");
    }
  }
  return std::nullopt;
}

std::optional<DecodeFailure> SnapshotDecoder::decode_body(std::span<const std::uint8_t> bytes, const ParsedHeader& p,
                                                          WorldState& out) {
  const Tick tick = p.tick;
  const WorldState* base = p.baseline;
  const auto body = bytes.subspan(p.body_offset);
  out.clear();
  out.set_tick(tick);

  if (!p.header.has_body) {
    if (!body.empty()) return fail(DropReason::kMalformed, "bytes after a snapshot without a body");
    if (base == nullptr) return std::nullopt;
    for (const EntityState& b : base->entities()) {
      EntityState e = b;
      e.updated = tick;
      const std::uint16_t stride = schema_.type(b.type).stride();
      std::copy_n(base->code_data(b), stride, out.append(e, stride));
    }
    if (!p.header.static_models) out.set_models(base->shared_models());
    return std::nullopt;
  }

  const WorldState* models_from = p.models_from != nullptr ? p.models_from : base;
  const bool book = p.header.static_models && codebook_ != nullptr;
  const bool carried = base != nullptr && !p.header.static_models && !p.header.fresh_models;
  models_.begin(schema_, book ? codebook_.get() : (carried ? models_from->models() : nullptr), book);
  masks_.resize(schema_.type_count());
  for (auto& mask : masks_) mask.clear();
  std::span<const std::uint8_t> prefix_part;
  std::span<const std::uint8_t> range_part = body;
  if (book) {
    if (auto bad = split_codebook_body(body, prefix_part, range_part)) return bad;
  }
  RangeDecoder rc(range_part, !p.header.static_models);
  detail::DecodeIo io{rc, !p.header.static_models || book};
  detail::BitSource bits(prefix_part);
  detail::PrefixDecodeIo prefix_io(bits, prefix_outcomes_);
  detail::ReferenceCursor cursor(p.reference, p.reference2);
  std::size_t prev = 0;
  if (base != nullptr) {
    out.reserve(base->size());
    // Entities of one type tend to come in runs: look the type up once a run.
    TypeId run_type{0xFFFF};
    const TypeSpec* type_spec = nullptr;
    TypeModels* run_models = nullptr;
    for (const EntityState& b : base->entities()) {
      if (b.type != run_type) {
        run_type = b.type;
        type_spec = &schema_.type(b.type);
        run_models = nullptr;
      }
      const TypeSpec& type = *type_spec;
      const std::uint16_t stride = type.stride();
      const EntityOp op = decode_op(rc, models_.ops, prev);
      prev = static_cast<std::size_t>(op);
      if (op == EntityOp::kRemoved) continue;
      EntityState e = b;
      if (op != EntityOp::kSkipped) e.updated = tick;
      std::uint32_t* codes = out.append(e, stride);
      if (op == EntityOp::kChanged) {
        if (run_models == nullptr) run_models = &models_.type(schema_, b.type);
        TypeModels& type_models = *run_models;
        const std::uint8_t* motion = nullptr;
        if (p.reference != nullptr) {
          std::vector<std::uint8_t>& mask = masks_[b.type.value];
          if (mask.empty()) detail::code_motion_choice(io, type, type_models, mask);
          motion = mask.data();
        }
        if (book) {
          if (!prefix_io.begin(prefix_->type(b.type, tick - b.updated)) ||
              !detail::code_changed_entity(prefix_io, type, type_models, base->code_data(b), cursor.find(b, tick),
                                           codes, motion)) {
            return fail(bits.overran() ? DropReason::kTruncated : DropReason::kOutOfRange, prefix_io.failure);
          }
        } else if (!detail::code_changed_entity(io, type, type_models, base->code_data(b), cursor.find(b, tick), codes,
                                                motion)) {
          return fail(rc.overran() ? DropReason::kTruncated : DropReason::kOutOfRange, io.failure);
        }
      } else {
        std::copy_n(base->code_data(b), stride, codes);
      }
      if (rc.overran()) return fail(DropReason::kTruncated, "snapshot body ended early");
    }
  }

  const std::size_t kept = out.size();
  const std::uint64_t count = std::uint64_t{decode_magnitude(rc, models_.spawn_count, kMaxExponent)} - 1;
  if (rc.overran()) return fail(DropReason::kTruncated, "snapshot body ended early");
  if (kept + count > limits_.max_entities) return fail(DropReason::kTooManyEntities, "more entities than the limit");
  // Every spawn spends at least one raw bit, so more than the body has bits
  // cannot be honest; checking first bounds the work a forged count causes.
  if (count > body.size() * 8) return fail(DropReason::kMalformed, "more spawns than the body has bits");
  const int type_bits = detail::spawn_type_bits(schema_.type_count());
  std::uint64_t next_min = 0;
  std::size_t cursor_kept = 0;
  for (std::uint64_t s = 0; s < count; ++s) {
    const std::uint64_t id = next_min + decode_magnitude(rc, models_.spawn_gap, kMaxExponent) - 1;
    const std::uint32_t type_value = rc.direct(type_bits);
    const std::uint32_t generation = decode_magnitude(rc, models_.spawn_generation, kMaxExponent) - 1;
    if (rc.overran()) return fail(DropReason::kTruncated, "snapshot body ended early");
    if (id >= limits_.max_entities) return fail(DropReason::kOutOfRange, "spawned entity id beyond the limit");
    if (generation > 0xFFFFU) return fail(DropReason::kOutOfRange, "spawned entity's generation beyond 65535");
    next_min = id + 1;
    const EntityId eid{static_cast<std::uint32_t>(id)};
    const auto kept_entities = out.entities().first(kept);
    while (cursor_kept < kept && kept_entities[cursor_kept].id < eid) ++cursor_kept;
    if (cursor_kept < kept && kept_entities[cursor_kept].id == eid) {
      return fail(DropReason::kMalformed, "spawn of an entity the baseline still holds");
    }
    const TypeId type_id{static_cast<std::uint16_t>(type_value)};
    if (type_value >= schema_.type_count() || schema_.type(type_id).role != TypeRole::kEntity) {
      return fail(DropReason::kOutOfRange, "spawned entity of an unknown type");
    }
    const TypeSpec& type = schema_.type(type_id);
    std::uint32_t* codes =
        out.append(EntityState{eid, type_id, static_cast<std::uint16_t>(generation), tick, 0}, type.stride());
    if (book) {
      if (!detail::code_spawned_entity(prefix_io, type, codes)) {
        return fail(bits.overran() ? DropReason::kTruncated : DropReason::kOutOfRange, prefix_io.failure);
      }
    } else if (!detail::code_spawned_entity(io, type, codes)) {
      return fail(DropReason::kOutOfRange, io.failure);
    }
  }
  if (count > 0) out.merge_appended(kept);
  if (rc.overran()) return fail(DropReason::kTruncated, "snapshot body ended early");
  if (!rc.at_end()) {
    return fail(DropReason::kMalformed,
                rc.corrupt() ? "snapshot body is not a valid code" : "trailing bytes after the snapshot");
  }
  if (book && !bits.at_clean_end()) {
    return fail(DropReason::kMalformed, "bytes or bits after the prefix-coded part's end");
  }
  if (!p.header.static_models) out.set_models(models_.publish());
  return std::nullopt;
}

}  // namespace tickwire::snapshot
