#include "sdl_renderer_backend.h"

#include <SDL.h>
#include <imgui.h>

#include <cstddef>

namespace tickwire::viewer {
namespace {

struct Backend {
  SDL_Renderer* renderer = nullptr;
  SDL_Texture* font = nullptr;
};
Backend g_backend;  // one ImGui context per process, as ImGui itself keeps

template <class T>
const T* member_at(const ImDrawVert* vertices, std::size_t offset) {
  return reinterpret_cast<const T*>(reinterpret_cast<const char*>(vertices) + offset);
}

}  // namespace

bool renderer_backend_init(SDL_Renderer* renderer) {
  ImGuiIO& io = ImGui::GetIO();
  io.BackendRendererName = "tickwire_sdl_renderer";
  // Large draw lists (the net graph's plots) exceed 16-bit indices.
  io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
  unsigned char* pixels = nullptr;
  int width = 0;
  int height = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
  SDL_Texture* font = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ABGR8888, SDL_TEXTUREACCESS_STATIC, width, height);
  if (font == nullptr) return false;
  SDL_UpdateTexture(font, nullptr, pixels, 4 * width);
  SDL_SetTextureBlendMode(font, SDL_BLENDMODE_BLEND);
  SDL_SetTextureScaleMode(font, SDL_ScaleModeLinear);
  io.Fonts->SetTexID(static_cast<ImTextureID>(font));
  g_backend = {renderer, font};
  return true;
}

void renderer_backend_shutdown() {
  if (g_backend.font != nullptr) SDL_DestroyTexture(g_backend.font);
  g_backend = {};
  ImGui::GetIO().Fonts->SetTexID(nullptr);
}

void renderer_backend_draw(ImDrawData* data) {
  SDL_Renderer* r = g_backend.renderer;
  if (r == nullptr || data == nullptr) return;
  const ImVec2 origin = data->DisplayPos;
  for (int n = 0; n < data->CmdListsCount; ++n) {
    const ImDrawList* list = data->CmdLists[n];
    const ImDrawVert* vertices = list->VtxBuffer.Data;
    const ImDrawIdx* indices = list->IdxBuffer.Data;
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
      if (cmd.UserCallback != nullptr) {
        if (cmd.UserCallback != ImDrawCallback_ResetRenderState) cmd.UserCallback(list, &cmd);
        continue;
      }
      const float x0 = cmd.ClipRect.x - origin.x;
      const float y0 = cmd.ClipRect.y - origin.y;
      const float x1 = cmd.ClipRect.z - origin.x;
      const float y1 = cmd.ClipRect.w - origin.y;
      if (x1 <= x0 || y1 <= y0) continue;
      const SDL_Rect clip{static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(x1 - x0),
                          static_cast<int>(y1 - y0)};
      SDL_RenderSetClipRect(r, &clip);
      const ImDrawVert* first = vertices + cmd.VtxOffset;
      const int stride = static_cast<int>(sizeof(ImDrawVert));
      // ImGui's packed colour is R, G, B, A in memory, as SDL_Color is.
      SDL_RenderGeometryRaw(r, static_cast<SDL_Texture*>(cmd.GetTexID()),
                            member_at<float>(first, offsetof(ImDrawVert, pos)), stride,
                            member_at<SDL_Color>(first, offsetof(ImDrawVert, col)), stride,
                            member_at<float>(first, offsetof(ImDrawVert, uv)), stride,
                            list->VtxBuffer.Size - static_cast<int>(cmd.VtxOffset), indices + cmd.IdxOffset,
                            static_cast<int>(cmd.ElemCount), static_cast<int>(sizeof(ImDrawIdx)));
    }
  }
  SDL_RenderSetClipRect(r, nullptr);
}

}  // namespace tickwire::viewer
