#!/usr/bin/env bash
# The bash completion of attnlab-cli (cli/completion/attnlab-cli.bash), called as bash calls it
# (COMP_WORDS, COMP_CWORD): commands, options, values, files; and for every command it offers
# exactly the options that command's --help documents.
# usage: completion.sh COMPLETION_SCRIPT ATTNLAB_CLI
set -u
# shellcheck source=/dev/null
. "$1"
cli=$2
failed=0
# complete WORD...: COMPREPLY for the last word, sorted, on one line.
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMP_LINE="$*"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _attnlab_cli attnlab-cli "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
expect() {  # expect WANTED WORD...
  local wanted=$1 got
  shift
  got=$(complete_words "$@")
  if [ "$got" = "$wanted" ]; then echo "ok: '$*' -> $got"; else echo "FAIL: '$*' -> '$got', expected '$wanted'"; failed=1; fi
}

expect "export" attnlab-cli ex
expect "--format" attnlab-cli export f.json --for
expect "compare compute" attnlab-cli comp
expect "json text" attnlab-cli compute f.json --format ""
expect "csv gif numpy pdf png svg" attnlab-cli export f.json --format ""
expect "png,svg" attnlab-cli export f.json --format png,s
expect "Q,K Q,K_rot" attnlab-cli export f.json --what Q,K
expect "weights" attnlab-cli export f.json --what = we
expect "gray-diverging grayscale" attnlab-cli export f.json --colormap gray
expect "" attnlab-cli sensitivity f.json --of ""
expect "" attnlab-cli decode f.json --prefill ""

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/figures"
touch "$work/a.json" "$work/b.txt"
cd "$work" || exit 1
expect "a.json figures" attnlab-cli compute ""
expect "figures" attnlab-cli export a.json --out ""
cd - >/dev/null || exit 1

for command in compute validate bench export compare sensitivity tokenize flash decode; do
  documented=$("$cli" "$command" --help | grep -o -- '--[a-z][a-z-]*' | sort -u | tr '\n' ' ' | sed 's/ $//')
  expect "$documented" attnlab-cli "$command" --
done
exit "$failed"
