# Bash completion for gj2k (installed as share/bash-completion/completions/gj2k;
# or `source scripts/gj2k-completion.bash`): the commands, each command's
# options as its own help lists them, the values of --device, directories
# for the batch options that take one, and file names.
_gj2k() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local program=${COMP_WORDS[0]} commands
  commands=$("$program" --help 2>/dev/null |
             awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
  if [ "$COMP_CWORD" -eq 1 ]; then
    mapfile -t COMPREPLY < <(compgen -W "$commands help --help --version" -- "$cur")
    return
  fi
  local command=${COMP_WORDS[1]}
  if [ "$command" = help ]; then
    mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
    return
  fi
  case $prev in
    --device) mapfile -t COMPREPLY < <(compgen -W "auto gpu cpu" -- "$cur"); return ;;
    -ImgDir | -y | -in_dir | -batch_src | -a | -out_dir | --out-dir)
      mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
  esac
  if [[ $cur == -* ]]; then
    local options
    options=$("$program" help "$command" 2>/dev/null |
              awk '/^options:/ {on = 1; next} /^examples:/ {on = 0} on && /^  -/ {print $1}')
    mapfile -t COMPREPLY < <(compgen -W "$options" -- "$cur")
    return
  fi
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -F _gj2k gj2k
