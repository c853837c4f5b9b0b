#pragma once
// The hostile cases too big or too odd to commit (cases.json "generate"), written at test time by
// tests/test_hostile.cpp (the CLI) and tests/gui/gui_open_check.cpp (the window's open), and the
// memory cap both run them under.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#if defined(__SANITIZE_ADDRESS__)
#define ATTNLAB_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ATTNLAB_TEST_ASAN 1
#endif
#endif

namespace attnlab::hostile {

/// Caps the memory of this process (call it in the child that runs a hostile case): an address
/// space of `bytes`, or under ASan, which reserves terabytes of address space, single allocations
/// of at most 2 GiB instead.
inline void cap_memory(rlim_t bytes) {
#ifdef ATTNLAB_TEST_ASAN
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string options = std::string(asan ? asan : "") + ":max_allocation_size_mb=2048:allocator_may_return_null=0";
  ::setenv("ASAN_OPTIONS", options.c_str(), 1);
  (void)bytes;
#else
  const rlimit cap{bytes, bytes};
  ::setrlimit(RLIMIT_AS, &cap);
#endif
}

inline std::string column(int n) {  // n tokens of width 1: [[0],[0],...]
  std::string s = "[";
  for (int i = 0; i < n; ++i) s += i ? ",[0]" : "[0]";
  return s + "]";
}

inline std::string row(int n) {  // one row of n zeros: [[0,0,...]]
  std::string s = "[[";
  for (int i = 0; i < n; ++i) s += i ? ",0" : "0";
  return s + "]]";
}

/// Writes the case `name` into `dir` and returns its path; false in `*known` for an unknown name.
inline std::filesystem::path generate(const std::filesystem::path& dir, const std::string& name,
                                      bool* known) {
  const std::filesystem::path path = dir / name;
  auto write = [&](const std::string& text) { std::ofstream(path, std::ios::binary) << text; };
  *known = true;
  if (name == "tokens_8193.json") write("{\"X\": " + column(8193) + "}");
  else if (name == "context_8193.json") write("{\"X\": [[0]], \"Z\": " + column(8193) + "}");
  else if (name == "width_4097.json") write("{\"X\": " + row(4097) + "}");
  else if (name == "wq_width_4097.json") write("{\"X\": [[0]], \"W_q\": " + row(4097) + ", \"W_k\": " + row(4097) + "}");
  else if (name == "wo_width_4097.json") write("{\"X\": [[0]], \"W_o\": " + row(4097) + "}");
  else if (name == "trace_too_big.json") {  // 4096 tokens of width 8 in 8 heads: 8 x 4 x 4096^2 values
    std::string tokens;
    for (int i = 0; i < 4096; ++i) tokens += std::string(i ? "," : "") + "[0,0,0,0,0,0,0,0]";
    write("{\"X\": [" + tokens + "], \"num_heads\": 8}");
  } else if (name == "too_many_values.json") {  // 4100 x 4096 zeros: 33 MB, under the size limit
    std::ofstream out(path, std::ios::binary);
    const std::string r = row(4096).substr(1, row(4096).size() - 2);
    out << "{\"X\": [";
    for (int i = 0; i < 4100; ++i) out << (i ? "," : "") << r;
    out << "]}";
  } else if (name == "file_257mib.json") {  // sparse: 257 MiB on paper, no disk used
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    *known = fd >= 0 && ::ftruncate(fd, off_t{257} << 20) == 0;
    if (fd >= 0) ::close(fd);
  } else if (name == "unterminated_string_1mib.json") {  // the parser reads 1 MiB of one token
    write("{\"X\": [[1]], \"title\": \"" + std::string(std::size_t{1} << 20, 'a'));
  } else if (name == "invalid_utf8_after_200kb.json") {
    write("{\"X\": [[1]], \"title\": \"" + std::string(200 << 10, 'a') + "\xE9\"}");
  } else if (name == "bad_escape_after_100kb.json") {
    write("{\"X\": [[1]], \"title\": \"" + std::string(100 << 10, 'a') + "\\q\"}");
  } else if (name == "long_keys_deep_duplicate.json") {  // a field path of 28 keys of 40 letters
    std::string open, close;
    for (int depth = 0; depth < 28; ++depth) {
      const std::string key(40, static_cast<char>('a' + depth % 26));
      open += "{\"" + key + "\": ";
      close += "}";
    }
    write("{\"X\": [[1]], \"view\": " + open + "{\"k\": 1, \"k\": 2}" + close + "}");
  } else if (name == "unknown_key_1mib.json") {
    write("{\"X\": [[1]], \"" + std::string(std::size_t{1} << 20, 'k') + "\": 1}");
  } else if (name == "directory.json") {
    std::filesystem::create_directory(path);
  } else if (name != "missing.json") {
    *known = false;
  }
  return path;
}

}  // namespace attnlab::hostile
