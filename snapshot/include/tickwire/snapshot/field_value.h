#pragma once
// How a field's C++ value is laid out in an entity's 32-bit slots. A World
// stores every field as raw slots; these traits are the only place that
// knows a Vec3 is three float slots or a bool one integer slot.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tickwire/snapshot/math.h"

namespace tickwire::snapshot {

inline std::uint32_t float_slot(float v) { return std::bit_cast<std::uint32_t>(v); }
inline float slot_float(std::uint32_t s) { return std::bit_cast<float>(s); }
inline std::uint32_t int_slot(std::int32_t v) { return static_cast<std::uint32_t>(v); }
inline std::int32_t slot_int(std::uint32_t s) { return static_cast<std::int32_t>(s); }

template <class T, class Enable = void>
struct FieldValue;

template <>
struct FieldValue<float> {
  static constexpr std::size_t kSlots = 1;
  static float load(const std::uint32_t* s) { return slot_float(s[0]); }
  static void store(std::uint32_t* s, float v) { s[0] = float_slot(v); }
};

template <>
struct FieldValue<std::int32_t> {
  static constexpr std::size_t kSlots = 1;
  static std::int32_t load(const std::uint32_t* s) { return slot_int(s[0]); }
  static void store(std::uint32_t* s, std::int32_t v) { s[0] = int_slot(v); }
};

template <>
struct FieldValue<bool> {
  static constexpr std::size_t kSlots = 1;
  static bool load(const std::uint32_t* s) { return s[0] != 0; }
  static void store(std::uint32_t* s, bool v) { s[0] = v ? 1U : 0U; }
};

template <class E>
struct FieldValue<E, std::enable_if_t<std::is_enum_v<E>>> {
  static constexpr std::size_t kSlots = 1;
  static E load(const std::uint32_t* s) { return static_cast<E>(s[0]); }
  static void store(std::uint32_t* s, E v) { s[0] = static_cast<std::uint32_t>(v); }
};

template <>
struct FieldValue<Vec2> {
  static constexpr std::size_t kSlots = 2;
  static Vec2 load(const std::uint32_t* s) { return {slot_float(s[0]), slot_float(s[1])}; }
  static void store(std::uint32_t* s, Vec2 v) {
    s[0] = float_slot(v.x);
    s[1] = float_slot(v.y);
  }
};

template <>
struct FieldValue<Vec3> {
  static constexpr std::size_t kSlots = 3;
  static Vec3 load(const std::uint32_t* s) { return {slot_float(s[0]), slot_float(s[1]), slot_float(s[2])}; }
  static void store(std::uint32_t* s, Vec3 v) {
    s[0] = float_slot(v.x);
    s[1] = float_slot(v.y);
    s[2] = float_slot(v.z);
  }
};

template <>
struct FieldValue<Quat> {
  static constexpr std::size_t kSlots = 4;
  static Quat load(const std::uint32_t* s) {
    return {slot_float(s[0]), slot_float(s[1]), slot_float(s[2]), slot_float(s[3])};
  }
  static void store(std::uint32_t* s, Quat v) {
    s[0] = float_slot(v.x);
    s[1] = float_slot(v.y);
    s[2] = float_slot(v.z);
    s[3] = float_slot(v.w);
  }
};

template <std::size_t N>
struct FieldValue<std::array<float, N>> {
  static constexpr std::size_t kSlots = N;
  static std::array<float, N> load(const std::uint32_t* s) {
    std::array<float, N> v{};
    for (std::size_t i = 0; i < N; ++i) v[i] = slot_float(s[i]);
    return v;
  }
  static void store(std::uint32_t* s, const std::array<float, N>& v) {
    for (std::size_t i = 0; i < N; ++i) s[i] = float_slot(v[i]);
  }
};

template <std::size_t N>
struct FieldValue<std::array<std::int32_t, N>> {
  static constexpr std::size_t kSlots = N;
  static std::array<std::int32_t, N> load(const std::uint32_t* s) {
    std::array<std::int32_t, N> v{};
    for (std::size_t i = 0; i < N; ++i) v[i] = slot_int(s[i]);
    return v;
  }
  static void store(std::uint32_t* s, const std::array<std::int32_t, N>& v) {
    for (std::size_t i = 0; i < N; ++i) s[i] = int_slot(v[i]);
  }
};

}  // namespace tickwire::snapshot
