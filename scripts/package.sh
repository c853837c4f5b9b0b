#!/usr/bin/env bash
# Builds the Debian package attnlab_<version>_<arch>.deb from a fresh build directory and prints its
# path. Portable code (ATTNLAB_NATIVE=OFF: no -march=native), only the programs users run (no tests,
# no benchmarks). Install it with: sudo apt-get install ./attnlab_*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh >&2
build=${ATTNLAB_PACKAGE_BUILD_DIR:-build-package}
rm -rf "$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTNLAB_NATIVE=OFF -DATTNLAB_UNITY_BUILD=ON \
      -DATTNLAB_BUILD_TESTS=OFF -DATTNLAB_BUILD_BENCH=OFF >&2
cmake --build "$build" -j"$(nproc)" >&2
(cd "$build" && cpack -G DEB >&2)
deb=$(ls "$PWD/$build"/attnlab_*.deb)
echo "$deb"
