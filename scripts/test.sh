#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build, run the whole test suite.
#
# Every test runs once, in the build where it means something (docs/PERFORMANCE.md, "The suite's own
# time"):
#   1. build-asan/: core, CLI, window and every test under AddressSanitizer + UndefinedBehaviorSanitizer
#      (LeakSanitizer too): the unit tests, the CLI's, the hostile inputs and the window's tests under
#      Xvfb. Any report fails the run.
#   2. build/: the Release programs users install: the installed tree, the Debian package, the idle
#      window's CPU use and the benchmarks' smoke run, which only a Release build can answer.
#   3. Short libFuzzer runs (docs/ROBUSTNESS.md).
# The builds of 2. and 3. run beside the tests of 1., on the core time those leave idle.
# Both builds compile each target's sources in batches (ATTNLAB_UNITY_BUILD); each GoogleTest binary
# runs as a few shards, not a process per TEST (ATTNLAB_TEST_SHARDS). Each step's time is
# printed as "== step: N s" and collected in build-asan/suite-times.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
times=$PWD/build-asan/suite-times.txt
cpu_ticks() {  # "BUSY TOTAL": the machine's CPU time so far (/proc/stat, all cores, in ticks)
  local _cpu user nice system idle iowait _rest
  read -r _cpu user nice system idle iowait _rest </proc/stat
  echo "$((user + nice + system)) $((user + nice + system + idle + iowait))"
}
busy_share() {  # busy_share BEFORE AFTER (cpu_ticks): the percentage of all cores' time spent busy
  local busy0 total0 busy1 total1
  read -r busy0 total0 <<<"$1"
  read -r busy1 total1 <<<"$2"
  echo $((100 * (busy1 - busy0) / (total1 > total0 ? total1 - total0 : 1)))
}
own_cpu() {  # own_cpu PID: the CPU ticks of PID and of its children it has waited for
  local fields
  read -ra fields <"/proc/$1/stat"
  echo $((fields[13] + fields[14] + fields[15] + fields[16]))
}
# timed NAME COMMAND...: runs it, prints and records how long it took, the CPU seconds it used (its
# processes only: a measure that other work on a shared machine barely changes) and how busy the
# cores were (anything running on the machine counts: below ~90% a step leaves a core idle)
timed() {
  local name=$1 start=$SECONDS me=$BASHPID before cpu_before busy cpu
  shift
  before=$(cpu_ticks)
  cpu_before=$(own_cpu "$me")
  "$@"
  busy=$(busy_share "$before" "$(cpu_ticks)")
  cpu=$((($(own_cpu "$me") - cpu_before) / $(getconf CLK_TCK)))
  local took=$((SECONDS - start))
  echo "== $name: $took s, $cpu s of CPU (cores busy $busy%)"
  mkdir -p "$(dirname "$times")"
  echo "$name $took s, CPU $cpu s, busy $busy%" >>"$times"
}

rm -f "$times"
timed install-deps scripts/install-deps.sh

# 1. Sanitized: everything but the benchmarks. -O1: ASan's own advice (it keeps stacks exact). -g0:
# a report's stack still names every function (the symbols) and UBSan's report its file and line
# (each check carries them), while debug tables took a sixth of the compile time (the core's largest
# batch: 81.7 s of CPU with -g1, 67.9 s with -g0); a report's lines come from replaying it in a -g
# build. UndefinedBehaviorSanitizer without its `null` and `alignment` checks, which instrument every
# pointer use and took 38% of GCC's compile time (the core's largest batch: 110 s of CPU with them,
# 68 s without, 54 s with ASan alone): a null dereference still stops the run, as ASan's SEGV report
# with its stack, and x86 reads misaligned data correctly. The fuzzers (clang, scripts/fuzz.sh) keep
# both on the loaders and the core.
timed configure-asan cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g0 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g0 -DNDEBUG" \
  -DATTNLAB_SANITIZE=address,undefined -DATTNLAB_SANITIZE_SKIP=null,alignment -DATTNLAB_BUILD_BENCH=OFF -DATTNLAB_UNITY_BUILD=ON -DATTNLAB_TEST_SHARDS=ON
timed build-asan cmake --build build-asan -j"$jobs"
# Each test's time in an earlier run (tests/suite_costs.txt, CTest's own cost file): ctest then
# starts the longest first, so a fresh clone does not end on one long test while a core idles.
# Refresh it from a full run's build-asan/Testing/Temporary/CTestCostData.txt.
mkdir -p build-asan/Testing/Temporary
cp tests/suite_costs.txt build-asan/Testing/Temporary/CTestCostData.txt
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# The window tests drive a real X server with real input; one retry absorbs a lost event on a busy
# machine, a test failing twice fails the run.
# The installed tree, the package, idle CPU and the benchmarks are the Release pass's (below): a
# sanitized binary names its sources and its idle CPU use means nothing.
release_only='^install_|^package_|^release_'

