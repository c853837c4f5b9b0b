#include "json_read.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "attnlab/message_text.h"
#include "attnlab/scenario.h"
#include "folder_files.h"

namespace attnlab::models::detail {
namespace {

using json = nlohmann::json;

constexpr std::uintmax_t kMaxFileBytes = 256u << 20;  // Llama 3's tokenizer.json is 9 MiB
constexpr int kMaxJsonDepth = 64;

void check_depth(const std::string& text, const std::string& file) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        refuse(file, "expected JSON nested at most 64 levels deep, got deeper");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

}  // namespace

const json* member(const json& node, const char* key) {
  if (!node.is_object()) return nullptr;
  const auto it = node.find(key);
  return it == node.end() || it->is_null() ? nullptr : &*it;
}

std::string describe(const json* value) {
  if (!value) return "nothing";
  if (value->is_string()) return quoted_excerpt(value->get_ref<const std::string&>());
  return prefix_excerpt(value->dump(), 40);
}

json parse_json(const std::string& text, const std::string& file, const json::parser_callback_t& callback) {
  check_depth(text, file);
  try {
    return json::parse(text, callback);
  } catch (const json::exception& e) {
    std::string what = e.what();
    const auto pos = what.find("] ");
    if (pos != std::string::npos) what.erase(0, pos + 2);
    refuse(file, "not valid JSON: " + what);
  }
}

int read_id(const json& value, const std::string& where) {
  if (!value.is_number_integer())
    refuse(where, "expected an id (an integer), got " + describe(&value));
  const auto id = value.get<long long>();
  if (id < 0 || id > kMaxId)
    refuse(where, "expected an id in 0.." + std::to_string(kMaxId) + ", got " + std::to_string(id));
  return static_cast<int>(id);
}

std::string read_file(const std::filesystem::path& path) {
  const std::string name = excerpt(path.filename().string());
  const RegularFile file(path, name, "cannot read");
  if (file.size() > kMaxFileBytes)
    refuse(name, "expected at most 256 MiB, got " + std::to_string(file.size() >> 20) + " MiB");
  std::string text(file.size(), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(file.fd(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += std::size_t(n);
  }
  if (done != text.size()) refuse(name, "cannot read: the file changed while it was read");
  return text;
}

bool read_bool(const json& node, const char* key, bool fallback, const std::string& field) {
  const json* v = member(node, key);
  if (!v) return fallback;
  if (!v->is_boolean()) refuse(field + "." + key, "expected true or false, got " + describe(v));
  return v->get<bool>();
}

}  // namespace attnlab::models::detail
