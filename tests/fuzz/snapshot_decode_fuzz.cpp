// libFuzzer target: any bytes, decoded as a snapshot against a client that
// holds real baselines, must end as a counted drop or as a state whose
// every entity and value is inside its bounds: never a crash, a hang, an
// unbounded allocation or an out-of-range value. Bodies are coded
// adaptively; snapshot_codebook_decode takes those coded with a codebook.

#include <cstddef>
#include <cstdint>

#include "snapshot_fuzz_fixture.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tickwire::snapshot::fuzz::Fixture fixture;
  tickwire::snapshot::fuzz::check_decode(fixture, data, size);
  return 0;
}
