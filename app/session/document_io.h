#pragma once
/// Opening and saving large documents off the UI thread. At 2048 x 512 x 8 a scenario file is
/// 13 MB: parsing and validating it takes about 0.7 s, writing it about 0.2 s, and the window must
/// never freeze (the UI thread never blocks for more than 50 ms). Small files keep the synchronous
/// path: a teaching scenario still opens and saves within the frame. The large ones run on the
/// session's TaskRunner.
#include <cstddef>
#include <cstdint>
#include <string>

#include "attnlab/scenario.h"

namespace attnlab::app {

/// Files larger than this (1 MiB, a few hundred tokens) are read and validated off the UI thread.
constexpr std::uintmax_t kOffThreadFileBytes = std::uintmax_t{1} << 20;
/// Scenarios holding more numbers than this (about 1 MiB of JSON) are written off the UI thread.
constexpr std::size_t kOffThreadValues = std::size_t{1} << 17;

bool LoadsOffThread(const std::string& path);
bool SavesOffThread(const attnlab::Scenario& scenario);

}  // namespace attnlab::app
