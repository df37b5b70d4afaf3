// The arena's schema through a schema file (snapshot/schema_file.h): the
// same hash back, so a program with no arena code speaks its protocol.

#include <gtest/gtest.h>

#include "tickwire/arena/arena.h"
#include "tickwire/snapshot/codebook.h"
#include "tickwire/snapshot/schema_file.h"

namespace tickwire::arena {
namespace {

TEST(ArenaSchemaFile, RoundTripsWithTheSameHash) {
  const snapshot::Schema& schema = arena::schema().schema;
  auto back = snapshot::parse_schema(snapshot::describe_schema(schema));
  ASSERT_TRUE(back) << back.error().detail;
  EXPECT_EQ(back.value().hash(), schema.hash());
  const auto input = back.value().find_type("input");
  ASSERT_TRUE(input.has_value());
  EXPECT_EQ(*input, arena::schema().input_type);
  // The codebook the arena ships fits the schema read back.
  EXPECT_EQ(snapshot::with_codebook(back.value().hash(), Game().snapshot_codebook().get(), back.value()),
            Game::protocol_schema_hash());
}

}  // namespace
}  // namespace tickwire::arena
