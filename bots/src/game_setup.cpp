#include "game_setup.h"

#include <exception>
#include <string>

#include "tickwire/snapshot/codebook.h"
#include "tickwire/snapshot/schema_file.h"

namespace tickwire::bots {
namespace {

Error bad_flag(std::string detail) { return make_error(ErrorCode::kInvalidArgument, std::move(detail)); }

// The input type of a schema file: --input-type, or its only record type.
Result<snapshot::TypeId> input_type_of(const snapshot::Schema& schema, const std::string& name) {
  std::vector<std::string> records;
  for (const snapshot::TypeSpec& t : schema.types()) {
    if (t.role == snapshot::TypeRole::kRecord) records.push_back(t.name);
  }
  if (!name.empty()) {
    const auto type = schema.find_type(name);
    if (!type || schema.type(*type).role != snapshot::TypeRole::kRecord) {
      return bad_flag("--input-type: the schema has no record type '" + name + "'");
    }
    return *type;
  }
  if (records.size() == 1) return *schema.find_type(records.front());
  if (records.empty()) return bad_flag("--schema: the schema has no record type to send as input");
  std::string list;
  for (const std::string& r : records) list += (list.empty() ? "" : ", ") + r;
  return bad_flag("--schema: the schema has several record types (" + list + "); name the input with --input-type");
}

Result<void> use_schema_file(const Options& o, GameSetup& setup) {
  if (!o.thin) return bad_flag("--schema plays with no game code, which only thin bots can: add --thin");
  auto schema = snapshot::load_schema(o.schema_file);
  if (!schema) return bad_flag("--schema " + schema.error().detail);
  auto input = input_type_of(schema.value(), o.input_type);
  if (!input) return input.error();
  setup.schema = schema.value();
  setup.input_type = input.value();
  const snapshot::Schema file_schema = schema.value();
  const snapshot::TypeId input_type = input.value();
  setup.make_game = [file_schema, input_type] { return make_schema_game(file_schema, input_type); };
  setup.scripts = generic_scripts();
  return {};
}

// One game from the binary's hook, which is the game's code: a null or a
// throw is reported as a start-up error, not a crash.
Result<std::unique_ptr<prediction::NetGame>> try_make_game(
    const std::function<std::unique_ptr<prediction::NetGame>()>& make_game) {
  std::unique_ptr<prediction::NetGame> game;
  try {
    game = make_game();
  } catch (const std::exception& e) {
    return bad_flag(std::string("BotsSpec::make_game: ") + e.what());
  }
  if (!game) return bad_flag("BotsSpec::make_game gave no game");
  return game;
}

}  // namespace

const ScriptInfo* GameSetup::find(std::string_view name) const {
  for (const ScriptInfo& info : scripts) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::vector<ScriptInfo> all_scripts(const BotsSpec& spec) {
  std::vector<ScriptInfo> all = spec.scripts;
  all.insert(all.end(), generic_scripts().begin(), generic_scripts().end());
  return all;
}

Result<std::shared_ptr<const GameSetup>> make_game_setup(Options& o, const BotsSpec& spec) {
  auto setup = std::make_shared<GameSetup>();
  if (!o.input_type.empty() && o.schema_file.empty()) return bad_flag("--input-type needs --schema");
  if (!o.schema_file.empty()) {
    if (auto used = use_schema_file(o, *setup); !used) return used.error();
    if (!o.script_given) o.script = "generic-walk";
  } else {
    if (!spec.make_game) return bad_flag("this binary has no game of its own: run it with --thin --schema FILE");
    setup->make_game = spec.make_game;
    setup->scripts = all_scripts(spec);
    auto game = try_make_game(spec.make_game);
    if (!game) return game.error();
    setup->schema = game.value()->schema();
    setup->input_type = game.value()->input_type();
  }
  if (!o.codebook_file.empty()) {
    auto book = snapshot::load_codebook(o.codebook_file, setup->schema);
    if (!book) return bad_flag("--codebook " + book.error().detail);
    o.codebook = std::move(book).value();
  }
  // The codebook the honest bots' clients fold into their Hello.
  auto game = try_make_game(setup->make_game);
  if (!game) return game.error();
  const std::shared_ptr<const snapshot::ModelState> book =
      o.codebook ? o.codebook : (o.adaptive_models ? nullptr : game.value()->snapshot_codebook());
  setup->hello_fingerprint = {setup->schema.hash(), snapshot::fingerprint_codebook_hash(book.get(), setup->schema)};
  if (o.bots > 0 && setup->find(o.script) == nullptr) {
    return bad_flag("--script: '" + o.script + "' is not a script of this game" +
                    (o.schema_file.empty() ? "" : " (with --schema, only the generic-* scripts)"));
  }
  return std::shared_ptr<const GameSetup>(std::move(setup));
}

}  // namespace tickwire::bots
