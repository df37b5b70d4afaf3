#pragma once
// The subcommands of tickwire-token, apart from command-line parsing so
// that they take the time as an argument and write to given streams.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace tickwire::tools {

// Exit statuses: inspect answers 1 when a token it could check was
// rejected (invalid, expired, wrong server), so scripts can branch on it.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRejected = 1;
inline constexpr int kExitBadInput = 2;

struct MintOptions {
  std::string key_file;
  std::vector<std::string> servers;  // HOST:PORT, IPv4 literals
  std::string client_id;             // decimal, 0..2^64-1; parsed here so "-1" cannot wrap
  std::int64_t expires_in_seconds = 30;
  std::string user_data_hex;
  std::string out_file;  // empty: print to `out`
};

struct IdentityOptions {
  std::string out_file;     // a new identity's seed goes here
  std::string public_file;  // or: print the public key of this existing identity
};

struct InspectOptions {
  std::string token;     // hex, or @FILE
  std::string key_file;  // empty: the public part only
  std::string server;    // empty: check as the token's first server
};

int run_keygen(const std::string& out_file, std::ostream& out, std::ostream& err);
int run_mint(const MintOptions& options, std::int64_t now_unix_seconds, std::ostream& out, std::ostream& err);
// Writes a new server identity's seed to a new file (mode 0600) and prints
// its public key; or prints the public key of an existing identity file.
int run_identity(const IdentityOptions& options, std::ostream& out, std::ostream& err);
int run_inspect(const InspectOptions& options, std::int64_t now_unix_seconds, std::ostream& out, std::ostream& err);

}  // namespace tickwire::tools
