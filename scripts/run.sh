#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build, and open attnlab on its
# built-in example (or on the scenario file given as an argument).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTNLAB_UNITY_BUILD=ON
cmake --build build -j"$(nproc)" --target attnlab attnlab-cli
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "No display found: showing the built-in example in the terminal instead (attnlab-cli)." >&2
  echo "Run this command from a desktop session to open the window." >&2
  exec build/cli/attnlab-cli compute assets/presets/vaswani-q2-is-attends.json --format text --precision 4
fi
exec build/app/attnlab "$@"
