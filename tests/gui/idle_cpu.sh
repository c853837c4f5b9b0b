#!/bin/sh
# An idle window must use almost no CPU: start attnlab interactively (under Xvfb), let it settle,
# then measure its CPU time over a few seconds of doing nothing.
# usage: idle_cpu.sh APP MAX_PERCENT
set -eu
app=$1
max_percent=$2
config=$(mktemp -d)
XDG_CONFIG_HOME=$config "$app" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$config"' EXIT
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
test -f "$config/attnlab/imgui.ini" -o -d "$config/attnlab" || { echo "config dir not used"; exit 1; }
