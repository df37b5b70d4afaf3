// tickwire-token: makes connect-token keys, mints tokens and inspects them,
// and makes server identities. A game's backend can shell out to it, or use
// it to check its own minter (docs/connect-tokens.md).
//
//   tickwire-token keygen [--out FILE]
//   tickwire-token mint --key-file FILE --server IP:PORT... --client-id N
//                       [--expires-in S] [--user-data-hex HEX] [--out FILE]
//     (two lines of hex: the token, then its session key)
//   tickwire-token inspect TOKEN_HEX|@FILE [--key-file FILE] [--server IP:PORT]
//   tickwire-token identity --out FILE | --public FILE
//
// Exit status: 0 success; 1 inspect checked a token and it was rejected;
// 2 bad input (a missing file, bad hex, a bad address, a malformed token).

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>

#include "commands.h"

namespace {

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tickwire::tools;
  CLI::App app{"tickwire-token: connect-token keys, minting and inspection; server identities.", "tickwire-token"};
  app.require_subcommand(1);

  std::string keygen_out;
  CLI::App* keygen = app.add_subcommand("keygen", "Print a new random key as 64 hex digits");
  keygen->add_option("--out", keygen_out, "Write the key to this new file (mode 0600) instead");

  MintOptions mint_options;
  CLI::App* mint = app.add_subcommand(
      "mint", "Mint a token and print two lines of hex: the token, then the session key the client needs beside it");
  mint->add_option("--key-file", mint_options.key_file, "File holding the key (64 hex digits)")->required();
  mint->add_option("--server", mint_options.servers, "A server the client may join, IPv4:PORT (1 to 8)")->required();
  mint->add_option("--client-id", mint_options.client_id, "The client's id, as the backend knows it")->required();
  mint->add_option("--expires-in", mint_options.expires_in_seconds, "Seconds the token stays valid")
      ->capture_default_str();
  mint->add_option("--user-data-hex", mint_options.user_data_hex,
                   "Opaque user data for the server, in hex (<= 256 bytes)");
  mint->add_option("--out", mint_options.out_file, "Write the two lines to this file (mode 0600) instead");

  InspectOptions inspect_options;
  CLI::App* inspect = app.add_subcommand("inspect", "Show a token; with its key, open and check it");
  inspect->add_option("token", inspect_options.token, "The token as hex, or @FILE (hex or raw bytes)")->required();
  inspect->add_option("--key-file", inspect_options.key_file, "File holding the key: also show the private part");
  inspect->add_option("--server", inspect_options.server, "Check as this server (default: the token's first)");

  IdentityOptions identity_options;
  CLI::App* identity = app.add_subcommand(
      "identity", "Make a server identity: write its secret to a new file, print its public key for clients to pin");
  auto* identity_out = identity->add_option("--out", identity_options.out_file,
                                            "Write the new identity's secret seed to this new file (mode 0600)");
  auto* identity_public = identity->add_option("--public", identity_options.public_file,
                                               "Print the public key of this existing identity file instead");
  identity_out->excludes(identity_public);
  identity->require_option(1);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitBadInput;
  }

  if (keygen->parsed()) return run_keygen(keygen_out, std::cout, std::cerr);
  if (mint->parsed()) return run_mint(mint_options, unix_now(), std::cout, std::cerr);
  if (identity->parsed()) return run_identity(identity_options, std::cout, std::cerr);
  return run_inspect(inspect_options, unix_now(), std::cout, std::cerr);
}
