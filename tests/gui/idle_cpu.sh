#!/bin/sh
# An idle window must use almost no CPU: start attnlab interactively (under Xvfb), let it settle,
# then measure its CPU time over a few seconds of doing nothing. The sleeps are the measurement
# (3 s to settle, 4 s measured), not waits for a state; no --input-log: it would add work per frame.
# usage: idle_cpu.sh APP MAX_PERCENT
. "$(dirname "$0")/gui_test.sh"
max_percent=$2
"$app" &
pid=$!
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
sleep 3
kill -0 "$pid"
t0=$(ticks)
sleep 4
t1=$(ticks)
hz=$(getconf CLK_TCK)
percent=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" 'BEGIN { printf "%.1f", 100 * (b - a) / hz / 4 }')
echo "idle CPU: ${percent}% over 4 s (limit ${max_percent}%)"
awk -v p="$percent" -v m="$max_percent" 'BEGIN { exit !(p <= m) }'
test -f "$XDG_CONFIG_HOME/attnlab/imgui.ini" -o -d "$XDG_CONFIG_HOME/attnlab" || { echo "config dir not used"; exit 1; }
