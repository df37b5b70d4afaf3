// libFuzzer target: snapshot_decode's obligations, with both ends coding
// with a codebook, so that bodies have a prefix-coded part (per entity:
// chunk symbols, exponents, signs and low bits) before the range-coded
// one (docs/wire-format.md, "Codebook bodies"). Any bytes must end as a
// counted drop or as a state inside its bounds.

#include <cstddef>
#include <cstdint>

#include "snapshot_fuzz_fixture.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tickwire::snapshot::fuzz::Fixture fixture(tickwire::snapshot::fuzz::Fixture::trained_codebook());
  tickwire::snapshot::fuzz::check_decode(fixture, data, size);
  return 0;
}
