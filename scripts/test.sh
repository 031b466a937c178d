#!/usr/bin/env bash
# Installs what is missing, then builds and runs every test in the tree.
# Ends with one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

log=$(mktemp)
status=0
run() {  # run bazel test with the given flags, tee the summary into $log
  bazel test --test_summary=short "$@" 2>&1 | tee -a "$log" | grep -E '^(//|ERROR|FAIL|Executed|INFO: Build)' || true
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
}
run //...
# The scheduler and the graph runtime must be clean under both sanitizers;
# the inference engine, its tests and the calculators under ASan too (not the
# OpenCV video tests: OpenCV's camera probing leaks in libusb and gphoto2).
# ONNX Runtime's own 14-byte static leak is suppressed (scripts/lsan_suppressions.txt).
if [ "${RILL_SANITIZERS:-1}" = 1 ]; then
  run --config=tsan //framework/...
  run --config=asan --test_env=LSAN_OPTIONS=suppressions=$PWD/scripts/lsan_suppressions.txt -- \
    //framework/... //inference/... //tests/inference/... //calculators/... -//calculators/video/...
fi
# Coverage-guided fuzzing of the model readers (libFuzzer + ASan, clang), a
# bounded time per fuzzer; each fuzzer counts as one test.
if [ "${RILL_FUZZ:-1}" = 1 ]; then
  bash scripts/fuzz.sh "${RILL_FUZZ_SECONDS:-60}" 2>&1 | tee -a "$log" | grep -vE '^[0-9]+ passed, [0-9]+ failed$'
  rcs=("${PIPESTATUS[@]}")
  [ "${rcs[0]}" -eq 0 ] || status=1
fi
passed=$(grep -cE '^//\S+\s+(\(cached\) )?PASSED' "$log" || true)
failed=$(grep -cE '^//\S+\s+(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|FLAKY|INCOMPLETE)' "$log" || true)
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi  # build error
rm -f "$log"
echo "${passed} passed, ${failed} failed"
[ "$status" -eq 0 ]
