// attnlab_model_bench DIR [TOKENS] [REPEATS]: times what a user waits for with a real model folder
// (bench/model_compare.py runs it beside PyTorch on the same weights; docs/PERFORMANCE.md):
//   open     config.json, the safetensors headers, the mapping and binding every tensor
//   forward  the whole forward pass on TOKENS ids, every layer's attention recorded (median)
//   rerun    an edit in the middle layer: next_after_layer from there to the end (median)
//   layer    the middle layer as a Scenario and its trace (what clicking a map costs)
//   heads    the head finder's five scores of every head on TOKENS ids (median; issue 39)
//   patch    activation patching of every head (layers x heads runs, each from the patched layer
//            on; the residual stream per position not included), the second token or the middle
//            one corrupted, once each
//   lens     the logit lens on TOKENS ids, once
// and the resident memory after all of it (VmRSS, VmHWM). One JSON object on stdout.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/attention.h"
#include "attnlab/models/head_finder.h"
#include "attnlab/models/hf_model.h"
#include "attnlab/models/logit_lens.h"
#include "attnlab/models/patching.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

/// A line of /proc/self/status ("VmRSS:  123 kB") in MiB.
double status_mib(const std::string& key) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ":", 0) == 0) return std::stod(line.substr(key.size() + 1)) / 1024.0;
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: attnlab_model_bench DIR [TOKENS] [REPEATS]\n";
    return 2;
  }
  const int tokens = argc > 2 ? std::stoi(argv[2]) : 64, repeats = argc > 3 ? std::stoi(argv[3]) : 5;
  try {
    auto start = Clock::now();
    const auto model = attnlab::models::HfModel::open(argv[1]);
    const double open = seconds_since(start);
    const attnlab::models::ModelConfig& c = model->config();
    std::vector<int> ids(static_cast<std::size_t>(tokens));
    for (int i = 0; i < tokens; ++i) ids[std::size_t(i)] = (i * 7919 + 13) % c.vocab;
    std::vector<double> forward, rerun;
    attnlab::models::ForwardRun run;
    for (int r = 0; r < repeats; ++r) {
      start = Clock::now();
      run = model->transformer().run(ids);
      forward.push_back(seconds_since(start));
    }
    const int middle = c.layers / 2;
    start = Clock::now();
    const attnlab::Trace trace = attnlab::compute(attnlab::models::layer_scenario(*model, run, middle));
    const double layer = seconds_since(start);
    for (int r = 0; r < repeats; ++r) {
      start = Clock::now();
      model->transformer().next_after_layer(run, middle, trace.output);
      rerun.push_back(seconds_since(start));
    }
    std::vector<double> heads;
    for (int r = 0; r < repeats; ++r) {
      start = Clock::now();
      attnlab::models::find_heads(model->transformer(), ids, attnlab::models::Repeat{tokens / 2, 0});
      heads.push_back(seconds_since(start));
    }
    // Patching reruns the rows from the first token that differs: the second token (nearly every
    // row, the slowest case) and the middle one (as a name swapped mid-sentence).
    const auto patch_seconds = [&](int changed) {
      attnlab::models::PatchRequest request;
      request.clean = ids;
      request.corrupted = ids;
      request.corrupted[std::size_t(changed)] = (ids[std::size_t(changed)] + 1) % c.vocab;
      request.answer = 1, request.wrong = 2, request.positions = false;
      const auto patch_start = Clock::now();
      attnlab::models::patch(model->transformer(), request);
      return seconds_since(patch_start);
    };
    const double patch = patch_seconds(1), patch_middle = patch_seconds(tokens / 2);
    start = Clock::now();
    attnlab::models::logit_lens(model->transformer(), ids, 1);
    const double lens = seconds_since(start);
    nlohmann::json out = {{"model", c.describe()},   {"dtype", model->dtype()},        {"tokens", tokens},
                          {"open_s", open},          {"forward_s", median(forward)}, {"rerun_from_layer", middle},
                          {"rerun_s", median(rerun)}, {"layer_scenario_s", layer},   {"rss_mib", status_mib("VmRSS")},
                          {"peak_rss_mib", status_mib("VmHWM")}, {"heads_s", median(heads)},
                          {"patch_heads_runs", c.layers * c.heads}, {"patch_heads_s", patch},
                          {"patch_heads_middle_s", patch_middle}, {"lens_s", lens}};
    std::cout << out.dump() << "\n";
  } catch (const std::exception& e) {
    std::cerr << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
