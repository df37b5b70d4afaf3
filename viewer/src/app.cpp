#include "app.h"

#include <backends/imgui_impl_sdl.h>
#include <imgui.h>
#include <stb_image_write.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "imgui_canvas.h"
#include "link_presets.h"
#include "sdl_renderer_backend.h"
#include "tickwire/timesync/client_time_provider.h"

namespace tickwire::viewer {

std::atomic<bool> App::stop_requested{false};

namespace {

// How long the reason a session ended stays on screen before the viewer exits.
constexpr Duration kMessageTime = Duration::seconds(2);
// With a conditioned link the loop wakes this often between frames, so the
// conditioner's delays are kept to within it rather than rounded to a frame.
constexpr Duration kLinkServiceInterval = Duration::millis(2);
// Frame times of the first second (window set-up, connecting) are left out.
constexpr Duration kFrameTimeWarmUp = Duration::seconds(1);
constexpr float kPanelWidth = 430.0F;

Duration seconds(double s) { return Duration::micros(static_cast<std::int64_t>(s * 1e6)); }

}  // namespace

App::App(Options options, const ViewerSpec& spec, std::unique_ptr<prediction::NetGame> game, std::string program,
         SDL_Window* window, SDL_Renderer* renderer)
    : options_(std::move(options)),
      spec_(spec),
      program_(std::move(program)),
      window_(window),
      renderer_(renderer),
      logging_(parse_log_level(options_.log_level).value(), LogFormat::kText),
      game_(std::move(game)),
      layout_(game_->schema(), spec_.layout),
      scene_(layout_, spec_),
      show_graph_(options_.net_graph),
      show_link_(options_.link_panel),
      link_preset_(options_.link_preset) {
  window_title_ = spec_.game_name + " - Tickwire viewer";
  if (const LinkPreset* p = find_link_preset(link_preset_)) {
    link_up_ = p->up;
    link_down_ = p->down;
  }
}

App::~App() = default;

Time App::now() const {
  return Time::from_micros(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - epoch_).count());
}

bool App::start() {
  auto enet = transport::EnetTransport::create(enet_config(options_));
  if (!enet) {
    std::cerr << program_ << ": " << enet.error().detail << "\n";
    return false;
  }
  enet_ = enet.value().get();
  // Always through the conditioner, so the panel can change the link live;
  // with no conditions it passes everything straight on.
  auto conditioned = std::make_unique<transport::ConditionedTransport>(
      std::move(enet).value(), transport::ConditionedConfig{link_up_, link_down_, options_.seed});
  conditioner_ = conditioned.get();
  client::ClientConfig config;
  config.name = options_.name;
  config.snapshot_codebook = options_.codebook;
  config.adaptive_snapshot_models = options_.adaptive_models;
  config.logger = logging_.get("client");
  client_ = std::make_unique<client::Client>(
      std::move(conditioned), *game_, [this](Tick t, snapshot::Record& r) { sample(t, r); }, config);
  client_->set_draw_options({options_.prediction, options_.interpolation, options_.smoothing});
  for (const ScriptSpec& script : spec_.scripts) {
    if (script.name == options_.script && script.make) script_ = script.make(options_.seed);
  }
  started_ = now();
  if (auto ok = client_->connect(options_.server, started_); !ok) {
    std::cerr << program_ << ": cannot connect to " << options_.connect << ": " << ok.error().detail << "\n";
    return false;
  }
  return true;
}

int App::run() {
  if (!start()) return kExitCannotStart;
  const Duration frame = Duration::micros(1'000'000 / options_.frame_rate);
  std::optional<Time> end;
  if (options_.duration_s > 0.0) end = started_ + seconds(options_.duration_s);
  std::optional<Time> shot_at;
  if (!options_.screenshot.empty()) shot_at = started_ + seconds(options_.after_s);
  Time next_frame = now();
  while (!quit_) {
    const Time t = now();
    if (stop_requested.load()) {
      exit_reason_ = "interrupted";
      break;
    }
    if (end && t >= *end) {
      exit_reason_ = "duration";
      break;
    }
    if (leave_at_ && t >= *leave_at_) break;
    handle_sdl_events();
    if (quit_) break;
    read_controls();
    client_->update(t);
    const Time updated = now();
    handle_client_events();
    scene_.observe(*client_, t);
    if (spec_.on_frame) spec_.on_frame(frame_context());
    // The screenshot is taken on a frame that took a graph sample, so the
    // picture shows the figures the stats file gets.
    const bool sampled = graph_.observe(reading());
    const bool shoot_now = shot_at && t >= *shot_at && sampled;
    build_ui();
    const Time built = now();
    render_frame();
    const Time rendered = now();
    if (shoot_now) {
      screenshot_taken_ = write_screenshot(options_.screenshot);
      if (!screenshot_taken_) exit_code_ = kExitCannotStart;
      exit_reason_ = "screenshot";
      SDL_RenderPresent(renderer_);
      break;
    }
    SDL_RenderPresent(renderer_);
    ++frames_;
    if (t - started_ >= kFrameTimeWarmUp) {
      const Time done = now();
      frame_ms_.push_back((done - t).seconds_f() * 1e3);
      part_ms_[0].push_back((updated - t).seconds_f() * 1e3);
      part_ms_[1].push_back((built - updated).seconds_f() * 1e3);
      part_ms_[2].push_back((rendered - built).seconds_f() * 1e3);
      part_ms_[3].push_back((done - rendered).seconds_f() * 1e3);
    }
    next_frame = std::max(next_frame + frame, now());
    wait_for_next_frame(next_frame);
  }
  finish_stats(exit_reason_);
  client_->disconnect(now());
  return exit_code_;
}

