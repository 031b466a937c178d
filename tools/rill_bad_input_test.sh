#!/bin/bash
# `rill` given a bad GRAPH or MODEL path (a directory, an empty file, a FIFO,
# /dev/null, a missing file, a graph without nodes): each command must print
# one error naming the path and exit 1, never crash or block. Also: `rill
# help CMD` works for every command `rill help` lists.
# Runs from the runfiles root (bazel test) or the repository root after
# `bazel build //tools:rill`.
#
# An unreadable file (chmod 000) is not tried: tests may run as root, who
# reads it anyway. Its open() error is reported like a missing file's.
set -u
if [[ -x tools/rill ]]; then RILL=tools/rill; else RILL=bazel-bin/tools/rill; fi
TMP=$(mktemp -d "${TEST_TMPDIR:-/tmp}/rill_bad_input.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
CHECK_TIMEOUT=10  # a command that blocks on a FIFO fails instead of hanging
source tools/test_checks.sh

mkdir "$TMP/a_dir.pbtxt"
: > "$TMP/empty.pbtxt"
mkfifo "$TMP/fifo.pbtxt"
printf '# only a comment\n' > "$TMP/no_nodes.pbtxt"
printf 'input_stream: "in"\noutput_stream: "in"\n' > "$TMP/streams_only.pbtxt"

# bad PATH PATTERN: what each command must say about PATH.
declare -A WHY=(
  ["$TMP/a_dir.pbtxt"]="is a directory"
  ["$TMP/empty.pbtxt"]="is empty"
  ["$TMP/fifo.pbtxt"]="is not a regular file"
  ["/dev/null"]="is not a regular file"
  ["$TMP/missing.pbtxt"]="No such file or directory"
)
for path in "${!WHY[@]}"; do
  why=${WHY[$path]}
  for cmd in "model info" "model bench" "validate" "run" "dot"; do
    name="$cmd $(basename "$path")"
    check_rc "$name" 1 $RILL $cmd "$path" || continue
    expect "$name names the file" "$path"
    expect "$name says why" "$why"
    expect_not "$name crash" "terminate|bad_alloc|Aborted|Segmentation"
    [[ $(echo "$OUT" | grep -c .) -le 1 ]] && passed=$((passed + 1)) || {
      echo "FAIL $name: more than one line:"; echo "$OUT" | sed 's/^/    /'
      failed=$((failed + 1)); }
  done
done
# The FIFO was never opened: a writer would still block (no reader).
check_rc "fifo has no reader" 124 timeout 1 sh -c "echo x > '$TMP/fifo.pbtxt'"

# A graph without nodes: an error unless --allow_empty.
for g in no_nodes streams_only; do
  for cmd in validate run; do
    check_rc "$cmd $g" 1 $RILL $cmd "$TMP/$g.pbtxt"
    expect "$cmd $g names the file" "$TMP/$g.pbtxt"
    expect "$cmd $g says why" "has no nodes.*--allow_empty"
  done
done
check_rc "validate --allow_empty" 0 $RILL validate --allow_empty "$TMP/no_nodes.pbtxt"
expect "validate --allow_empty" "OK: 0 nodes"
check_rc "run --allow_empty" 0 $RILL run --allow_empty "$TMP/no_nodes.pbtxt"
expect "run --allow_empty" "run finished"
# --allow_empty does not excuse a file that is not a graph file.
check_rc "validate --allow_empty dir" 1 $RILL validate --allow_empty "$TMP/a_dir.pbtxt"
check_rc "validate --allow_empty /dev/null" 1 $RILL validate --allow_empty /dev/null

# --- help: every command `rill help` lists has its own help ------------------
check_rc "help" 0 $RILL help
commands=$(echo "$OUT" | sed -n '/^commands:/,/^$/p' |
           grep -Eo '^  [a-z]+' | sort -u)
[[ $(echo "$commands" | wc -w) -ge 6 ]] && passed=$((passed + 1)) || {
  echo "FAIL help lists too few commands: $commands"; failed=$((failed + 1)); }
for cmd in $commands; do
  check_rc "help $cmd" 0 $RILL help $cmd
  expect "help $cmd usage" "usage: rill $cmd"
  check_rc "$cmd --help" 0 $RILL $cmd --help
  expect "$cmd --help usage" "usage: rill $cmd"
done
check_rc "help unknown" 2 $RILL help frobnicate
expect "help unknown" 'no help for "frobnicate"'

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
