#include "tickwire/snapshot/record.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "tickwire/snapshot/field_codec.h"

namespace tickwire::snapshot {

Record::Record(Schema schema, TypeId type) : schema_(std::move(schema)), type_(type) {
  if (!schema_.has_type(type)) throw std::invalid_argument("Record: unknown type id " + std::to_string(type.value));
  for (const ComponentSpec& c : schema_.type(type).components) slots_.push_back(c.default_slot);
}

const std::uint32_t* Record::checked(TypeId type, bool valid, std::uint16_t offset, std::size_t count) const {
  if (!valid || type != type_) throw std::invalid_argument("Record: field handle of another type");
  if (static_cast<std::size_t>(offset) + count > slots_.size())
    throw std::invalid_argument("Record: field out of its type");
  return slots_.data() + offset;
}

void Record::assign_slots(std::span<const std::uint32_t> slots) {
  if (slots.size() != slots_.size()) throw std::invalid_argument("Record::assign_slots: slot count of another type");
  std::copy(slots.begin(), slots.end(), slots_.begin());
}

void Record::quantize() {
  // On the stack for the usual input (a few fields): a client quantizes
  // one every frame.
  constexpr std::size_t kInline = 32;
  std::array<std::uint32_t, kInline> inline_codes{};
  std::vector<std::uint32_t> heap_codes;
  if (slots_.size() > kInline) heap_codes.resize(slots_.size());
  const std::span<std::uint32_t> codes =
      heap_codes.empty() ? std::span(inline_codes).first(slots_.size()) : std::span(heap_codes);
  to_codes(codes);
  dequantize_entity(spec(), codes, slots_);
}

void Record::to_codes(std::span<std::uint32_t> codes) const { quantize_entity(spec(), slots_, codes); }

bool Record::from_codes(std::span<const std::uint32_t> codes) {
  if (!codes_in_range(spec(), codes)) return false;
  dequantize_entity(spec(), codes, slots_);
  return true;
}

}  // namespace tickwire::snapshot
