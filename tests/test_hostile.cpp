// Every hostile file in tests/hostile/cases.json is refused by both `attnlab-cli validate` and
// `attnlab-cli compute`: exit status 1, nothing on stdout, exactly `FILE: <message>` on stderr, and
// never a signal, a hang (timeout) or a huge allocation (address space capped at 2 GiB).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "attnlab/attention.h"
#include "attnlab/message_text.h"
#include "attnlab/model.h"
#include "attnlab/scenario_io.h"
#include "hostile/generate.h"

namespace test_hostile {

namespace {

namespace fs = std::filesystem;

const fs::path kHostileDir = fs::path(ATTNLAB_SOURCE_DIR) / "tests" / "hostile";
constexpr rlim_t kAddressSpace = rlim_t{2} << 30;  // 2 GiB
constexpr int kTimeoutSeconds = 60;                // generous for sanitizer builds on 2 shared cores

struct HostileCase {
  std::string name, file, generate, message;
};

void PrintTo(const HostileCase& c, std::ostream* os) { *os << '"' << c.name << '"'; }

std::vector<HostileCase> load_cases() {
  std::ifstream in(kHostileDir / "cases.json");
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::vector<HostileCase> cases;
  for (const auto& c : doc.at("cases"))
    cases.push_back({c.at("case"), c.value("file", ""), c.value("generate", ""), c.at("message")});
  return cases;
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// A scratch directory for this process (ctest runs each test in its own process).
class Scratch {
 public:
  static const fs::path& dir() {
    static Scratch instance;
    return instance.dir_;
  }

 private:
  Scratch() {
    char pattern[] = "/tmp/attnlab-hostile-XXXXXX";
    dir_ = ::mkdtemp(pattern);
  }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  fs::path dir_;
};

/// Writes the case `name` (too big or too odd to commit) and returns its path.
fs::path generate(const std::string& name) {
  bool known = false;
  const fs::path path = attnlab::hostile::generate(Scratch::dir(), name, &known);
  if (!known) ADD_FAILURE() << "no generator for " << name;
  return path;
}

struct CliRun {
  bool exited = false;
  int status = -1;  ///< exit status, or the signal when !exited
  bool timed_out = false;
  std::string out, err;
};

/// Runs attnlab-cli with `args` under the address-space cap and the timeout.
CliRun run_cli(const std::vector<std::string>& args) {
  const fs::path out_file = Scratch::dir() / "stdout.txt", err_file = Scratch::dir() / "stderr.txt";
  const pid_t pid = ::fork();
  if (pid == 0) {
    attnlab::hostile::cap_memory(kAddressSpace);
    const int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> argv{const_cast<char*>(ATTNLAB_CLI)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(ATTNLAB_CLI, argv.data());
    ::_exit(127);
  }
  CliRun r;
  int wstatus = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kTimeoutSeconds);
  while (::waitpid(pid, &wstatus, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &wstatus, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.exited = WIFEXITED(wstatus);
  r.status = r.exited ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus);
  r.out = read_all(out_file);
  r.err = read_all(err_file);
  return r;
}

class Hostile : public ::testing::TestWithParam<HostileCase> {};

TEST_P(Hostile, RefusedByValidateAndCompute) {
  const HostileCase& c = GetParam();
  const fs::path path = c.file.empty() ? generate(c.generate) : kHostileDir / c.file;
  ASSERT_TRUE(!c.file.empty() || !c.generate.empty()) << c.name;
  for (const char* command : {"validate", "compute"}) {
    SCOPED_TRACE(std::string(command) + " " + path.string() + " (" + c.name + ")");
    const CliRun r = run_cli({command, path.string()});
    EXPECT_FALSE(r.timed_out) << "no answer within " << kTimeoutSeconds << " s";
    ASSERT_TRUE(r.exited) << "killed by signal " << r.status << "; stderr: " << r.err;
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, path.string() + ": " + c.message + "\n");
  }
}

INSTANTIATE_TEST_SUITE_P(Table, Hostile, ::testing::ValuesIn(load_cases()), [](const auto& info) {
  std::string name = info.param.file.empty() ? info.param.generate : info.param.file;
  name = name.substr(0, name.rfind('.'));
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
});

// ---- bad command-line usage (cases.json "usage"): exit 2, the option named first, nothing written

struct UsageCase {
  std::string name;
  std::vector<std::string> args;
  std::string message;
};

void PrintTo(const UsageCase& c, std::ostream* os) { *os << '"' << c.name << '"'; }

/// The scenario the usage cases name as FILE.
fs::path usage_file() {
  std::ifstream in(kHostileDir / "cases.json");
  return fs::path(ATTNLAB_SOURCE_DIR) / nlohmann::json::parse(in).at("usage_file").get<std::string>();
}

std::vector<UsageCase> load_usage_cases() {
  std::ifstream in(kHostileDir / "cases.json");
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::vector<UsageCase> cases;
  for (const auto& c : doc.at("usage")) {
    UsageCase u{c.at("case"), c.at("args"), c.at("message")};
    for (std::string& a : u.args)
      if (a == "FILE") a = usage_file().string();
    cases.push_back(std::move(u));
  }
  return cases;
}

class BadUsage : public ::testing::TestWithParam<UsageCase> {};

TEST_P(BadUsage, ExitsTwoNamingTheOptionAndWritesNothing) {
  UsageCase c = GetParam();
  const fs::path out = Scratch::dir() / "usage-out";
  for (std::string& a : c.args)
    if (a == "OUT") a = out.string();
  const CliRun r = run_cli(c.args);
  ASSERT_TRUE(r.exited) << "killed by signal " << r.status << "; stderr: " << r.err;
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')), c.message);
  EXPECT_EQ(r.err.substr(r.err.find('\n') + 1), "Run 'attnlab-cli " + c.args[0] + " --help' for the options.\n")
      << "one line, then only where the options are listed";
  EXPECT_FALSE(fs::exists(out));
}

TEST(BadUsageLength, AHugeArgumentGivesOneShortLine) {
  // 100 KB: under Linux's limit for one argument (128 KiB).
  const std::string huge(100 << 10, 'x');
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"export", "FILE", "--" + huge}, {"export", "FILE", "--out", "o", "--what", huge},
        {"compute", "FILE", huge}, {"sensitivity", "FILE", "--of", huge},
        {"export", "FILE", "--out", "o", "--format", "gif", "--sweep", "W_q=0" + std::string(100 << 10, '\x89') + ":2:0/1"}}) {
    std::vector<std::string> with_file = args;
    with_file[1] = usage_file().string();
    const CliRun r = run_cli(with_file);
    ASSERT_TRUE(r.exited) << r.err.substr(0, 300);
    EXPECT_EQ(r.status, 2) << args[0] << ": " << r.err.substr(0, 300);
    const std::string first = r.err.substr(0, r.err.find('\n'));
    EXPECT_LE(first.size(), attnlab::kMaxMessageBytes) << args[0];
    // The text is quoted as an excerpt: what is wrong stays in the line (fuzz_cell_ref found a
    // sweep message cut to its quoted value twice).
    EXPECT_TRUE(first.find("expect") != std::string::npos || first.find("unknown") != std::string::npos ||
                first.find("no such") != std::string::npos)
        << first;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err.substr(0, 400);
  }
}

