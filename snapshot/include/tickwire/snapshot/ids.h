#pragma once
// Identifiers of networked entities and of their registered types. Strong
// types, so an entity id is never passed where a type is expected.

#include <compare>
#include <cstdint>
#include <functional>

namespace tickwire::snapshot {

// Stable for the life of an entity. A world may hand a freed id out again
// later; it bumps the id's generation so old and new are told apart.
struct EntityId {
  std::uint32_t value = 0;
  constexpr auto operator<=>(const EntityId&) const = default;
};

// Index of a type in registration order.
struct TypeId {
  std::uint16_t value = 0;
  constexpr auto operator<=>(const TypeId&) const = default;
};

}  // namespace tickwire::snapshot

template <>
struct std::hash<tickwire::snapshot::EntityId> {
  std::size_t operator()(tickwire::snapshot::EntityId id) const noexcept {
    return std::hash<std::uint32_t>{}(id.value);
  }
};
