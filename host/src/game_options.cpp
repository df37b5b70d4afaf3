// GameOptions: the game's flags, added to the host's parser.
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "cli.h"
#include "tickwire/host/server_host.h"

namespace tickwire::host {
namespace {

// A bound as a person writes it: 100000, not 100000.000000.
std::string number(double value) {
  std::ostringstream out;
  out << std::setprecision(15) << value;
  return out.str();
}

}  // namespace

GameOptions::GameOptions(Impl& impl) : impl_(impl) {}

GameOptions& GameOptions::flag(std::string name, std::string help, bool& value) {
  impl_.add_flag(std::move(name), std::move(help), value);
  return *this;
}

GameOptions& GameOptions::option(std::string name, std::string help, int& value) {
  impl_.add(std::move(name), std::move(help), value)->type_name("N");
  return *this;
}

GameOptions& GameOptions::option(std::string name, std::string help, std::uint32_t& value) {
  impl_.add(std::move(name), std::move(help), value)->type_name("N");
  return *this;
}

GameOptions& GameOptions::option(std::string name, std::string help, std::size_t& value) {
  impl_.add(std::move(name), std::move(help), value)->type_name("N");
  return *this;
}

GameOptions& GameOptions::option(std::string name, std::string help, double& value) {
  impl_.add(std::move(name), std::move(help), value)->type_name("X");
  return *this;
}

GameOptions& GameOptions::option(std::string name, std::string help, std::string& value) {
  impl_.add(std::move(name), std::move(help), value)->type_name("TEXT");
  return *this;
}

GameOptions& GameOptions::range(double min, double max) {
  // Called before any option is a mistake in the game's code, not input.
  if (impl_.last() == nullptr) throw std::logic_error("GameOptions::range before any option");
  impl_.last()->check(CLI::Validator(
      [min, max](const std::string& text) -> std::string {
        double value = 0.0;
        if (!CLI::detail::lexical_cast(text, value)) return "'" + text + "' is not a number";
        if (value >= min && value <= max) return {};
        return "Value " + text + " not in range " + number(min) + " to " + number(max);
      },
      ""));
  return *this;
}

}  // namespace tickwire::host
