#include "commands.h"

#include <iostream>
#include <sstream>

namespace attnlab::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      {"compute", "compute FILE [--format json|text] [--precision N]   every stage of the trace (precision: text only)",
       run_compute},
      {"validate", "validate FILE                                       check a scenario without computing", run_validate},
      {"bench", "bench --shape NxExH [--repeats R] [--json] [--layout rows|columns] [--edit none|x|scale|wq|wo]   time the whole trace, or recomputes after edits of one kind (docs/PERFORMANCE.md)",
       run_bench},
      {"export", "export FILE --out DIR [--what LIST|all] [--head N|all] [--format png,svg,csv,numpy]\n"
                 "         [--scale 1|2|4] [--colormap NAME] [--values] [--decimals 1-6] [--transparent]\n"
                 "         figures, CSV, NumPy (docs/EXPORT.md)\n"
                 "  export FILE --sweep PARAM=FROM:TO:FRAMES --out DIR [--what LIST] [--head N] [--format gif,png,svg]\n"
                 "         one animated GIF (or numbered frames) per figure as PARAM moves, e.g. scale=0.1:2:40\n"
                 "  export FILE --lesson --out DIR [--scale 1|2] [--colormap NAME] [--decimals 1-6]\n"
                 "         one 1920x1080 PNG slide per step of the scenario's lesson",
       run_export},
      {"compare", "compare A.json B.json [--format json|text]   per stage and head, the largest |A - B| and its cell",
       run_compare},
      {"sensitivity", "sensitivity FILE --of CELL   exact gradient of one cell, CELL one of output[i][j], concat[i][j],\n"
                      "         heads[h].weights[i][j], heads[h].scores[i][j], heads[h].output[i][j] (indices in the\n"
                      "         file's layout, h from 0), with respect to every input and weight, as JSON",
       run_sensitivity},
  };
  return list;
}

int report_invalid(const std::string& file, const std::exception& error) {
  std::cerr << file << ": " << error.what() << "\n";
  return 1;
}

std::string usage_text() {
  std::ostringstream out;
  out << "usage: attnlab-cli COMMAND ...\n\ncommands:\n";
  for (const Command& c : commands()) out << "  " << c.synopsis << "\n";
  out << "\nexit status: 0 success, 1 invalid input (one line on stderr names the field), 2 bad usage\n";
  return out.str();
}

}  // namespace attnlab::cli
