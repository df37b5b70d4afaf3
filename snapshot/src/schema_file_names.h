#pragma once
// The words of a schema file (docs/schema-file.md) for the enums of
// schema.h, both ways, shared by its writer and its parser.

#include <optional>
#include <string>
#include <string_view>

#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/schema_file.h"

namespace tickwire::snapshot::schema_file {

const char* name_of(FieldKind kind);
const char* name_of(Interpolation interpolation);
const char* name_of(Prediction prediction);
const char* name_of(TypeRole role);

std::optional<FieldKind> field_kind(std::string_view word);
std::optional<Interpolation> interpolation(std::string_view word);
std::optional<Prediction> prediction(std::string_view word);
std::optional<TypeRole> role(std::string_view word);

// 1 to SchemaFileLimits::kMaxNameBytes characters of A-Z a-z 0-9 _ . -
bool valid_name(std::string_view name);

}  // namespace tickwire::snapshot::schema_file
