#pragma once
// Draws Dear ImGui's draw lists with SDL_Renderer (SDL_RenderGeometryRaw),
// which works on every SDL render driver, the software one under a virtual
// display included. Debian's libimgui ships this backend's header but not
// its code, so the viewer carries its own.

struct SDL_Renderer;
struct ImDrawData;

namespace tickwire::viewer {

// Uploads the font atlas; call once after ImGui::CreateContext and the
// fonts are set up. False when the texture cannot be made.
bool renderer_backend_init(SDL_Renderer* renderer);
void renderer_backend_shutdown();
void renderer_backend_draw(ImDrawData* data);

}  // namespace tickwire::viewer
