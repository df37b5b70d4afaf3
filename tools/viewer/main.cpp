// tickwire-viewer: a window onto a Tickwire match of the arena. Plays it
// from the keyboard and mouse (or a bot script) and draws what the netcode
// does: the own player predicted, the server's view of it, the others
// interpolated behind their newest snapshots, corrections, and a net graph.

#include <SDL.h>
#include <backends/imgui_impl_sdl.h>
#include <imgui.h>

#include <csignal>
#include <iostream>
#include <variant>

#include "app.h"
#include "options.h"
#include "sdl_renderer_backend.h"

namespace {

void on_signal(int) { tickwire::viewer::App::stop_requested.store(true); }

}  // namespace

int main(int argc, char** argv) {
  using namespace tickwire::viewer;
  auto parsed = parse_options(argc, argv);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  Options options = std::get<Options>(std::move(parsed));

  // The viewer handles SIGINT itself, so it leaves the server cleanly.
  SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
  (void)std::signal(SIGINT, on_signal);
  (void)std::signal(SIGTERM, on_signal);
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    std::cerr << "tickwire-viewer: cannot start the video system: " << SDL_GetError()
              << " (no display? run under xvfb-run for headless use)\n";
    return kExitCannotStart;
  }
  SDL_Window* window = SDL_CreateWindow("Tickwire viewer", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                        options.width, options.height, SDL_WINDOW_SHOWN | SDL_WINDOW_RESIZABLE);
  SDL_Renderer* renderer = window != nullptr ? SDL_CreateRenderer(window, -1, 0) : nullptr;
  if (renderer == nullptr) {
    std::cerr << "tickwire-viewer: cannot open a window: " << SDL_GetError() << "\n";
    if (window != nullptr) SDL_DestroyWindow(window);
    SDL_Quit();
    return kExitCannotStart;
  }
  SDL_RendererInfo info;
  if (SDL_GetRendererInfo(renderer, &info) == 0) std::cerr << "tickwire-viewer: renderer " << info.name << "\n";
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
    App app(std::move(options), window, renderer);
    code = app.run();
  } else {
    std::cerr << "tickwire-viewer: cannot set up the user interface\n";
  }
  renderer_backend_shutdown();
  ImGui_ImplSDL2_Shutdown();
  ImGui::DestroyContext();
  SDL_DestroyRenderer(renderer);
  SDL_DestroyWindow(window);
  SDL_Quit();
  return code;
}
