#include "commands.h"

#include <array>
#include <charconv>
#include <limits>
#include <optional>

#include "tickwire/transport/connect_token.h"
#include "tickwire/transport/server_identity.h"
#include "token_io.h"

namespace tickwire::tools {
namespace {

using transport::Address;
using transport::ConnectToken;
using transport::TokenStatus;

int bad_input(std::ostream& err, const std::string& detail) {
  err << "tickwire-token: " << detail << "\n";
  return kExitBadInput;
}

std::string hex_of(const std::array<std::uint8_t, 16>& digest) { return to_hex(Bytes(digest.begin(), digest.end())); }

std::optional<std::uint64_t> parse_client_id(const std::string& text) {
  std::uint64_t value = 0;
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(text.data(), last, value);
  if (text.empty() || ec != std::errc() || end != last) return std::nullopt;
  return value;
}

std::string describe_expiry(std::int64_t expires, std::int64_t now) {
  const std::string when = std::to_string(expires) + " (" + format_utc(expires) + ")";
  if (expires > now) return when + ", in " + std::to_string(expires - now) + " s";
  // now - expires cannot overflow: both are times a token or a clock holds.
  return when + ", expired " + std::to_string(now - expires) + " s ago";
}

void print_public(std::ostream& out, const Bytes& bytes, const ConnectToken& token, std::int64_t now) {
  out << "size         " << bytes.size() << " bytes\n";
  out << "created      " << token.created_unix_seconds << " (" << format_utc(token.created_unix_seconds) << ")\n";
  out << "expires      " << describe_expiry(token.expires_unix_seconds, now) << "\n";
  for (const Address& server : token.servers) out << "server       " << server.to_string() << "\n";
  out << "fingerprint  " << hex_of(transport::connect_token_fingerprint(bytes)) << "\n";
}

void print_private(std::ostream& out, const ConnectToken& token) {
  out << "client id    " << token.client_id << "\n";
  out << "session key  " << token.session_key.to_hex() << "\n";
  out << "user data    " << token.user_data.size() << " bytes";
  if (!token.user_data.empty()) out << ": " << to_hex(token.user_data);
  out << "\n";
}

}  // namespace

int run_keygen(const std::string& out_file, std::ostream& out, std::ostream& err) {
  const std::string line = transport::TokenKey::generate().to_hex() + "\n";
  if (out_file.empty()) {
    out << line;
    return kExitOk;
  }
  if (auto written = write_new_private_file(out_file, line); !written) return bad_input(err, written.error().detail);
  err << "tickwire-token: wrote a new key to " << out_file << " (mode 0600)\n";
  return kExitOk;
}

int run_mint(const MintOptions& options, std::int64_t now_unix_seconds, std::ostream& out, std::ostream& err) {
  auto key = load_key(options.key_file);
  if (!key) return bad_input(err, "--key-file " + key.error().detail);

  ConnectToken token;
  for (const std::string& text : options.servers) {
    auto server = Address::parse(text);
    if (!server) return bad_input(err, "--server: " + server.error().detail);
    token.servers.push_back(std::move(server).value());
  }
  if (options.expires_in_seconds < 1 ||
      options.expires_in_seconds > std::numeric_limits<std::int64_t>::max() - now_unix_seconds) {
    return bad_input(err, "--expires-in must be a positive number of seconds");
  }
  auto user_data = from_hex(options.user_data_hex, "--user-data-hex");
  if (!user_data) return bad_input(err, user_data.error().detail);
  if (user_data->size() > transport::kMaxTokenUserData) {
    return bad_input(err, "--user-data-hex: " + std::to_string(user_data->size()) + " bytes; at most " +
                              std::to_string(transport::kMaxTokenUserData) + " fit in a token");
  }
  token.user_data = std::move(user_data).value();
  const auto client_id = parse_client_id(options.client_id);
  if (!client_id) return bad_input(err, "--client-id: '" + options.client_id + "' is not a number from 0 to 2^64-1");
  token.client_id = *client_id;
  token.created_unix_seconds = now_unix_seconds;
  token.expires_unix_seconds = now_unix_seconds + options.expires_in_seconds;
  token.session_key = transport::TokenKey::generate();

  auto minted = transport::mint_connect_token(token, *key);
  if (!minted) return bad_input(err, minted.error().detail);
  // The token, then the session key the client needs beside it.
  const std::string lines = to_hex(*minted) + "\n" + token.session_key.to_hex() + "\n";
  if (options.out_file.empty()) {
    out << lines;
    return kExitOk;
  }
  if (auto written = write_private_file(options.out_file, lines); !written) {
    return bad_input(err, written.error().detail);
  }
  return kExitOk;
}

int run_identity(const IdentityOptions& options, std::ostream& out, std::ostream& err) {
  if (!options.public_file.empty()) {
    auto identity = transport::ServerIdentity::load(options.public_file);
    if (!identity) return bad_input(err, "--public " + identity.error().detail);
    out << identity->public_key().to_hex() << "\n";
    return kExitOk;
  }
  const transport::ServerIdentity identity = transport::ServerIdentity::generate();
  if (auto written = write_new_private_file(options.out_file, identity.to_hex() + "\n"); !written) {
    return bad_input(err, written.error().detail);
  }
  out << identity.public_key().to_hex() << "\n";
  err << "tickwire-token: wrote a new server identity to " << options.out_file
      << " (mode 0600; give it to the server with --server-identity); clients pin the public key above with "
         "--server-key\n";
  return kExitOk;
}

int run_inspect(const InspectOptions& options, std::int64_t now_unix_seconds, std::ostream& out, std::ostream& err) {
  auto bytes = load_token(options.token);
  if (!bytes) return bad_input(err, bytes.error().detail);
  auto token = transport::read_token_public(*bytes);
  if (!token) return bad_input(err, token.error().detail);
  // Read everything the command line names before printing anything, so
  // bad input gets its one line and no partial report.
  std::optional<transport::TokenKey> key;
  if (!options.key_file.empty()) {
    auto loaded = load_key(options.key_file);
    if (!loaded) return bad_input(err, "--key-file " + loaded.error().detail);
    key = *loaded;
  }
  Address server = token->servers.front();
  if (!options.server.empty()) {
    auto parsed = Address::parse(options.server);
    if (!parsed) return bad_input(err, "--server: " + parsed.error().detail);
    server = *parsed;
  }

  print_public(out, *bytes, *token, now_unix_seconds);
  if (!key) return kExitOk;

  const transport::TokenCheck check = transport::check_connect_token(*bytes, *key, now_unix_seconds, server);
  out << "check        " << transport::to_string(check.status) << " (as server " << server.to_string() << ")\n";
  // The private part of a token rejected only for its time or place is
  // still worth seeing; one that does not open has none to show.
  if (auto opened = transport::open_connect_token(*bytes, *key)) print_private(out, *opened);
  if (check.status == TokenStatus::kMalformed) return kExitBadInput;
  return check.status == TokenStatus::kOk ? kExitOk : kExitRejected;
}

}  // namespace tickwire::tools
