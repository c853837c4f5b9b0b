#!/usr/bin/env bash
# Builds the libFuzzer targets (Debian's clang) in build-fuzz/ and runs each with one worker, as
# many at once as there are cores: fuzz_scenario (the scenario loader, validator, compute and one
# sensitivity) for SECONDS (default 60) on one core while, on the other, fuzz_cell_ref (the cell
# syntax, sweeps, cell edits, --of), fuzz_matrix_text (the paste parser), fuzz_safetensors (a
# model's weights header), fuzz_tokenizer (tokenizer.json and a text to encode) and fuzz_config (a
# model's config.json as the families read it) run for SECONDS / 5 each.
# `scripts/fuzz.sh 60 fuzz_cell_ref` runs one target for the whole SECONDS;
# `scripts/fuzz.sh build` only builds them (scripts/test.sh, beside its tests).
#
# Seeds: fuzz_scenario reads fuzz/corpus (fixture scenarios and hand-made seeds), assets/presets and
# tests/hostile; the others fuzz/corpus_<what>. New inputs go to build-fuzz/corpus and
# build-fuzz/corpus_<what>; crashes to
# build-fuzz/crash-* (fuzz_scenario) and build-fuzz/<target>-crash-*. Every target runs even when
# an earlier one crashed; the exit status is non-zero when any found a crash (or did not run).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
only="${2:-}"
targets=(fuzz_scenario fuzz_cell_ref fuzz_matrix_text fuzz_safetensors fuzz_tokenizer fuzz_config)
# -O1: libFuzzer's own advice for the optimisation (a third less to compile than -O2); -g0 as the
# suite's sanitized build (scripts/test.sh): a crash's stack names its functions, and its input is
# kept to replay in a -g build; the sources compiled in batches.
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNLAB_FUZZ=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g0 -DNDEBUG" -DATTNLAB_UNITY_BUILD=ON \
  -DATTNLAB_BUILD_APP=OFF -DATTNLAB_BUILD_TESTS=OFF -DATTNLAB_BUILD_BENCH=OFF >/dev/null
cmake --build build-fuzz --target "${targets[@]}" -j"$(nproc)"
[[ "$seconds" != build ]] || exit 0
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
common=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
short=$((seconds / 5 > 0 ? seconds / 5 : 1))  # five of them: as long as fuzz_scenario together

# The targets run side by side, one per core (each fuzzer is one process on one core): the long
# fuzz_scenario on one core while the short ones follow each other on the other. Each writes
# build-fuzz/TARGET.log, printed once it has finished, and its exit status to build-fuzz/TARGET.status.
slots=$(nproc)
run() {  # run TARGET SECONDS ARGS...: one fuzzing run in the background; a crash is recorded, not fatal
  local target="$1" time="$2"
  shift 2
  [[ -z "$only" || "$only" == "$target" ]] || return 0
  [[ -z "$only" ]] || time="$seconds"
  while (($(jobs -rp | wc -l) >= slots)); do wait -n || true; done
  echo "== $target, ${time} s (started)"
  rm -f build-fuzz/"$target".status
  (
    status=0
    build-fuzz/fuzz/"$target" "$@" -max_total_time="$time" "${common[@]}" >build-fuzz/"$target".log 2>&1 || status=$?
    echo "$status" >build-fuzz/"$target".status
  ) &
}

mkdir -p build-fuzz/corpus build-fuzz/corpus_cells build-fuzz/corpus_matrix_text build-fuzz/corpus_safetensors \
  build-fuzz/corpus_tokenizer build-fuzz/corpus_config
run fuzz_scenario "$seconds" build-fuzz/corpus fuzz/corpus assets/presets tests/hostile \
  -dict=fuzz/scenario.dict -max_len=8192 -artifact_prefix=build-fuzz/
run fuzz_cell_ref "$short" build-fuzz/corpus_cells fuzz/corpus_cells \
  -dict=fuzz/cells.dict -max_len=256 -artifact_prefix=build-fuzz/fuzz_cell_ref-
run fuzz_matrix_text "$short" build-fuzz/corpus_matrix_text fuzz/corpus_matrix_text \
  -max_len=4096 -artifact_prefix=build-fuzz/fuzz_matrix_text-
run fuzz_safetensors "$short" build-fuzz/corpus_safetensors fuzz/corpus_safetensors \
  -dict=fuzz/safetensors.dict -max_len=4096 -artifact_prefix=build-fuzz/fuzz_safetensors-
run fuzz_tokenizer "$short" build-fuzz/corpus_tokenizer fuzz/corpus_tokenizer \
  -dict=fuzz/tokenizer.dict -max_len=8192 -artifact_prefix=build-fuzz/fuzz_tokenizer-
run fuzz_config "$short" build-fuzz/corpus_config fuzz/corpus_config \
  -dict=fuzz/config.dict -max_len=4096 -artifact_prefix=build-fuzz/fuzz_config-

wait
failed=()
for target in "${targets[@]}"; do
  [[ -z "$only" || "$only" == "$target" ]] || continue
  echo "== $target: the end of its log (build-fuzz/$target.log)"
  tail -n 12 build-fuzz/"$target".log 2>/dev/null || true
  [[ "$(cat build-fuzz/"$target".status 2>/dev/null)" == 0 ]] || failed+=("$target")
done
if [[ -n "$only" && ! " ${targets[*]} " =~ " $only " ]]; then
  echo "fuzz.sh: no target $only (${targets[*]})" >&2
  exit 2
fi
if ((${#failed[@]})); then
  echo "fuzz.sh: crash (or failure) in: ${failed[*]}; inputs in build-fuzz/" >&2
  exit 1
fi
