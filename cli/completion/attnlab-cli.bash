# bash completion for attnlab-cli: its commands, each command's options, scenario files (*.json)
# for FILE, directories for --out, and the values of --format, --what, --colormap, ... Installed as
# share/bash-completion/completions/attnlab-cli (bash-completion loads it on the first <TAB>); to
# try it from a build tree: source cli/completion/attnlab-cli.bash
# tests/cli/completion.sh checks it against each command's --help.

# The values of a comma-separated list (--what Q,K,<TAB>): complete the item after the last comma.
_attnlab_cli_list() {
  local cur=$1 values=$2 prefix=""
  [[ $cur == *,* ]] && prefix=${cur%,*},
  mapfile -t COMPREPLY < <(compgen -P "$prefix" -W "$values" -- "${cur##*,}")
  compopt -o nospace 2>/dev/null  # room for another comma
}

_attnlab_cli() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev="" cword=$COMP_CWORD
  ((cword > 0)) && prev=${COMP_WORDS[cword - 1]}
  # --what=Q: bash splits at '=' (COMP_WORDBREAKS), giving "--what" "=" "Q".
  if [[ $cur == "=" ]]; then
    cur=""
  elif [[ $prev == "=" ]] && ((cword > 1)); then
    prev=${COMP_WORDS[cword - 2]}
  fi
  COMPREPLY=()
  local commands="compute validate bench export compare sensitivity model heads lens patch tokenize flash decode"
  if ((cword == 1)); then
    mapfile -t COMPREPLY < <(compgen -W "$commands --help --help-all --version" -- "$cur")
    return
  fi
  local command=${COMP_WORDS[1]} options
  case $command in
    compute) options="--format --precision" ;;
    validate) options="" ;;
    bench) options="--shape --repeats --json --layout --edit --seed --with" ;;
    export) options="--out --what --head --format --scale --colormap --values --decimals --transparent --sweep --lesson --text --ids" ;;
    compare) options="--format" ;;
    sensitivity) options="--of" ;;
    model) options="--text --ids --attention --layer --out --heads-off --top" ;;
    heads) options="--text --ids --random-repeat --seed --json" ;;
    lens) options="--text --ids --token --heads-off --json" ;;
    patch) options="--clean --corrupt --answer --wrong --no-positions --json" ;;
    tokenize) options="--text --pair --file" ;;
    flash) options="--block --head --format" ;;
    decode) options="--prefill --format --precision" ;;
    *) return ;;
  esac
  case $prev in
    --format)
      if [[ $command == export ]]; then _attnlab_cli_list "$cur" "png svg csv numpy gif pdf"
      else mapfile -t COMPREPLY < <(compgen -W "json text" -- "$cur"); fi
      return ;;
    --what)
      _attnlab_cli_list "$cur" "all X_pos Q K V Q_rot K_rot scores scaled bias masked weights head_output concat output lines"
      return ;;
    --with) _attnlab_cli_list "$cur" "rope alibi window sinusoidal gqa"; return ;;
    --colormap) mapfile -t COMPREPLY < <(compgen -W "viridis cividis grayscale rdbu gray-diverging" -- "$cur"); return ;;
    --scale) mapfile -t COMPREPLY < <(compgen -W "1 2 4" -- "$cur"); return ;;
    --layout) mapfile -t COMPREPLY < <(compgen -W "rows columns" -- "$cur"); return ;;
    --edit) mapfile -t COMPREPLY < <(compgen -W "none x scale wq wo" -- "$cur"); return ;;
    --head)
      [[ $command == export ]] && mapfile -t COMPREPLY < <(compgen -W "all" -- "$cur")
      return ;;
    --out)
      compopt -o filenames 2>/dev/null
      if [[ $command == model ]]; then  # the scenario file --layer writes
        mapfile -t COMPREPLY < <(compgen -f -X '!*.json' -- "$cur"; compgen -d -- "$cur")
      else
        mapfile -t COMPREPLY < <(compgen -d -- "$cur")
      fi
      return ;;
    --file)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      return ;;
    --precision | --decimals | --repeats | --seed | --shape | --sweep | --of | --text | --ids | --layer | --heads-off | --top | --block | --prefill | \
      --random-repeat | --token | --clean | --corrupt | --answer | --wrong | --pair)
      return ;;  # a value to type
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$options --help" -- "$cur")
    return
  fi
  [[ $command == bench ]] && return  # no FILE
  compopt -o filenames 2>/dev/null
  if [[ $command == model || $command == heads || $command == lens || $command == patch || $command == tokenize ]]; then  # DIR: a model folder
    mapfile -t COMPREPLY < <(compgen -d -- "$cur")
    return
  fi
  mapfile -t COMPREPLY < <(compgen -f -X '!*.json' -- "$cur"; compgen -d -- "$cur")
}

complete -F _attnlab_cli attnlab-cli
