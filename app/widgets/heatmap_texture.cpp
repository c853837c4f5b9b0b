#include "widgets/heatmap_texture.h"

#include <glad/gl.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace attnlab::app {
namespace {

std::uint64_t HashMix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}

std::uint64_t TextureKey(const HeatmapSpec& spec, const TexelGrid& texels, const ColorScale& scale) {
  std::uint64_t lo_bits, hi_bits;
  std::memcpy(&lo_bits, &scale.lo, sizeof lo_bits);
  std::memcpy(&hi_bits, &scale.hi, sizeof hi_bits);
  std::uint64_t h = HashMix(0, spec.data_version);
  h = HashMix(h, reinterpret_cast<std::uintptr_t>(spec.values));
  h = HashMix(h, reinterpret_cast<std::uintptr_t>(spec.allowed));
  h = HashMix(h, static_cast<std::uint64_t>(scale.map));
  h = HashMix(h, lo_bits);
  h = HashMix(h, hi_bits);
  h = HashMix(h, static_cast<std::uint64_t>(spec.values->rows()));
  h = HashMix(h, static_cast<std::uint64_t>(spec.values->cols()));
  h = HashMix(h, static_cast<std::uint64_t>(texels.rows_px));
  return HashMix(h, static_cast<std::uint64_t>(texels.cols_px));
}

void UploadTexture(HeatmapTexture& tex, const std::vector<std::uint8_t>& rgba, int width,
                   int height) {
  if (tex.id == 0) glGenTextures(1, &tex.id);
  glBindTexture(GL_TEXTURE_2D, tex.id);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);  // crisp cells when zoomed
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               rgba.data());
  glBindTexture(GL_TEXTURE_2D, 0);
}

}  // namespace

bool DrawHeatmapTexture(HeatmapContext& ctx, HeatmapTexture& tex, ImDrawList* dl, ImVec2 grid,
                        ImVec2 end, const HeatmapSpec& spec, const TexelGrid& texels,
                        const ColorScale& scale, bool pending) {
  // Scrolled out of view: nothing built until it is seen again.
  if (!ImGui::IsRectVisible(grid, end)) return true;
  const std::uint64_t key = TextureKey(spec, texels, scale);
  if (tex.key != key && !pending && ctx.work.Take(spec.values->size())) {
    UploadTexture(tex, BuildTexels({spec.values, spec.allowed}, texels, scale), texels.cols_px,
                  texels.rows_px);
    tex.key = key;
    ++ctx.uploads;
  }
  if (tex.id != 0)
    dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(tex.id)), grid, end);
  return tex.key == key;
}

void HeatmapContext::EndFrame() {
  for (auto it = textures.begin(); it != textures.end();) {
    if (it->second.last_frame != frame) {
      if (it->second.id != 0) glDeleteTextures(1, &it->second.id);
      it = textures.erase(it);
    } else {
      ++it;
    }
  }
  scans.EndFrame();
}

void HeatmapContext::Release() {
  for (auto& [id, tex] : textures)
    if (tex.id != 0) glDeleteTextures(1, &tex.id);
  textures.clear();
}

}  // namespace attnlab::app
