// libFuzzer target: parse_schema on any bytes (a schema file is untrusted,
// snapshot/schema_file.h). It must return a schema or an error naming a
// line, never throw or crash; a schema it returns must write out and read
// back to the same hash, and its description must be canonical.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "tickwire/snapshot/schema_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace snapshot = tickwire::snapshot;
  const std::string_view text(reinterpret_cast<const char*>(data), size);  // NOLINT: bytes as chars
  auto parsed = snapshot::parse_schema(text);
  if (!parsed) {
    TICKWIRE_FUZZ_CHECK(parsed.error().detail.find("line ") != std::string::npos ||
                        parsed.error().code == tickwire::ErrorCode::kTooLong);
    return 0;
  }
  const std::string described = snapshot::describe_schema(parsed.value());
  auto again = snapshot::parse_schema(described);
  TICKWIRE_FUZZ_CHECK(again.ok());
  TICKWIRE_FUZZ_CHECK(again.value().type_count() == parsed.value().type_count());
  if (parsed.value().type_count() > 0) TICKWIRE_FUZZ_CHECK(again.value().hash() == parsed.value().hash());
  TICKWIRE_FUZZ_CHECK(snapshot::describe_schema(again.value()) == described);
  return 0;
}
