#include "args.h"

#include <algorithm>
#include <sstream>

namespace attnlab::cli {

std::string ParsedArgs::option(const std::string& name, const std::string& fallback) const {
  std::string value = fallback;
  for (const auto& [key, v] : options)
    if (key == name) value = v;
  return value;
}

bool ParsedArgs::has(const std::string& name) const {
  return std::any_of(options.begin(), options.end(), [&](const auto& o) { return o.first == name; });
}

ParsedArgs parse_args(const Args& args, const std::vector<std::string>& known_options, bool file_required) {
  ParsedArgs p;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) {
      if (!p.file.empty()) throw UsageError("unexpected argument '" + a + "'");
      p.file = a;
      continue;
    }
    std::string name = a.substr(2), value;
    const auto eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else {
      if (i + 1 >= args.size()) throw UsageError("option --" + name + " needs a value");
      value = args[++i];
    }
    if (std::find(known_options.begin(), known_options.end(), name) == known_options.end())
      throw UsageError("unknown option --" + name);
    p.options.emplace_back(name, value);
  }
  if (file_required && p.file.empty()) throw UsageError("missing FILE");
  return p;
}

int int_option(const ParsedArgs& p, const std::string& name, int fallback, int lo, int hi) {
  const std::string text = p.option(name, std::to_string(fallback));
  try {
    std::size_t used = 0;
    const int value = std::stoi(text, &used);
    if (used == text.size() && value >= lo && value <= hi) return value;
  } catch (const std::exception&) {
  }
  throw UsageError("--" + name + " expects a whole number from " + std::to_string(lo) + " to " +
                   std::to_string(hi) + ", got '" + text + "'");
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

}  // namespace attnlab::cli