std::string usage_test_name(const ::testing::TestParamInfo<UsageCase>& info) {
  std::string name = info.param.name;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Table, BadUsage, ::testing::ValuesIn(load_usage_cases()), usage_test_name);

TEST(HostileTable, EveryFileIsInTheManifestAndEveryEntryExists) {
  std::set<std::string> listed, on_disk;
  for (const HostileCase& c : load_cases()) {
    if (!c.file.empty()) {
      EXPECT_TRUE(listed.insert(c.file).second) << "listed twice: " << c.file;
    }
  }
  for (const auto& entry : fs::directory_iterator(kHostileDir))
    if (entry.path().extension() == ".json" && entry.path().filename() != "cases.json")
      on_disk.insert(entry.path().filename().string());
  EXPECT_EQ(listed, on_disk);
}

TEST(HostileTable, TheDocIsGeneratedFromTheManifest) {
  const std::string command = "python3 " + (kHostileDir / "gen_doc.py").string() + " --check";
  EXPECT_EQ(std::system(command.c_str()), 0) << "docs/HOSTILE_INPUT.md is stale: run tests/hostile/gen_doc.py";
}

TEST(HostileTable, EveryMessageIsOneShortLineNamingAField) {
  for (const HostileCase& c : load_cases()) {
    EXPECT_EQ(c.message.find('\n'), std::string::npos) << c.name;
    EXPECT_LE(c.message.size(), attnlab::kMaxMessageBytes) << c.name;
    EXPECT_NE(c.message.find(": "), std::string::npos) << c.name;
  }
}

