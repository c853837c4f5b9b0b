// Writes a seeded random self-attention scenario of shape N x E x H (tokens x d_model x heads) for
// the window's performance tests and benches (docs/PERFORMANCE.md), so that no large file is kept
// in the repository. X ~ N(0, 1), W_q, W_k, W_v, W_o Xavier-uniform, as `attnlab-cli bench`;
// values are rounded to 3 decimals to keep the JSON small (a 2048 x 512 x 8 file is ~20 MB).
//
// usage: attnlab_gui_make_scenario NxExH OUT.json [--causal] [--seed S]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "attnlab/random.h"
#include "attnlab/scenario_io.h"

namespace gui_make_scenario {

namespace {

attnlab::Matrix Rounded(attnlab::Matrix m) {
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = std::round(m.data()[k] * 1000.0) / 1000.0;
  return m;
}

}  // namespace

int Main(int argc, char** argv) {
  int n = 0, e = 0, h = 0;
  char tail = 0;
  if (argc < 3 || std::sscanf(argv[1], "%dx%dx%d%c", &n, &e, &h, &tail) != 3 || n < 1 || e < 1 ||
      h < 1 || e % h != 0) {
    std::fprintf(stderr, "usage: %s NxExH OUT.json [--causal] [--seed S]  (H divides E)\n", argv[0]);
    return 2;
  }
  attnlab::Scenario s;
  s.title = "random " + std::string(argv[1]);
  s.num_heads = h;
  attnlab::RandomSpec normal, xavier;
  xavier.kind = attnlab::RandomSpec::Kind::xavier;
  for (int i = 3; i < argc; ++i) {
    if (std::strcmp(argv[i], "--causal") == 0) {
      s.mask.causal = true;
    } else if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      normal.seed = xavier.seed = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  s.X = Rounded(attnlab::random_matrix(n, e, normal, 1));
  s.full.W_q = Rounded(attnlab::random_matrix(e, e, xavier, 2));
  s.full.W_k = Rounded(attnlab::random_matrix(e, e, xavier, 3));
  s.full.W_v = Rounded(attnlab::random_matrix(e, e, xavier, 4));
  s.W_o = Rounded(attnlab::random_matrix(e, e, xavier, 5));
  try {
    attnlab::write_file_atomically(argv[2], attnlab::scenario_to_json(s).dump());
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "%s\n", ex.what());
    return 1;
  }
  return 0;
}

}  // namespace gui_make_scenario
