#pragma once
// The viewer's frame loop: SDL events, the player's controls (or a
// script's input), one Client::update, the scene and the panels, the frame
// on screen, then a wait for the next frame that reads traffic as it comes.

#include <SDL.h>

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net_graph.h"
#include "options.h"
#include "scene.h"
#include "tickwire/client/client.h"
#include "tickwire/core/logging.h"
#include "tickwire/transport/conditioned_transport.h"
#include "tickwire/transport/enet_transport.h"
#include "tickwire/viewer/layout.h"
#include "tickwire/viewer/viewer.h"

namespace tickwire::viewer {

class App {
 public:
  // Set by the SIGINT/SIGTERM handler; the loop leaves at the next frame.
  static std::atomic<bool> stop_requested;

  // `spec` must outlive the app; `game` is the client's game object.
  App(Options options, const ViewerSpec& spec, std::unique_ptr<prediction::NetGame> game, std::string program,
      SDL_Window* window, SDL_Renderer* renderer);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Connects and runs until the end; returns the exit code.
  int run();

 private:
  Time now() const;
  bool start();
  void handle_sdl_events();
  void on_key(SDL_Keycode key);
  void read_controls();
  void sample(Tick tick, snapshot::Record& record);
  void handle_client_events();
  FrameContext frame_context() const;
  GraphReading reading() const;
  void build_ui();
  void draw_controls();
  void draw_legend();
  void draw_message();
  void render_frame();
  bool write_screenshot(const std::string& path);
  void wait_for_next_frame(Time next);
  std::string stats_json(const std::string& exit_reason) const;
  void finish_stats(const std::string& exit_reason);

  Options options_;
  const ViewerSpec& spec_;
  std::string program_;
  std::string window_title_;
  SDL_Window* window_;
  SDL_Renderer* renderer_;
  Logging logging_;
  std::chrono::steady_clock::time_point epoch_ = std::chrono::steady_clock::now();

  std::unique_ptr<prediction::NetGame> game_;
  Layout layout_;
  transport::EnetTransport* enet_ = nullptr;                // owned by the client, through the conditioner
  transport::ConditionedTransport* conditioner_ = nullptr;  // owned by the client
  std::unique_ptr<client::Client> client_;
  InputFn script_;     // set when --script chose one of the game's
  Controls controls_;  // the keyboard's and mouse's, read each frame
  std::optional<snapshot::Vec2> self_;

  Scene scene_;
  SceneToggles toggles_;
  NetGraph graph_;
  Viewport viewport_;
  bool show_graph_ = true;
  bool show_link_ = false;
  bool show_controls_ = true;
  std::string link_preset_;
  transport::LinkConditions link_up_;
  transport::LinkConditions link_down_;

  bool quit_ = false;
  bool ever_connected_ = false;
  int exit_code_ = kExitOk;
  std::string exit_reason_ = "ended";
  std::string message_;           // shown on screen: why the session ended
  std::optional<Time> leave_at_;  // the message stays until then
  Time started_;
  std::uint64_t frames_ = 0;
  std::vector<double> frame_ms_;  // work per frame (not the wait), after the first second
  // Its parts: events and Client::update, the scene and panels built,
  // drawn by the renderer, put on screen.
  std::array<std::vector<double>, 4> part_ms_;
  bool screenshot_taken_ = false;
};

}  // namespace tickwire::viewer