void App::handle_sdl_events() {
  SDL_Event e;
  while (SDL_PollEvent(&e)) {
    ImGui_ImplSDL2_ProcessEvent(&e);
    if (e.type == SDL_QUIT || (e.type == SDL_WINDOWEVENT && e.window.event == SDL_WINDOWEVENT_CLOSE &&
                               e.window.windowID == SDL_GetWindowID(window_))) {
      quit_ = true;
      exit_reason_ = "window closed";
    }
    if (e.type == SDL_KEYDOWN && e.key.repeat == 0 && !ImGui::GetIO().WantCaptureKeyboard) on_key(e.key.keysym.sym);
  }
}

void App::on_key(SDL_Keycode key) {
  client::DrawOptions d = client_->draw_options();
  switch (key) {
    case SDLK_ESCAPE:
      quit_ = true;
      exit_reason_ = "window closed";
      return;
    case SDLK_g: show_graph_ = !show_graph_; return;
    case SDLK_l: show_link_ = !show_link_; return;
    case SDLK_h: toggles_.server_ghost = !toggles_.server_ghost; return;
    case SDLK_n: toggles_.snapshot_markers = !toggles_.snapshot_markers; return;
    case SDLK_t: toggles_.labels = !toggles_.labels; return;
    case SDLK_p: d.prediction = !d.prediction; break;
    case SDLK_i: d.interpolation = !d.interpolation; break;
    case SDLK_m: d.smoothing = !d.smoothing; break;
    default: return;
  }
  client_->set_draw_options(d);
}

void App::read_controls() {
  controls_ = Controls{};
  if (script_) return;  // a script plays: the keyboard and mouse only steer the viewer
  const ImGuiIO& io = ImGui::GetIO();
  if (!io.WantCaptureKeyboard) {
    int count = 0;
    const Uint8* keys = SDL_GetKeyboardState(&count);
    float x = 0.0F;
    float y = 0.0F;
    if (keys[SDL_SCANCODE_A] || keys[SDL_SCANCODE_LEFT]) x -= 1.0F;
    if (keys[SDL_SCANCODE_D] || keys[SDL_SCANCODE_RIGHT]) x += 1.0F;
    if (keys[SDL_SCANCODE_W] || keys[SDL_SCANCODE_UP]) y += 1.0F;
    if (keys[SDL_SCANCODE_S] || keys[SDL_SCANCODE_DOWN]) y -= 1.0F;
    // Diagonals at full speed, each axis still within [-1, 1].
    const float len = std::sqrt(x * x + y * y);
    controls_.move = len > 0.0F ? snapshot::Vec2{x / len, y / len} : snapshot::Vec2{};
    controls_.space = keys[SDL_SCANCODE_SPACE] != 0;
    controls_.shift = keys[SDL_SCANCODE_LSHIFT] != 0 || keys[SDL_SCANCODE_RSHIFT] != 0;
    for (int code = 0; code < count; ++code) {
      if (keys[code] == 0) continue;
      const char* name = SDL_GetKeyName(SDL_GetKeyFromScancode(static_cast<SDL_Scancode>(code)));
      if (name != nullptr && name[0] != '\0') controls_.keys.emplace_back(name);
    }
  }
  int mx = 0;
  int my = 0;
  const Uint32 buttons = SDL_GetMouseState(&mx, &my);
  controls_.mouse = {viewport_.to_world_x(static_cast<float>(mx)), viewport_.to_world_y(static_cast<float>(my))};
  const Bounds& b = viewport_.world;
  controls_.mouse_in_view = controls_.mouse.x >= b.min.x && controls_.mouse.x <= b.max.x &&
                            controls_.mouse.y >= b.min.y && controls_.mouse.y <= b.max.y;
  if (!io.WantCaptureMouse) {
    controls_.left = (buttons & SDL_BUTTON_LMASK) != 0;
    controls_.right = (buttons & SDL_BUTTON_RMASK) != 0;
    controls_.middle = (buttons & SDL_BUTTON_MMASK) != 0;
  }
}

void App::sample(Tick tick, snapshot::Record& record) {
  // No input function: the neutral input the record starts with.
  if (script_) {
    script_(controls_, tick, record);
  } else if (spec_.input) {
    spec_.input(controls_, tick, record);
  }
}

