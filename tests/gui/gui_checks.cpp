// The window tests' checkers as one program, run by the name it is called by: the build links
// attnlab_gui_checks once and makes a link to it for each checker (attnlab_gui_pixel_check,
// attnlab_gui_probe, ...), so the scripts and tests call each checker as a program of its own while
// the suite compiles and links what the checkers share (core, JSON, stb, X11) once, not once per checker.
#include <cstdio>
#include <cstring>
#include <string>

// clang-format off
namespace gui_edit_check { int Main(int argc, char** argv); }
namespace gui_edit_cost_check { int Main(int argc, char** argv); }
namespace gui_first_run_check { int Main(int argc, char** argv); }
namespace gui_input_check { int Main(int argc, char** argv); }
namespace gui_instruments_check { int Main(int argc, char** argv); }
namespace gui_make_scenario { int Main(int argc, char** argv); }
namespace gui_model_check { int Main(int argc, char** argv); }
namespace gui_open_check { int Main(int argc, char** argv); }
namespace gui_patching_check { int Main(int argc, char** argv); }
namespace gui_pixel_check { int Main(int argc, char** argv); }
namespace gui_pooled_check { int Main(int argc, char** argv); }
namespace gui_precision_check { int Main(int argc, char** argv); }
namespace gui_presenter_check { int Main(int argc, char** argv); }
namespace gui_probe { int Main(int argc, char** argv); }
namespace gui_tiles_check { int Main(int argc, char** argv); }
namespace gui_worker_check { int Main(int argc, char** argv); }
// clang-format on

namespace {

struct Checker {
  const char* program;
  int (*main)(int argc, char** argv);
};

const Checker kCheckers[] = {
    {"attnlab_gui_edit_check", gui_edit_check::Main},
    {"attnlab_gui_edit_cost_check", gui_edit_cost_check::Main},
    {"attnlab_gui_first_run_check", gui_first_run_check::Main},
    {"attnlab_gui_input_check", gui_input_check::Main},
    {"attnlab_gui_instruments_check", gui_instruments_check::Main},
    {"attnlab_gui_make_scenario", gui_make_scenario::Main},
    {"attnlab_gui_model_check", gui_model_check::Main},
    {"attnlab_gui_open_check", gui_open_check::Main},
    {"attnlab_gui_patching_check", gui_patching_check::Main},
    {"attnlab_gui_pixel_check", gui_pixel_check::Main},
    {"attnlab_gui_pooled_check", gui_pooled_check::Main},
    {"attnlab_gui_precision_check", gui_precision_check::Main},
    {"attnlab_gui_presenter_check", gui_presenter_check::Main},
    {"attnlab_gui_probe", gui_probe::Main},
    {"attnlab_gui_tiles_check", gui_tiles_check::Main},
    {"attnlab_gui_worker_check", gui_worker_check::Main},
};

}  // namespace

int main(int argc, char** argv) {
  const char* slash = std::strrchr(argv[0], '/');
  const std::string called = slash ? slash + 1 : argv[0];
  for (const Checker& checker : kCheckers)
    if (called == checker.program) return checker.main(argc, argv);
  std::fprintf(stderr, "%s: run it by a checker's name (attnlab_gui_pixel_check, ...)\n", argv[0]);
  return 2;
}
