// libFuzzer target: any bytes, decoded as a snapshot against a client that
// holds real baselines, must end as a counted drop or as a state whose
// every entity and value is inside its bounds: never a crash, a hang, an
// unbounded allocation or an out-of-range value.

#include <cstddef>
#include <cstdint>
#include <span>

#include "snapshot_fuzz_fixture.h"
#include "tickwire/snapshot/field_codec.h"

namespace {

const tickwire::snapshot::fuzz::Fixture& fixture() {
  static const tickwire::snapshot::fuzz::Fixture f;
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tickwire::snapshot;
  const auto& f = fixture();
  SnapshotReceiver receiver = f.receiver;  // each input starts from the same held states
  const auto before = receiver.stats().dropped_total();
  const auto result = receiver.receive(std::span<const std::uint8_t>(data, size));
  if (!result.ok()) {
    if (receiver.stats().dropped_total() != before + 1) __builtin_trap();
    return 0;
  }
  const WorldState* state = receiver.state(result.value());
  if (state == nullptr || state->size() > fuzz::Fixture::kMaxEntities) __builtin_trap();
  EntityId previous{0};
  bool first = true;
  for (const EntityState& e : state->entities()) {
    if (e.id.value >= fuzz::Fixture::kMaxEntities) __builtin_trap();
    if (!first && !(previous < e.id)) __builtin_trap();  // sorted, no duplicates
    first = false;
    previous = e.id;
    const TypeSpec& spec = f.schema.type(e.type);
    if (spec.role != TypeRole::kEntity) __builtin_trap();
    if (!codes_in_range(spec, state->codes(e, spec.stride()))) __builtin_trap();
  }
  return 0;
}
