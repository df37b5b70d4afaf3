#pragma once
// A record: the fields of one type held outside any World and sent whole,
// with the same ranges and quantization as entity fields. A game's input
// type is a record type:
//
//   TypeBuilder input = builder.record_type("input");
//   Field<Vec2> move = input.add_vec2("move", {-1, -1}, {1, 1}, 1.0F / 127);
//   Field<bool> fire = input.add_bool("fire");
//   ...
//   Record r(schema, input.id());
//   r.set(move, {0.5F, 0.0F});
//   serialize(writer, r);   // each field in its declared bits
//
// Reading rejects out-of-range codes with kOutOfRange, like every decoder.

#include <cstdint>
#include <span>
#include <vector>

#include "tickwire/core/bit_stream.h"
#include "tickwire/snapshot/field_value.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::snapshot {

class Record {
 public:
  // Throws std::invalid_argument for an unknown type.
  Record(Schema schema, TypeId type);

  TypeId type() const { return type_; }
  const TypeSpec& spec() const { return schema_.type(type_); }

  // Throw std::invalid_argument for a handle of another type.
  template <class T>
  T get(Field<T> field) const {
    return FieldValue<T>::load(checked(field.type(), field.valid(), field.offset(), FieldValue<T>::kSlots));
  }
  template <class T>
  void set(Field<T> field, const T& value) {
    checked(field.type(), field.valid(), field.offset(), FieldValue<T>::kSlots);
    FieldValue<T>::store(slots_.data() + field.offset(), value);
  }

  std::span<const std::uint32_t> slots() const { return slots_; }
  // Copies another record's slots of this type in, as stored elsewhere
  // (throws std::invalid_argument for a span of another length).
  void assign_slots(std::span<const std::uint32_t> slots);
  // Snaps every field to what the receiver will read.
  void quantize();
  // Codes of every slot, and the reverse (false when a code is out of range).
  void to_codes(std::span<std::uint32_t> codes) const;
  bool from_codes(std::span<const std::uint32_t> codes);

  bool operator==(const Record& other) const { return type_ == other.type_ && slots_ == other.slots_; }

 private:
  const std::uint32_t* checked(TypeId type, bool valid, std::uint16_t offset, std::size_t count) const;

  Schema schema_;
  TypeId type_;
  std::vector<std::uint32_t> slots_;
};

// Every field in its declared bits (a bool in one, a 0..100 int in seven).
template <class Stream>
bool serialize(Stream& s, Record& r) {
  const TypeSpec& spec = r.spec();
  std::vector<std::uint32_t> codes(spec.stride());
  if constexpr (!Stream::kReading) r.to_codes(codes);
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const int bits = spec.components[i].bits;
    if (bits == 0) continue;
    if (!s.bits(codes[i], bits)) return false;
  }
  if constexpr (Stream::kReading) {
    if (!r.from_codes(codes)) return s.fail(ErrorCode::kOutOfRange, "record field outside its range");
  }
  return true;
}

}  // namespace tickwire::snapshot
