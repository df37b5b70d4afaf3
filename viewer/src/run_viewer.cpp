// run_viewer: the command line, SDL's window and renderer and Dear ImGui
// set up around the App, and taken down again in order.

#include <SDL.h>
#include <backends/imgui_impl_sdl.h>
#include <imgui.h>

#include <csignal>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "app.h"
#include "options.h"
#include "sdl_renderer_backend.h"
#include "tickwire/snapshot/codebook.h"
#include "tickwire/viewer/viewer.h"

namespace {

void on_signal(int) { tickwire::viewer::App::stop_requested.store(true); }

// The file name of argv[0], for messages.
std::string program_name(const char* argv0) {
  const std::string path(argv0);
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

namespace tickwire::viewer {
namespace {

// SDL and Dear ImGui taken down in the reverse order of setting up, on
// every way out, exceptions included.
struct SdlSession {
  SdlSession() = default;
  SdlSession(const SdlSession&) = delete;
  SdlSession& operator=(const SdlSession&) = delete;
  ~SdlSession() { SDL_Quit(); }
};
struct WindowCloser {
  void operator()(SDL_Window* w) const { SDL_DestroyWindow(w); }
};
struct RendererCloser {
  void operator()(SDL_Renderer* r) const { SDL_DestroyRenderer(r); }
};
struct ImGuiSession {
  ImGuiSession() {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
  }
  ImGuiSession(const ImGuiSession&) = delete;
  ImGuiSession& operator=(const ImGuiSession&) = delete;
  ~ImGuiSession() { ImGui::DestroyContext(); }
};
struct ImGuiBackends {
  ImGuiBackends() = default;
  ImGuiBackends(const ImGuiBackends&) = delete;
  ImGuiBackends& operator=(const ImGuiBackends&) = delete;
  ~ImGuiBackends() {
    if (renderer) renderer_backend_shutdown();
    if (platform) ImGui_ImplSDL2_Shutdown();
  }
  bool platform = false;
  bool renderer = false;
};

// The game and what the command line loads against its schema, before
// any window: a game hook that fails is reported, not a crash.
std::variant<std::unique_ptr<prediction::NetGame>, int> make_game(const std::string& program, const ViewerSpec& spec,
                                                                  Options& options) {
  if (!spec.make_game) {
    std::cerr << program << ": the viewer was built without a game (ViewerSpec::make_game)\n";
    return kExitCannotStart;
  }
  std::unique_ptr<prediction::NetGame> game;
  try {
    game = spec.make_game();
    if (game) (void)Layout(game->schema(), spec.layout);
  } catch (const std::exception& e) {
    std::cerr << program << ": cannot set up " << spec.game_name << ": " << e.what() << "\n";
    return kExitCannotStart;
  }
  if (!game) {
    std::cerr << program << ": ViewerSpec::make_game gave no game\n";
    return kExitCannotStart;
  }
  if (!options.codebook_file.empty()) {
    auto book = snapshot::load_codebook(options.codebook_file, game->schema());
    if (!book) {
      std::cerr << program << ": --codebook " << book.error().detail << "\n";
      return kExitBadFlags;
    }
    options.codebook = std::move(book).value();
  }
  return game;
}

int run_app(const std::string& program, Options options, const ViewerSpec& spec,
            std::unique_ptr<prediction::NetGame> game) {
  SdlSession sdl;
  const std::string title = spec.game_name + " - Tickwire viewer";
  const std::unique_ptr<SDL_Window, WindowCloser> window(
      SDL_CreateWindow(title.c_str(), SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, options.width, options.height,
                       SDL_WINDOW_SHOWN | SDL_WINDOW_RESIZABLE));
  const std::unique_ptr<SDL_Renderer, RendererCloser> renderer(
      window != nullptr ? SDL_CreateRenderer(window.get(), -1, 0) : nullptr);
  if (renderer == nullptr) {
    std::cerr << program << ": cannot open a window: " << SDL_GetError() << "\n";
    return kExitCannotStart;
  }
  SDL_RendererInfo info;
  if (SDL_GetRendererInfo(renderer.get(), &info) == 0) std::cerr << program << ": renderer " << info.name << "\n";
  const ImGuiSession imgui;
  ImGui::GetIO().IniFilename = nullptr;  // the layout is the program's, not a file's
  ImGui::StyleColorsDark();
  // Anti-aliased edges add a blended fringe to every shape: under a
  // software renderer (a virtual display) that doubles the frame's cost.
  ImGui::GetStyle().AntiAliasedLines = false;
  ImGui::GetStyle().AntiAliasedFill = false;
  ImGuiBackends backends;
  backends.platform = ImGui_ImplSDL2_InitForSDLRenderer(window.get());
  backends.renderer = backends.platform && renderer_backend_init(renderer.get());
  if (!backends.renderer) {
    std::cerr << program << ": cannot set up the user interface\n";
    return kExitCannotStart;
  }
  // The client's constructor refuses bad settings by throwing, and the
  // game's hooks run inside: either ends the program with a message.
  try {
    App app(std::move(options), spec, std::move(game), program, window.get(), renderer.get());
    return app.run();
  } catch (const std::exception& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return kExitCannotStart;
  }
}

}  // namespace

int run_viewer(int argc, const char* const* argv, const ViewerSpec& spec) {
  const std::string program = argc > 0 && argv[0] != nullptr ? program_name(argv[0]) : "viewer";
  auto parsed = parse_options(argc, argv, program, spec);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  Options options = std::get<Options>(std::move(parsed));
  auto game = make_game(program, spec, options);
  if (const int* code = std::get_if<int>(&game)) return *code;

  // The viewer handles SIGINT itself, so it leaves the server cleanly.
  SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
  (void)std::signal(SIGINT, on_signal);
  (void)std::signal(SIGTERM, on_signal);
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    std::cerr << program << ": cannot start the video system: " << SDL_GetError()
              << " (no display? run under xvfb-run for headless use)\n";
    return kExitCannotStart;
  }
  return run_app(program, std::move(options), spec, std::get<std::unique_ptr<prediction::NetGame>>(std::move(game)));
}

}  // namespace tickwire::viewer
