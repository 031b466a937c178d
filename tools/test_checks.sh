# Checks shared by the rill command's shell tests (sourced from the runfiles
# root or the repository root). Each check counts into $passed / $failed;
# the test ends with `finish`.
passed=0
failed=0

# check_rc NAME EXPECTED_RC COMMAND...: runs COMMAND (CHECK_TIMEOUT seconds
# at most, default 300, so that a command that blocks fails instead of
# hanging), keeps its stdout+stderr in $OUT.
check_rc() {
  local name=$1 want=$2
  shift 2
  OUT=$(timeout "${CHECK_TIMEOUT:-300}" "$@" 2>&1 </dev/null)
  local rc=$?
  if [[ $rc -ne $want ]]; then
    echo "FAIL $name: exit $rc, wanted $want (124: timed out); output:"
    echo "$OUT" | sed 's/^/    /'
    failed=$((failed + 1))
    return 1
  fi
  passed=$((passed + 1))
}
# expect NAME PATTERN: $OUT contains PATTERN (grep -E).
expect() {
  if echo "$OUT" | grep -Eq -- "$2"; then
    passed=$((passed + 1))
  else
    echo "FAIL $1: output lacks /$2/; output:"
    echo "$OUT" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
}
# expect_not NAME PATTERN: $OUT lacks PATTERN.
expect_not() {
  if echo "$OUT" | grep -Eq -- "$2"; then
    echo "FAIL $1: output has /$2/; output:"
    echo "$OUT" | sed 's/^/    /'
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}
