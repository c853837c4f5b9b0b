// attnlab-cli bench --shape NxExH: times the whole trace of a seeded random self-attention.
//
// FLOPs counted (multiply and add = 2), d_k = d_v = E / H, so H d_k = E:
//   Q, K, V projections  3 x 2 N E^2      (X W_q, X W_k, X W_v over all heads)
//   scores               2 N^2 E          (H heads x 2 N^2 d_k: Q K^T)
//   weighted sum         2 N^2 E          (H heads x 2 N^2 d_v: A V)
//   output projection    2 N E^2          (concat W_o)
//   total                8 N E^2 + 4 N^2 E
// Scaling, masking and softmax (O(H N^2) each, exp included) are real work but not counted, as
// NumPy and PyTorch benchmarks customarily count only the matrix products.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <iostream>
#include <utility>
#include <vector>

#include "args.h"
#include "attnlab/attention.h"
#include "attnlab/edits.h"
#include "attnlab/limits.h"
#include "attnlab/model.h"
#include "attnlab/random.h"
#include "commands.h"

namespace attnlab::cli {

namespace {

struct Shape {
  int n = 0, e = 0, h = 0;
};

Shape parse_shape(const std::string& text) {
  Shape s;
  char x1 = 0, x2 = 0, rest = 0;
  const int read = std::sscanf(text.c_str(), "%d%c%d%c%d%c", &s.n, &x1, &s.e, &x2, &s.h, &rest);
  if (read != 5 || x1 != 'x' || x2 != 'x' || s.n < 1 || s.e < 1 || s.h < 1)
    throw UsageError("--shape expects NxExH (tokens x d_model x heads), e.g. 256x256x8, got " + quote_arg(text));
  if (s.e % s.h != 0)
    throw UsageError("--shape " + text + ": " + std::to_string(s.h) + " heads do not divide d_model " +
                     std::to_string(s.e));
  // Before the random matrices are made: a shape beyond the limits is refused, not allocated.
  if (s.n > limits::max_tokens || s.e > limits::max_width || s.h > limits::max_heads)
    throw UsageError("--shape " + text + ": expected at most " + std::to_string(limits::max_tokens) + " tokens, d_model " +
                     std::to_string(limits::max_width) + " and " + std::to_string(limits::max_heads) + " heads");
  return s;
}

/// Self-attention, no mask, no biases, with W_o; X ~ N(0, 1), weights Xavier-uniform.
Scenario bench_scenario(const Shape& shape, std::uint64_t seed) {
  RandomSpec normal;
  normal.seed = seed;
  RandomSpec xavier = normal;
  xavier.kind = RandomSpec::Kind::xavier;
  Scenario s;
  s.title = "bench";
  s.X = random_matrix(shape.n, shape.e, normal, 100);
  s.num_heads = shape.h;
  s.full.W_q = random_matrix(shape.e, shape.e, xavier, 1);
  s.full.W_k = random_matrix(shape.e, shape.e, xavier, 2);
  s.full.W_v = random_matrix(shape.e, shape.e, xavier, 3);
  s.W_o = random_matrix(shape.e, shape.e, xavier, 7);
  return s;
}

/// The scenario after the `k`-th edit of kind `edit` (x, scale, wq, wo): one number changed, to a
/// value no earlier edit gave it. "none" leaves it as it is.
Scenario edited(const Scenario& base, const std::string& edit, int k, const Shape& shape) {
  Scenario s = base;
  const double step = 1e-3 * k;
  if (edit == "x") s.X(0, 0) += step;
  if (edit == "scale") s.scale = {Scale::Kind::value, (1 + step) / std::sqrt(double(shape.e / shape.h))};
  if (edit == "wq") (*s.full.W_q)(0, shape.h > 1 ? shape.e / shape.h : 0) += step;  // head 2 (or 1)
  if (edit == "wo") (*s.W_o)(0, 0) += step;
  return s;
}

/// The process's peak resident memory (VmHWM). Not getrusage's ru_maxrss, which on Linux keeps the
/// peak of the parent process the shell or script forked us from.
double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

/// --with rope,alibi,window,sinusoidal,gqa: the positional features a model of today turns on
/// (RoPE half style, the ALiBi paper's slopes, a causal window of N/4, the 2017 encoding, two
/// key/value heads).
void with_features(Scenario& s, const std::string& list) {
  for (const std::string& f : split_list(list)) {
    if (f == "rope") s.rope = Rope{};
    else if (f == "alibi") s.alibi = Alibi{};
    else if (f == "window") s.mask.causal = true, s.mask.window = std::max(1, s.n_x() / 4);
    else if (f == "sinusoidal") s.positional_encoding = PositionalEncoding::sinusoidal;
    else if (f == "gqa") set_kv_head_count(s, s.num_heads % 2 == 0 ? 2 : 1);
    else throw UsageError("--with expects a list of rope, alibi, window, sinusoidal, gqa, got " + quote_arg(f));
  }
}

struct BenchOptions {
  std::string shape, repeats = "5", seed = "0", layout = "rows", edit = "none", with;
  bool json = false;
  const CLI::Option* shape_given = nullptr;
};

int run_bench(const BenchOptions& p) {
  if (p.shape_given->count() == 0) throw UsageError("bench needs --shape NxExH");
  const Shape shape = parse_shape(p.shape);
  const int repeats = whole_number("--repeats", p.repeats, 1, 100000);
  const int seed = whole_number("--seed", p.seed, 0, 1 << 30);
  const bool json = p.json;
  const std::string& layout = p.layout;
  if (layout != "rows" && layout != "columns")
    throw UsageError("--layout expects rows or columns, got " + quote_arg(layout));
  const std::string& edit = p.edit;
  if (edit != "none" && edit != "x" && edit != "scale" && edit != "wq" && edit != "wo")
    throw UsageError("--edit expects none, x, scale, wq or wo, got " + quote_arg(edit));

  Scenario built = bench_scenario(shape, static_cast<std::uint64_t>(seed));
  with_features(built, p.with);
  if (layout == "columns") built = with_layout(built, Layout::columns);
  std::shared_ptr<const Scenario> scenario = std::make_shared<const Scenario>(std::move(built));
  // Each repeat is what the window does after an edit of X: resolve the committed scenario
  // (checks, per-head split; the Model shares its matrices as in the window) and recompute every
  // stage into the trace it already holds (Recompute::all: the window keeps the stages an edit
  // leaves unchanged, and the same scenario again would change none). The first repeat also
  // allocates the trace (and the kernel zeroes its pages): reported as first_seconds. The part
  // spent in resolve() is reported on its own (resolve_seconds: best, median).
  // --edit x|scale|wq|wo: each repeat is instead a new version with one more edit of that kind
  // (made before the clock starts), recomputed as the window does (Recompute::changed: only the
  // stages downstream of the edit).
  const Recompute what = edit == "none" ? Recompute::all : Recompute::changed;
  std::vector<double> seconds, resolving;
  double first = 0;
  Trace::Recomputed recomputed;  // by the last repeat
  try {
    Trace trace;
    using Clock = std::chrono::steady_clock;
    const auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
    for (int r = 0; r <= repeats; ++r) {
      if (edit != "none" && r > 0)
        scenario = std::make_shared<const Scenario>(edited(*scenario, edit, r, shape));
      const auto start = Clock::now();
      double resolved = 0;
      {  // the model is freed inside the timed part, as after an edit
        const Model model = resolve(scenario);
        resolved = since(start);
        compute_into(model, scenario->layout, trace, nullptr, what);
        recomputed = trace.recomputed;
      }
      const double elapsed = since(start);
      if (r == 0) {
        first = elapsed;
      } else {
        seconds.push_back(elapsed);
        resolving.push_back(resolved);
      }
    }
  } catch (const ScenarioError& e) {
    return report_invalid("--shape " + p.shape, e);
  }
  for (auto* v : {&seconds, &resolving}) std::sort(v->begin(), v->end());
  const double best = seconds.front(), median = seconds[seconds.size() / 2];
  const double resolve_best = resolving.front(), resolve_median = resolving[resolving.size() / 2];
  const double n = shape.n, e = shape.e;
  const double flops = 8.0 * n * e * e + 4.0 * n * n * e;  // of the whole trace
  // After an edit only part of it is recomputed: no rate for that.
  char rate[32] = "null";
  if (edit == "none") std::snprintf(rate, sizeof rate, "%.4g", flops / best / 1e9);
  std::string parts;
  for (const auto& [done, name] : {std::pair{recomputed.projections, "projections"},
                                   std::pair{recomputed.attention, "attention"}, std::pair{recomputed.output, "output"}})
    if (done) parts += (parts.empty() ? "" : ",") + std::string(name);
  const double rss = peak_rss_mb();
  const ComputeBackend backend = compute_backend();
  if (json) {
    std::printf(
        "{\"seconds\": %.6g, \"gflops\": %s, \"peak_rss_mb\": %.1f, \"median_seconds\": %.6g, "
        "\"first_seconds\": %.6g, \"repeats\": %d, \"shape\": \"%dx%dx%d\", \"layout\": \"%s\", \"flops\": %.6g, "
        "\"products\": \"%s\", \"threads\": %d, \"kernels\": \"%s\", \"resolve_seconds\": %.6g, \"resolve_median_seconds\": %.6g, "
        "\"edit\": \"%s\", \"recomputed\": \"%s\"}\n",
        best, rate, rss, median, first, repeats, shape.n, shape.e, shape.h, layout.c_str(), flops,
        backend.products, backend.threads, backend.kernels, resolve_best, resolve_median, edit.c_str(), parts.c_str());
  } else {
    std::printf("shape %dx%dx%d (N x E x H), %s layout, edit %s, best of %d: %.4f ms (median %.4f ms), %s GFLOP/s, "
                "first (allocating) %.4f ms, peak RSS %.1f MB; %s products, %s kernels, %d threads; of which resolve() best %.4f ms\n",
                shape.n, shape.e, shape.h, layout.c_str(), edit.c_str(), repeats, best * 1e3, median * 1e3,
                edit == "none" ? rate : "-", first * 1e3, rss, backend.products, backend.kernels, backend.threads, resolve_best * 1e3);
  }
  return 0;
}

}  // namespace

Run add_bench(CLI::App& program) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* c = program.add_subcommand(
      "bench", "time the whole trace of a seeded random self-attention, or its recompute after edits of one\n"
               "kind (docs/PERFORMANCE.md)");
  o->shape_given = c->add_option("--shape", o->shape, "tokens x d_model x heads, e.g. 256x256x8")
                       ->type_name("NxExH")
                       ->group(kRequired);
  c->add_option("--repeats", o->repeats, "timed repeats (the best and the median are reported)")->type_name("R");
  c->add_flag("--json", o->json, "one JSON object instead of a line of text");
  c->add_option("--layout", o->layout, "tokens as rows or as columns")->type_name("rows|columns");
  c->add_option("--edit", o->edit, "before each repeat, edit one number of this kind (X[0][0], the\n"
                                   "scale, W_q, W_o) and recompute only what it changes")
      ->type_name("none|x|scale|wq|wo");
  c->add_option("--seed", o->seed, "the random matrices' seed")->type_name("S");
  c->add_option("--with", o->with, "turn on positional features, comma-separated: rope, alibi,\nwindow, sinusoidal, gqa")
      ->type_name("LIST");
  return [o] { return run_bench(*o); };
}

}  // namespace attnlab::cli
