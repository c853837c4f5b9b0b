#!/usr/bin/env bash
# Builds the libFuzzer target (Debian's clang) in build-fuzz/ and fuzzes the scenario loader,
# validator and compute for SECONDS (default 60) with one worker. Seeds: fuzz/corpus (fixture
# scenarios and hand-made seeds), assets/presets and tests/hostile; new inputs go to
# build-fuzz/corpus, crashes to build-fuzz/crash-*. Exit status non-zero when a crash is found.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNLAB_FUZZ=ON \
  -DATTNLAB_BUILD_APP=OFF -DATTNLAB_BUILD_TESTS=OFF -DATTNLAB_BUILD_BENCH=OFF >/dev/null
cmake --build build-fuzz --target fuzz_scenario -j"$(nproc)"
mkdir -p build-fuzz/corpus
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
exec build-fuzz/fuzz/fuzz_scenario build-fuzz/corpus fuzz/corpus assets/presets tests/hostile \
  -dict=fuzz/scenario.dict -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix=build-fuzz/
