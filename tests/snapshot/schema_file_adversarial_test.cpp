// Schema files are untrusted: truncated, hostile and oversized files must
// end in an error naming the line, never a throw, a crash or a schema
// other than the one described.

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "test_seed.h"
#include "tickwire/snapshot/schema_file.h"

namespace tickwire::snapshot {
namespace {

const char* const kValid =
    "tickwire-schema 1\n"
    "type ship entity priority 2\n"
    "field position vec3 min -500 -50 -500 max 500 50 500 precision 0.01 interpolation linear prediction auto\n"
    "field rotation quat bits 10 interpolation angular prediction auto\n"
    "field health int min 0 max 100 interpolation step prediction auto\n"
    "field mood enum count 3\n"
    "field ammo int_array size 3 min 0 max 99 interpolation step prediction auto\n"
    "field sensors float_array size 4 min -1 max 1 precision 0.01 interpolation linear prediction auto\n"
    "type input record priority 1\n"
    "field move vec2 min -1 -1 max 1 1 precision 0.01 interpolation linear prediction auto\n"
    "field aim angle bits 12 interpolation angular prediction auto\n"
    "field fire bool\n";

// The error for `text`, which must be refused.
std::string refused(const std::string& text) {
  auto parsed = parse_schema(text);
  EXPECT_FALSE(parsed) << "accepted:\n" << text;
  return parsed ? std::string() : parsed.error().detail;
}

TEST(SchemaFileAdversarial, TheValidFileParses) { ASSERT_TRUE(parse_schema(kValid)); }

TEST(SchemaFileAdversarial, EveryTruncationParsesOrIsRefused) {
  const std::string full = describe_schema(parse_schema(kValid).value());
  const std::uint64_t full_hash = parse_schema(full).value().hash();
  // Cut before the end of the last field line, a file describes less than
  // the whole schema (or nothing parseable); cut inside the hash line, its
  // digits no longer match and the file is refused.
  const std::size_t last_field_end = full.find("\nhash ");
  ASSERT_NE(last_field_end, std::string::npos);
  for (std::size_t n = 0; n < full.size(); ++n) {
    auto parsed = parse_schema(std::string_view(full).substr(0, n));
    if (n < last_field_end) {
      if (parsed) {
        EXPECT_NE(parsed.value().hash(), full_hash) << n;
      }
    } else if (n > last_field_end + 1 && n + 1 < full.size()) {  // the last: all but the final newline
      EXPECT_FALSE(parsed) << n;
    }
  }
}

TEST(SchemaFileAdversarial, ErrorsNameTheLine) {
  EXPECT_NE(refused("tickwire-schema 1\ntype a entity\nfield x float min 0 max nan precision 0.1\n")
                .find("line 3: max: 'nan' is not a finite number"),
            std::string::npos);
  EXPECT_NE(refused("tickwire-schema 1\ntype a entity\nfield x float min 0 max inf precision 0.1\n").find("line 3"),
            std::string::npos);
  EXPECT_NE(refused("tickwire-schema 1\ntype a entity\nfield x float min 5 max 1 precision 0.1\n")
                .find("line 3: snapshot schema: field 'x'"),
            std::string::npos);
  EXPECT_NE(refused("\n\ntickwire-schema 2\n").find("line 3: schema file version 2 is not supported"),
            std::string::npos);
  EXPECT_NE(refused("tickwire-schema 1\nfield x bool\n").find("line 2: a field before any type"), std::string::npos);
}

TEST(SchemaFileAdversarial, HostileLinesAreRefused) {
  const std::string head = "tickwire-schema 1\ntype a entity\n";
  const char* const bad_lines[] = {
      "field x float min 0 max 1 precision 0",          // zero precision
      "field x float min 0 max 1 precision -1",         // negative precision
      "field x float min 0 max 1e30 precision 1e-30",   // too many steps
      "field x float min 0 max 1 precision 1e-9",       // finer than a float holds
      "field x float min 0 max 1",                      // truncated
      "field x float min 0 max 1 precision 0.1 extra",  // trailing word
      "field x float min 0 max 1 precision 0.1 interpolation sideways",
      "field x float min 0 max 1 precision 0.1 prediction psychic",
      "field x float min 0 max 1 precision 0.1 interpolation linear interpolation step",
      "field x int min 0 max 99999999999",  // past int32
      "field x int min 0 max 1.5",          // not an integer
      "field x int min 0 max 1 interpolation angular",
      "field x enum count 0",
      "field x enum count -1",
      "field x angle bits 1",
      "field x angle bits 21",
      "field x quat bits 40",
      "field x quat precision 1e-9",
      "field x float_array size 0 min 0 max 1 precision 0.1",
      "field x float_array size 65 min 0 max 1 precision 0.1",
      "field x int_array size 99999999999999999999 min 0 max 1",
      "field x vec2 min 0 max 1 1 precision 0.1",
      "field x vec3 min 0 0 0 max 1 1 1 precision 0.1 interpolation angular",
      "field x bool interpolation linear",
      "field x teapot",
      "field x",
      "field",
      "field a.b! bool",
      "field x bool\nfield x bool",  // duplicate
      "field x int min 0 max 3 interpolation teleport_counter\nfield y float min 0 max 1 precision 0.1 "
      "interpolation teleport_counter",
      "type a entity",  // duplicate type
      "type b thing",
      "type b entity priority 0",
      "type b entity priority -3",
      "type b entity priority nan",
      "type b entity priority 1 2",
      "banana",
      "hash zz",
      "hash 12345678901234567",
      "hash 0\nfield y bool",
  };
  for (const char* line : bad_lines) {
    const std::string error = refused(head + line + "\n");
    EXPECT_NE(error.find("line "), std::string::npos) << line << ": " << error;
  }
}

TEST(SchemaFileAdversarial, AWrongHashIsRefused) {
  std::string text = describe_schema(parse_schema(kValid).value());
  const std::size_t at = text.find("hash ");
  ASSERT_NE(at, std::string::npos);
  text[at + 5] = text[at + 5] == '0' ? '1' : '0';
  EXPECT_NE(refused(text).find("do not have this hash"), std::string::npos);
}

TEST(SchemaFileAdversarial, SizesAreBounded) {
  EXPECT_EQ(parse_schema(std::string(SchemaFileLimits::kMaxBytes + 1, '#')).error().code, ErrorCode::kTooLong);
  EXPECT_NE(refused("tickwire-schema 1\n# " + std::string(5000, 'x') + "\n").find("longer than 4096"),
            std::string::npos);
  EXPECT_NE(refused("tickwire-schema 1\ntype " + std::string(65, 'a') + " entity\n").find("1 to 64 characters"),
            std::string::npos);
  std::string many = "tickwire-schema 1\n";
  for (int i = 0; i <= 256; ++i) many += "type t" + std::to_string(i) + " entity\n";
  EXPECT_NE(refused(many).find("more than 256 types"), std::string::npos);
  std::string wide = "tickwire-schema 1\ntype t entity\n";
  for (int i = 0; i <= 256; ++i) wide += "field f" + std::to_string(i) + " bool\n";
  EXPECT_NE(refused(wide).find("more than 256 fields"), std::string::npos);
  // The slot limit (1024 per type) holds within the field limit.
  std::string slots = "tickwire-schema 1\ntype t entity\n";
  for (int i = 0; i < 20; ++i) slots += "field f" + std::to_string(i) + " int_array size 64 min 0 max 1\n";
  EXPECT_NE(refused(slots).find("1024 slots"), std::string::npos);
}

TEST(SchemaFileAdversarial, BinaryGarbageIsRefused) {
  EXPECT_FALSE(parse_schema(std::string("\0\0\0\xff\xfe", 5)));
  EXPECT_FALSE(parse_schema(std::string("tickwire-schema 1\ntype \0a entity\n", 33)));
  EXPECT_FALSE(parse_schema("tickwire-schema"));
  EXPECT_FALSE(parse_schema(""));
  EXPECT_FALSE(parse_schema("   \n\t\n# only comments\n"));
}

// Random edits of a valid file: each parses to some schema or is refused;
// what parses writes out and reads back to the same hash.
TEST(SchemaFileAdversarial, MutatedFilesNeverCrash) {
  std::mt19937_64 rng(testing::test_seed("SchemaFileAdversarial.MutatedFilesNeverCrash"));
  const std::string valid = describe_schema(parse_schema(kValid).value());
  const std::string alphabet = " \n\t#-.0123456789abcdefinxyz";
  for (int round = 0; round < 3000; ++round) {
    std::string text = valid;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0: text[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: text.erase(at, 1 + rng() % 8); break;
        default: text.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      }
    }
    auto parsed = parse_schema(text);
    if (!parsed) continue;
    auto again = parse_schema(describe_schema(parsed.value()));
    ASSERT_TRUE(again) << again.error().detail << "\nfrom:\n" << text;
    EXPECT_EQ(again.value().hash(), parsed.value().hash());
  }
}

}  // namespace
}  // namespace tickwire::snapshot
