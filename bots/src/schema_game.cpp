// The game thin bots play from a schema file: the schema and its input
// type, and no rules. A thin client never simulates, so simulate is never
// asked for anything; the server's state arrives as it is.

#include <stdexcept>

#include "tickwire/bots/bots.h"

namespace tickwire::bots {
namespace {

class SchemaGame final : public prediction::NetGame {
 public:
  SchemaGame(snapshot::Schema schema, snapshot::TypeId input_type)
      : schema_(std::move(schema)), input_type_(input_type) {}

  void simulate(snapshot::World& /*world*/, Tick /*tick*/, const prediction::Inputs& /*inputs*/,
                prediction::SimContext& /*ctx*/) override {}
  const snapshot::Schema& schema() const override { return schema_; }
  snapshot::TypeId input_type() const override { return input_type_; }
  void player_joined(snapshot::World& /*world*/, prediction::PlayerId /*player*/) override {}
  void player_left(snapshot::World& /*world*/, prediction::PlayerId /*player*/) override {}
  std::optional<snapshot::EntityId> avatar(const snapshot::World& /*world*/,
                                           prediction::PlayerId /*player*/) const override {
    return std::nullopt;
  }

 private:
  snapshot::Schema schema_;
  snapshot::TypeId input_type_;
};

}  // namespace

std::unique_ptr<prediction::NetGame> make_schema_game(snapshot::Schema schema, snapshot::TypeId input_type) {
  if (!schema.has_type(input_type) || schema.type(input_type).role != snapshot::TypeRole::kRecord) {
    throw std::invalid_argument("make_schema_game: the input type is not a record type of the schema");
  }
  return std::make_unique<SchemaGame>(std::move(schema), input_type);
}

}  // namespace tickwire::bots