// ---- numerics: huge scores are fine, overflow is refused rather than drawn

TEST(HostileNumerics, ScoresOfPlusMinus1e300GiveFiniteWeights) {
  attnlab::Matrix logits(3, 3);
  logits << 1e300, -1e300, 0, -1e300, -1e300, -1e300, 1e300, 1e300, -1e300;
  const attnlab::Matrix w = attnlab::softmax_rows(logits);
  EXPECT_TRUE(w.allFinite()) << w;
  EXPECT_EQ(w(0, 0), 1.0);
  EXPECT_EQ(w(0, 1), 0.0);
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(w(1, j), 1.0 / 3, 1e-15);
  EXPECT_EQ(w(2, 0), 0.5);
  EXPECT_EQ(w(2, 2), 0.0);
}

TEST(HostileNumerics, AScenarioWithScoresNear1e300ComputesFiniteWeights) {
  // S = Q K^T = [[1e300, -1e300], [-1e300, 1e300]]: each query attends to itself only.
  const attnlab::Trace t = attnlab::compute(
      attnlab::scenario_from_string(R"({"X": [[1e150], [-1e150]], "scale": "none"})"));
  EXPECT_TRUE(t.warnings.empty());
  const attnlab::Matrix& w = t.heads[0].weights;
  EXPECT_TRUE(w.allFinite()) << w;
  EXPECT_EQ(w(0, 0), 1.0);
  EXPECT_EQ(w(0, 1), 0.0);
  EXPECT_EQ(w(1, 1), 1.0);
  EXPECT_TRUE(t.output.allFinite());
}

TEST(HostileNumerics, AnEditThatWouldOverflowIsRefusedNamingTheField) {
  attnlab::Scenario s = attnlab::scenario_from_string(R"({"X": [[1, 2], [3, 4]], "W_o": [[1, 0], [0, 1]]})");
  s.X(1, 0) = 1e200;  // typed into a cell in the window
  try {
    attnlab::validate(s);
    FAIL() << "no error";
  } catch (const attnlab::ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("X: expected values small enough", 0), 0u) << e.what();
  }
}

TEST(HostileNumerics, EveryAcceptedTraceIsFiniteExceptMaskedEntries) {
  // The largest values the magnitude check lets through, with a bias, W_o and a mask.
  const attnlab::Trace t = attnlab::compute(attnlab::scenario_from_string(R"({
    "X": [[1e74, -1e74], [1e74, 1e74]], "W_q": [[1e74, 0], [0, 1e74]], "b_q": [1e140, 0],
    "W_o": [[1e100, 1], [1, 1e100]], "mask": [[1, 0], [1, 1]], "scale": "none"})"));
  for (std::size_t i = 0; i < t.heads.size(); ++i) {
    const auto& h = t.heads[i];
    for (const attnlab::Matrix* m : {&h.Q, &h.K, &h.V, &h.scores, &h.weights, &h.output})
      EXPECT_TRUE(m->allFinite()) << *m;
    const attnlab::Matrix masked = t.masked(i);
    EXPECT_TRUE((masked.array().isFinite() || masked.array() == -INFINITY).all()) << masked;
  }
  EXPECT_TRUE(t.output.allFinite()) << t.output;
  EXPECT_TRUE(t.warnings.empty());
}

}  // namespace

}  // namespace test_hostile
