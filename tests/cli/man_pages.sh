#!/bin/sh
# The man pages help2man generated from the programs' own --help (build/man): each renders with
# groff, and says what a reader looks for: every command of attnlab-cli with its options, the exit
# statuses, where the presets live, examples; attnlab's options.
# usage: man_pages.sh MAN_DIR
set -u
dir=$1
failed=0
fail() { echo "FAIL: $*"; failed=1; }
render() {  # the page as a terminal shows it, without bold/underline escapes
  groff -man -Tutf8 -P-c -P-b -P-u "$1" 2>"$dir/groff.err" || fail "$1: groff exit status $?"
  [ -s "$dir/groff.err" ] && fail "$1: groff says $(cat "$dir/groff.err")"
}
check() {  # check PAGE TEXT...: each TEXT appears in the rendered page
  page=$1
  shift
  text=$(render "$dir/$page")
  for want in "$@"; do
    printf '%s\n' "$text" | grep -qF -- "$want" || fail "$page: no '$want'"
  done
  echo "$page: $(printf '%s\n' "$text" | wc -l) lines, $# phrases found"
}
check attnlab-cli.1 "attnlab-cli - transformer attention" SYNOPSIS DESCRIPTION "EXIT STATUS" FILES EXAMPLES \
  "SEE ALSO" "attnlab(1)" "share/attnlab/presets" "docs/FORMAT.md" "attnlab-cli 0.1.0" \
  compute validate bench export compare sensitivity tokenize decode --prefill \
  --precision --shape --what --head --sweep --lesson --colormap --decimals --of --version
check attnlab.1 "attnlab - transformer attention" DESCRIPTION "EXIT STATUS" FILES EXAMPLES "attnlab-cli(1)" \
  --screenshot --frames --size --lecture --head --version "attnlab 0.1.0"
exit "$failed"
