#!/bin/bash
# The `rill ...` commands that graph files document in their comments, e.g.
#   #   rill run graphs/demo/face_detection_file.pbtxt \
#   #       --input=third_party/media/Megamind.avi --output=out/faces.mp4
# must work: the graph each names must exist and pass `rill validate`, and
# each --flag must be one that `rill help COMMAND` documents (running the
# commands themselves would need the models and media, and take minutes).
# Also: no graph file draws a `rill validate` warning (options a node's
# calculator does not read).
# Runs from the runfiles root (bazel test) or the repository root after
# `bazel build //tools:rill`.
set -u
if [[ -x tools/rill ]]; then RILL=tools/rill; else RILL=bazel-bin/tools/rill; fi
passed=0
failed=0
declare -A help_of validated  # `rill help CMD` by CMD; `rill validate` output of graphs that passed, by path
fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}

mapfile -t graph_files < <(find -L graphs -name '*.pbtxt' | sort)
if [[ ${#graph_files[@]} -eq 0 ]]; then
  echo "FAIL no graph files under graphs/"
  exit 1
fi
commands=0
for file in "${graph_files[@]}"; do
  # Comment lines "#   rill CMD ..." and their "\"-continued lines, joined.
  mapfile -t lines < <(awk '
    /^#[ \t]+rill[ \t]/ || cont {
      line = $0; sub(/^#[ \t]*/, "", line)
      cont = sub(/[ \t]*\\$/, "", line)
      cmd = cmd (cmd == "" ? "" : " ") line
      if (!cont) { print cmd; cmd = "" }
      next
    }' "$file")
  for line in "${lines[@]}"; do
    commands=$((commands + 1))
    read -r -a words <<< "$line"
    sub=${words[1]:-}
    where="$file: \"$line\""
    # One `rill help` per command (each rill start-up costs about half a
    # second of dynamic linking: OpenCV's libraries).
    if [[ -z ${help_of[$sub]+set} ]]; then
      help_of[$sub]=$($RILL help "$sub" 2>/dev/null) || help_of[$sub]=""
    fi
    help=${help_of[$sub]}
    if [[ -z $help ]]; then
      fail "$where: no rill command \"$sub\""
      continue
    fi
    graph=""
    for word in "${words[@]:2}"; do
      if [[ $word == --* ]]; then
        flag=${word%%=*}
        if grep -Eq -- "(^|[[ ])$flag([]=[ ]|$)" <<< "$help"; then
          passed=$((passed + 1))
        else
          fail "$where: rill $sub has no flag $flag (rill help $sub)"
        fi
      elif [[ -z $graph && ( $word == *.pbtxt || $word == *.binarypb ) ]]; then
        graph=$word
      fi
    done
    case $sub in
      validate|dot|run)
        if [[ -z $graph ]]; then
          fail "$where: names no graph file"
        elif [[ ! -f $graph ]]; then
          fail "$where: $graph does not exist"
        elif [[ -n ${validated[$graph]+set} ]]; then
          passed=$((passed + 1))
        elif out=$(timeout 20 $RILL validate "$graph" 2>&1); then
          validated[$graph]=$out
          passed=$((passed + 1))
        else
          fail "$where: rill validate $graph: $out"
        fi
        ;;
    esac
  done
done
# No shipped graph carries an options block its calculator does not read.
for file in "${graph_files[@]}"; do
  if [[ -n ${validated[$file]+set} ]]; then
    out=${validated[$file]}
  else
    out=$(timeout 20 $RILL validate "$file" 2>&1)
  fi
  if grep -q ": warning: " <<< "$out"; then
    fail "$file: $(grep ': warning: ' <<< "$out")"
  else
    passed=$((passed + 1))
  fi
done
if [[ $commands -eq 0 ]]; then
  fail "no '#   rill ...' command lines found in ${#graph_files[@]} graph files"
fi
echo "$commands commands in ${#graph_files[@]} graph files: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
