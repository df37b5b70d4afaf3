#pragma once
// The viewer's command line, the same for every game's viewer.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "tickwire/snapshot/body_models.h"
#include "tickwire/transport/connect_token.h"
#include "tickwire/transport/enet_transport.h"
#include "tickwire/transport/server_identity.h"
#include "tickwire/transport/transport.h"
#include "tickwire/viewer/viewer.h"

namespace tickwire::viewer {

struct Options {
  std::string connect = "127.0.0.1:7777";
  transport::Address server;
  std::string name = "viewer";
  // Empty: the keyboard and mouse play; else one of the game's scripts.
  std::string script;
  std::uint64_t seed = 1;
  double duration_s = 0.0;  // 0: until the window closes
  std::string screenshot;   // PNG written after `after_s`, then the viewer exits
  double after_s = 3.0;
  std::string stats_json;  // written at exit
  int width = 1280;
  int height = 800;
  int frame_rate = 60;
  bool net_graph = true;
  bool link_panel = false;
  bool adaptive_models = false;  // --adaptive-models: the server codes without the game's codebook
  // --codebook: the server's snapshot codebook file, loaded against the
  // game's schema into `codebook` (client::ClientConfig::snapshot_codebook).
  std::string codebook_file;
  std::shared_ptr<const snapshot::ModelState> codebook;
  // The teaching toggles at start (client::DrawOptions).
  bool prediction = true;
  bool interpolation = true;
  bool smoothing = true;
  std::string link_preset = "off";  // the link conditioner's preset at start
  std::string log_level = "warn";
  // Session security: --server-key (pinned), --plaintext (debugging), and
  // --token-file, the token and its session key from the game's backend.
  std::optional<transport::ServerPublicKey> server_key;
  bool plaintext = false;
  std::optional<transport::ClientToken> token;
};

// The viewer's socket settings: the options' session security applied.
transport::EnetConfig enet_config(const Options& options);

// Options, or the exit code when the program should stop (0 after --help,
// 2 for bad flags, with the message printed). --codebook is only named
// here: it is loaded once the game's schema is at hand.
// `program` names the binary in messages; the spec's scripts are the
// choices of --script.
std::variant<Options, int> parse_options(int argc, const char* const* argv, const std::string& program,
                                         const ViewerSpec& spec);

}  // namespace tickwire::viewer