FrameContext App::frame_context() const {
  FrameContext f;
  f.view = &client_->view();
  f.newest = &client_->authoritative_world();
  f.avatar = client_->avatar();
  f.client_id = client_->client_id();
  f.layout = &layout_;
  f.now = now();
  return f;
}

void App::handle_client_events() {
  self_.reset();
  if (const auto me = client_->avatar()) self_ = layout_.position(client_->view(), *me);
  while (auto e = client_->poll_event()) {
    using Type = client::ClientEvent::Type;
    if (e->type == Type::kConnected) {
      ever_connected_ = true;
      std::cerr << program_ << ": connected to " << options_.connect << " as client " << *client_->client_id() << "\n";
    } else if (e->type == Type::kDenied || e->type == Type::kDisconnected) {
      const bool denied = e->type == Type::kDenied;
      message_ = std::string(denied ? "The server refused this client: " : "The server went away: ") +
                 transport::to_string(e->reason);
      std::cerr << program_ << ": " << message_ << "\n";
      exit_code_ = kExitServerGone;
      exit_reason_ = denied ? "denied" : "server gone";
      leave_at_ = now() + kMessageTime;
    }
  }
}

GraphReading App::reading() const {
  GraphReading r;
  r.now = now();
  r.stats = &client_->stats();
  if (const auto* p = client_->prediction()) r.replayed_ticks = p->stats().replayed_ticks;
  r.wire = conditioner_->wire_stats();
  if (client_->tick_rate() > 0) r.predicted_seconds = client_->predicted_time().seconds();
  if (const auto* ts = client_->time_system()) {
    if (const auto* provider = dynamic_cast<const timesync::ClientTimeProvider*>(&ts->provider())) {
      r.target_lead = provider->target_lead();
    }
  }
  return r;
}

void App::build_ui() {
  ImGui_ImplSDL2_NewFrame();
  ImGui::NewFrame();
  int w = 0;
  int h = 0;
  SDL_GetRendererOutputSize(renderer_, &w, &h);
  // The world fills the room left of the panels.
  viewport_ = Viewport::fit(layout_.bounds(), 10.0F, 10.0F, static_cast<float>(w) - kPanelWidth - 20.0F,
                            static_cast<float>(h) - 20.0F);
  ImGuiCanvas canvas(ImGui::GetBackgroundDrawList(), viewport_);
  scene_.draw(canvas, *client_, toggles_, now());
  if (spec_.overlay) spec_.overlay(canvas, frame_context());
  const float panel_x = static_cast<float>(w) - kPanelWidth - 5.0F;
  if (show_controls_) {
    ImGui::SetNextWindowPos({panel_x, 5.0F}, ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize({kPanelWidth, 235.0F}, ImGuiCond_FirstUseEver);
    draw_controls();
  }
  if (show_graph_) {
    ImGui::SetNextWindowPos({panel_x, 245.0F}, ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize({kPanelWidth, static_cast<float>(h) - 250.0F}, ImGuiCond_FirstUseEver);
    graph_.draw_overlay(&show_graph_);
  }
  if (show_link_) {
    ImGui::SetNextWindowPos({viewport_.left + 20.0F, 30.0F}, ImGuiCond_FirstUseEver);
    if (draw_link_panel(link_up_, link_down_, link_preset_, conditioner_->uplink_stats(),
                        conditioner_->downlink_stats(), &show_link_)) {
      if (auto ok = conditioner_->set_conditions(link_up_, link_down_); !ok) {
        std::cerr << program_ << ": link conditioner: " << ok.error().detail << "\n";
      }
    }
  }
  draw_message();
  ImGui::Render();
}

void App::render_frame() {
  SDL_SetRenderDrawColor(renderer_, 14, 16, 20, 255);
  SDL_RenderClear(renderer_);
  draw_floor(renderer_, viewport_);
  renderer_backend_draw(ImGui::GetDrawData());
}

bool App::write_screenshot(const std::string& path) {
  int w = 0;
  int h = 0;
  SDL_GetRendererOutputSize(renderer_, &w, &h);
  std::vector<unsigned char> pixels(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 4U);
  if (SDL_RenderReadPixels(renderer_, nullptr, SDL_PIXELFORMAT_ABGR8888, pixels.data(), w * 4) != 0) {
    std::cerr << program_ << ": cannot read the frame back: " << SDL_GetError() << "\n";
    return false;
  }
  if (stbi_write_png(path.c_str(), w, h, 4, pixels.data(), w * 4) == 0) {
    std::cerr << program_ << ": cannot write " << path << "\n";
    return false;
  }
  std::cerr << program_ << ": wrote " << path << " (" << w << "x" << h << ")\n";
  return true;
}

void App::wait_for_next_frame(Time next) {
  const bool conditioned = link_preset_ != "off";
  std::vector<std::size_t> ready;
  for (Time t = now(); t < next; t = now()) {
    Duration wait = next - t;
    if (conditioned) wait = std::min(wait, kLinkServiceInterval);
    transport::EnetTransport::wait_for_any({&enet_, 1}, wait, ready);
    client_->receive(now());
  }
}

}  // namespace tickwire::viewer
