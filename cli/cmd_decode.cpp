// attnlab-cli decode FILE --prefill P: the KV cache token by token (prefill P tokens, then decode
// one at a time), each step's cache, weights and output row, as JSON or text.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>

#include "args.h"
#include "attnlab/decode.h"
#include "attnlab/limits.h"
#include "attnlab/number_format.h"
#include "attnlab/numbering.h"
#include "attnlab/scenario_io.h"
#include "commands.h"

namespace attnlab::cli {
namespace {

struct DecodeOptions {
  std::string file, format = "json", prefill, precision = "4";
  const CLI::Option* prefill_given = nullptr;
};

std::string numbers(const Vector& v, int precision) {
  std::string out;
  for (Eigen::Index i = 0; i < v.size(); ++i) out += (i ? " " : "") + format_fixed(v(i), precision);
  return out;
}

/// "[0s 1s 3 4 5 6]": the cache's tokens, sinks marked with an s.
std::string cache_text(const std::vector<int>& cache, const MaskSpec& mask) {
  std::string out;
  for (std::size_t i = 0; i < cache.size(); ++i)
    out += (i ? " " : "") + std::to_string(cache[i]) + (mask.sink(cache[i]) ? "s" : "");
  return "[" + out + "]";
}

/// "; evicted 2": the tokens held before this step (`before`) that it no longer holds.
std::string evicted_text(const std::vector<int>& before, const std::vector<int>& after) {
  std::string out;
  for (int j : before)
    if (!std::binary_search(after.begin(), after.end(), j)) out += (out.empty() ? "" : " ") + std::to_string(j);
  return out.empty() ? "" : "; evicted " + out;
}

void print_text(const Decode& d, const Scenario& s, const Model& m, int precision) {
  if (s.mask.sinks > 0)
    std::cout << "s: an attention sink, kept whatever the window (the first " << s.mask.sinks << " tokens)\n";
  std::cout << "prefill " << d.prefill << " token" << (d.prefill == 1 ? "" : "s") << ": cache "
            << cache_text(d.prefill_cache, s.mask) << "\n";
  const std::vector<int>* before = &d.prefill_cache;
  for (const DecodeStep& step : d.steps) {
    std::cout << "token " << step.token << ": cache " << cache_text(step.cache, s.mask)
              << evicted_text(*before, step.cache) << "\n";
    for (std::size_t h = 0; h < step.weights.size(); ++h)
      std::cout << "  " << head_label(int(h)) << " weights: " << numbers(step.weights[h], precision)
                << "\n";
    std::cout << "  output: " << numbers(step.output, precision) << "\n";
    before = &step.cache;
  }
  std::cout << "KV cache per layer: " << cache_bytes_sentence(d.bytes, m.d_k, m.d_v) << "\n"
            << cache_bytes_text(d.bytes, s.n_x());
}

int run_decode(const DecodeOptions& p) {
  if (p.format != "json" && p.format != "text") throw UsageError("--format expects json or text, got " + quote_arg(p.format));
  if (p.prefill_given->count() == 0) throw UsageError("decode needs --prefill P, the tokens computed at once (0 to n - 1)");
  const int precision = whole_number("--precision", p.precision, 0, 17);
  (void)whole_number("--prefill", p.prefill, 0, limits::max_tokens - 1);  // not a number: before the file
  Scenario scenario;
  Model model;
  try {
    scenario = load_scenario(p.file);
    check_decodable(scenario);
    model = resolve(scenario);
  } catch (const ScenarioError& e) {
    return report_invalid(p.file, e);
  }
  const int n = scenario.n_x();
  const int prefill = whole_number("--prefill", p.prefill, 0, n - 1);
  const Decode d = decode(scenario, model, prefill);
  if (p.format == "text") {
    if (!scenario.title.empty()) std::cout << scenario.title << "\n";
    print_text(d, scenario, model, precision);
  } else {
    std::cout << decode_to_json(d).dump() << "\n";
  }
  return 0;
}

}  // namespace

Run add_decode(CLI::App& program) {
  auto o = std::make_shared<DecodeOptions>();
  CLI::App* c = program.add_subcommand(
      "decode", "the KV cache token by token: prefill P tokens, then decode one at a time (causal\n"
                "self-attention); each step's cache, weights and output row");
  add_file(*c, o->file);
  o->prefill_given = c->add_option("--prefill", o->prefill, "tokens computed at once before decoding, 0 to n - 1")
                         ->type_name("P")
                         ->group(kRequired);
  c->add_option("--format", o->format, "json: one object on stdout; text: one block per step")->type_name("json|text");
  c->add_option("--precision", o->precision, "digits after the point, 0 to 17 (--format text only)")->type_name("N");
  return [o] { return run_decode(*o); };
}

}  // namespace attnlab::cli
