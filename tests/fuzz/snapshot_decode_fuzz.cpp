// libFuzzer target: any bytes, decoded as a snapshot against a client that
// holds real baselines, must end as a counted drop or as a state whose
// every entity and value is inside its bounds: never a crash, a hang, an
// unbounded allocation or an out-of-range value.

#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_check.h"
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
    TICKWIRE_FUZZ_CHECK(receiver.stats().dropped_total() == before + 1);
    return 0;
  }
  const WorldState* state = receiver.state(result.value());
  TICKWIRE_FUZZ_CHECK(state != nullptr && state->size() <= fuzz::Fixture::kMaxEntities);
  EntityId previous{0};
  bool first = true;
  for (const EntityState& e : state->entities()) {
    TICKWIRE_FUZZ_CHECK(e.id.value < fuzz::Fixture::kMaxEntities);
    TICKWIRE_FUZZ_CHECK(first || previous < e.id);  // sorted, no duplicates
    first = false;
    previous = e.id;
    const TypeSpec& spec = f.schema.type(e.type);
    TICKWIRE_FUZZ_CHECK(spec.role == TypeRole::kEntity);
    TICKWIRE_FUZZ_CHECK(codes_in_range(spec, state->codes(e, spec.stride())));
  }
  return 0;
}