# The Release build (2.) and the fuzz targets' (3.) start now, beside the ASan tests, in the
# SCHED_IDLE class: they take only the core time the tests leave idle (a test waiting for its X
# server or a frame, the last shard or window test running alone) and never delay a test's own
# work; once the tests are done they have the cores to themselves. Their output goes to
# build-asan/builds-beside-tests.log, printed once they are waited for.
beside_log=build-asan/builds-beside-tests.log
builds_beside_tests() {
  chrt --idle --pid 0 "$BASHPID"  # inherited by cmake, ninja and the compilers
  timed configure-release cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTNLAB_UNITY_BUILD=ON \
    -DATTNLAB_RELEASE_CHECKS_ONLY=ON
  timed build-release cmake --build build -j"$jobs"
  timed build-fuzz scripts/fuzz.sh build
}
set -m  # its own process group: stopped whole (cmake, ninja, compilers) if the run stops early
builds_beside_tests >"$beside_log" 2>&1 &
beside=$!
set +m
trap 'kill -- -"$beside" 2>/dev/null || true' EXIT
ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1 \
  timed test-asan ctest --test-dir build-asan --output-on-failure -j"$jobs" --timeout 900 \
  -E "$release_only|^gui_" --repeat until-pass:2
# The window's tests with LeakSanitizer too: attnlab-harness keeps Mesa's driver loaded until exit, so
# what the driver holds stays reachable.
# intercept_tls_get_addr=0: GCC 12's LeakSanitizer reads the dynamic TLS slots of glibc 2.36 wrongly
# (a garbage range, "Tracer caught signal 11" at exit, in 6 of 8 runs of the Phuong & Hutter
# Algorithm 3 preset); without the interception it scans no dlopen'd library's dynamic TLS (Mesa's),
# which can only add false leak reports, never hide one.
ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:intercept_tls_get_addr=0 \
  timed test-asan-window ctest --test-dir build-asan --output-on-failure -j"$jobs" --timeout 300 -R '^gui_' \
  -E '^gui_shipping_flags$' --repeat until-pass:2
# gui_shipping_flags also runs attnlab, which has no test code to keep the driver loaded: Mesa
# unloads it at exit and its ~5.5 KB then has no module name for a suppression to match.
ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=0 \
  timed test-asan-shipping ctest --test-dir build-asan --output-on-failure --timeout 300 \
  -R '^gui_shipping_flags$' --repeat until-pass:2

# 2. Release: only the programs users install and the tests that exist to check a Release build.
# The tests are done: the builds leave the idle class (on a machine shared with other builds it
# would leave them only the time those do not take): every process under them (ninja starts each
# compiler in a process group of its own). Twice: a compiler that ninja started while the first
# pass went by has ninja's class of then.
descendants() {  # descendants PID: PID and every process under it (/proc)
  local stat fields pid
  local -A children=()
  for stat in /proc/[0-9]*/stat; do
    { fields=$(<"$stat"); } 2>/dev/null || continue
    read -ra fields <<<"${fields##*) }"  # after the command's name: state, parent, ...
    pid=${stat//[^0-9]/}
    children[${fields[1]}]+=" $pid"
  done
  local queue=("$1")
  while ((${#queue[@]})); do
    pid=${queue[0]}
    queue=("${queue[@]:1}" ${children[$pid]:-})
    echo "$pid"
  done
}
for _ in 1 2; do
  for pid in $(descendants "$beside"); do chrt --other --pid 0 "$pid" 2>/dev/null || true; done
done
# wait-builds: how long the run still waits for the builds started beside the tests (its CPU
# seconds: the whole of both builds, counted once they are waited for).
builds_done() {  # waits for them; when one failed, shows their log and fails
  wait "$beside" && return 0
  cat "$beside_log"
  echo "test.sh: the Release or fuzz build beside the tests failed" >&2
  return 1
}
timed wait-builds builds_done
trap - EXIT
grep '^== ' "$beside_log"
timed test-release ctest --test-dir build --output-on-failure -j"$jobs" --timeout 600 --repeat until-pass:2

# 3. Short libFuzzer runs, two at a time: the scenario loader, validator and compute for 40 s; the
# cell syntax, the paste parser, the safetensors header and the tokenizer files 10 s each
# (docs/ROBUSTNESS.md).
timed fuzz scripts/fuzz.sh 40
echo "== the suite's steps (seconds):"
cat "$times"
