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

int run_viewer(int argc, const char* const* argv, const ViewerSpec& spec) {
  const std::string program = argc > 0 && argv[0] != nullptr ? program_name(argv[0]) : "viewer";
  auto parsed = parse_options(argc, argv, program, spec);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  Options options = std::get<Options>(std::move(parsed));

  // The viewer handles SIGINT itself, so it leaves the server cleanly.
  SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
  (void)std::signal(SIGINT, on_signal);
  (void)std::signal(SIGTERM, on_signal);
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    std::cerr << program << ": cannot start the video system: " << SDL_GetError()
              << " (no display? run under xvfb-run for headless use)\n";
    return kExitCannotStart;
  }
  if (!spec.make_game) {
    std::cerr << program << ": the viewer was built without a game (ViewerSpec::make_game)\n";
    return kExitCannotStart;
  }
  std::unique_ptr<prediction::NetGame> game;
  std::optional<Layout> layout_check;
  try {
    game = spec.make_game();
    if (game) layout_check.emplace(game->schema(), spec.layout);
  } catch (const std::exception& e) {
    std::cerr << program << ": cannot set up " << spec.game_name << ": " << e.what() << "\n";
    return kExitCannotStart;
  }
  if (!game) {
    std::cerr << program << ": ViewerSpec::make_game gave no game\n";
    return kExitCannotStart;
  }
  const std::string title = spec.game_name + " - Tickwire viewer";
  SDL_Window* window = SDL_CreateWindow(title.c_str(), SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, options.width,
                                        options.height, SDL_WINDOW_SHOWN | SDL_WINDOW_RESIZABLE);
  SDL_Renderer* renderer = window != nullptr ? SDL_CreateRenderer(window, -1, 0) : nullptr;
  if (renderer == nullptr) {
    std::cerr << program << ": cannot open a window: " << SDL_GetError() << "\n";
    if (window != nullptr) SDL_DestroyWindow(window);
    SDL_Quit();
    return kExitCannotStart;
  }
  SDL_RendererInfo info;
  if (SDL_GetRendererInfo(renderer, &info) == 0) std::cerr << program << ": renderer " << info.name << "\n";
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // the layout is the program's, not a file's
  ImGui::StyleColorsDark();
  // Anti-aliased edges add a blended fringe to every shape: under a
  // software renderer (a virtual display) that doubles the frame's cost.
  ImGui::GetStyle().AntiAliasedLines = false;
  ImGui::GetStyle().AntiAliasedFill = false;
  int code = kExitCannotStart;
  if (ImGui_ImplSDL2_InitForSDLRenderer(window) && renderer_backend_init(renderer)) {
    App app(std::move(options), spec, std::move(game), program, window, renderer);
    code = app.run();
  } else {
    std::cerr << program << ": cannot set up the user interface\n";
  }
  renderer_backend_shutdown();
  ImGui_ImplSDL2_Shutdown();
  ImGui::DestroyContext();
  SDL_DestroyRenderer(renderer);
  SDL_DestroyWindow(window);
  SDL_Quit();
  return code;
}

}  // namespace tickwire::viewer
