#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build, run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)" --timeout 600

# The same suite under AddressSanitizer + UndefinedBehaviorSanitizer: core, CLI and tests (the window
# is not built here yet). Any report fails the run.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNLAB_SANITIZE=address,undefined \
  -DATTNLAB_BUILD_APP=OFF -DATTNLAB_BUILD_BENCH=OFF
cmake --build build-asan -j"$(nproc)"
ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$(nproc)" --timeout 900

# A short libFuzzer run of the scenario loader, validator and compute (docs/ROBUSTNESS.md).
scripts/fuzz.sh 60
