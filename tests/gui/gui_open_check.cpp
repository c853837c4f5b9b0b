// The window's open refuses every hostile file (tests/hostile/cases.json, the generated big ones
// included) and every hostile model folder that fails as it is opened (File > Open model) with the
// table's message and keeps the document, unsaved edit included.
//
//   attnlab_gui_open_check APP HOSTILE_DIR CONTROL.json OUT.png
//
// One window session (`attnlab --check-open LIST`) opens every case through the File > Open /
// drag-and-drop path after an unsaved edit; each JSON line it prints must say: refused, the
// modal's message equals the table's, the modal and the status bar showed it, the document is
// unchanged and still has its unsaved edit. A second session opens CONTROL.json (a good file) the
// same way and must accept it, so a path that refused everything would fail.
#include <stdlib.h>
#include <sys/resource.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../hostile/generate.h"
#include "../models/model_folders.h"
#include "attnlab/message_text.h"
#include "gui_run_support.h"

namespace gui_open_check {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Case {
  std::string name, path, message;
  std::string title;  ///< the error modal's title: "Cannot open NAME", "Cannot open model NAME"
};

constexpr const char* kModelPrefix = "model:";  // a model folder, opened as File > Open model does

// The model folders of cases.json's "model_cases" that are refused as they are opened (the ones
// run with --ids 1 alone; the others need a text or a run), made as test_model_hostile makes them.
std::vector<Case> ModelCases(const json& doc, const fs::path& fixtures, const fs::path& scratch) {
  std::vector<Case> cases;
  int i = 0;
  for (const json& c : doc.at("model_cases")) {
    if (c.at("args") != json{"--ids", "1"}) continue;
    // LIST holds one path a line: a folder whose name holds a newline is ModelLab's unit test's.
    if (c.value("folder_name", std::string()).find('\n') != std::string::npos) continue;
    const fs::path parent = scratch / ("model" + std::to_string(++i));
    fs::create_directories(parent);
    const fs::path dir = attnlab::testing::model_folders::make(fixtures, parent, c);
    cases.push_back({c.at("case"), kModelPrefix + dir.string(), attnlab::testing::model_folders::message(c, dir.string()),
                     "Cannot open model " + attnlab::printable_text(dir.filename().string())});
  }
  return cases;
}

// Runs `command` and returns the JSON lines it printed (other lines are reported and skipped).
// Only complete lines count: output after the last newline was never a finished line.
std::vector<json> RunLines(const std::string& command, int* status) {
  std::vector<json> lines;
  std::string out;
  if (!gui_check::RunCapture(command, &out, status)) return lines;
  for (std::size_t start = 0, end; (end = out.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string line = out.substr(start, end - start);
    try {
      lines.push_back(json::parse(line));
    } catch (const std::exception&) {
      std::cerr << "not JSON: " << line << "\n";
    }
  }
  return lines;
}

using gui_check::Quote;

}  // namespace

int Main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: attnlab_gui_open_check APP HOSTILE_DIR CONTROL.json OUT.png\n";
    return 2;
  }
  const std::string app = argv[1], control = argv[3], out_png = argv[4];
  const fs::path hostile_dir = argv[2];
  char pattern[] = "/tmp/attnlab-open-check-XXXXXX";
  const fs::path scratch = ::mkdtemp(pattern);
  fs::create_directories(fs::path(out_png).parent_path());

  std::vector<Case> cases;
  const json doc = json::parse(std::ifstream(hostile_dir / "cases.json"));
  for (const json& c : doc.at("cases")) {
    fs::path path;
    if (c.contains("file")) {
      path = hostile_dir / c.at("file").get<std::string>();
    } else {
      bool known = false;
      path = attnlab::hostile::generate(scratch, c.at("generate").get<std::string>(), &known);
      if (!known) std::cerr << "no generator for " << c.at("generate") << "\n";
    }
    cases.push_back({c.at("case"), path.string(), c.at("message"), "Cannot open " + path.filename().string()});
  }
  const std::vector<Case> models = ModelCases(doc, hostile_dir.parent_path() / "fixtures/models", scratch);
  cases.insert(cases.end(), models.begin(), models.end());
  const fs::path list = scratch / "list.txt";
  {
    std::ofstream out(list);
    for (const Case& c : cases) out << c.path << "\n";
  }

  // No huge allocation on the way to a refusal (Mesa's llvmpipe needs about 1 GiB of its own).
  attnlab::hostile::cap_memory(rlim_t{4} << 30);

  int failures = 0, status = 0;
  // The unsaved edit (scale) makes the "Save changes?" guard relevant: a refused file must not ask.
  const std::vector<json> lines =
      RunLines(Quote(app) + " --check-open " + Quote(list.string()) +
                   " --test-edit scale=0.5 --screenshot " + Quote(out_png),
               &status);
  if (status != 0) {
    std::cerr << "FAIL: the window exited with status " << status << "\n";
    ++failures;
  }
  if (lines.size() != cases.size()) {
    std::cerr << "FAIL: " << lines.size() << " JSON lines for " << cases.size() << " files\n";
    ++failures;
  }
  for (std::size_t i = 0; i < std::min(lines.size(), cases.size()); ++i) {
    const Case& c = cases[i];
    const json& r = lines[i];
    std::vector<std::string> wrong;
    if (r.value("file", "") != c.path) wrong.push_back("file " + r.value("file", ""));
    if (r.value("accepted", true)) wrong.push_back("accepted");
    if (r.value("message", "") != c.message) wrong.push_back("message \"" + r.value("message", "") + "\"");
    if (r.value("title", "") != c.title)
      wrong.push_back("title \"" + r.value("title", "") + "\"");
    if (!r.value("shown", false)) wrong.push_back("not shown in the modal and the status bar");
    if (!r.value("document_unchanged", false)) wrong.push_back("document changed");
    if (!r.value("dirty", false)) wrong.push_back("the unsaved edit is gone");
    if (r.value("asked_to_save", true)) wrong.push_back("asked \"Save changes?\" for a refused file");
    if (wrong.empty()) continue;
    ++failures;
    std::cerr << "FAIL " << c.name << " (" << c.path << "):";
    for (const std::string& w : wrong) std::cerr << "\n    " << w;
    std::cerr << "\n    expected message \"" << c.message << "\"\n";
  }

  // The controls: a good file opens through the same path (clean document: no question asked), and
  // a good model folder through File > Open model's (the document stays, as for every model).
  {
    const std::string model = kModelPrefix + (hostile_dir.parent_path() / "fixtures/models/gpt2-f32").string();
    std::ofstream(scratch / "control-model.txt") << model << "\n";
    const std::vector<json> ok =
        RunLines(Quote(app) + " --check-open " + Quote((scratch / "control-model.txt").string()), &status);
    if (status != 0 || ok.size() != 1 || !ok[0].value("accepted", false) || !ok[0].value("document_unchanged", false)) {
      std::cerr << "FAIL: the control model " << model << " was not opened: "
                << (ok.empty() ? std::string("no output") : ok[0].dump()) << "\n";
      ++failures;
    }
  }
  {
    std::ofstream(scratch / "control.txt") << control << "\n";
    const std::vector<json> ok =
        RunLines(Quote(app) + " --check-open " + Quote((scratch / "control.txt").string()), &status);
    if (status != 0 || ok.size() != 1 || !ok[0].value("accepted", false) ||
        ok[0].value("document_unchanged", true)) {
      std::cerr << "FAIL: the control " << control << " was not opened: "
                << (ok.empty() ? std::string("no output") : ok[0].dump()) << "\n";
      ++failures;
    }
  }
  std::error_code ec;
  fs::remove_all(scratch, ec);
  std::cout << cases.size() << " hostile files through the window's open, " << failures
            << " failure(s); screenshot of the last: " << out_png << "\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace gui_open_check
