#!/usr/bin/env bash
# Coverage-guided fuzzing of the model readers and the graph-config reader:
# builds the libFuzzer targets of tests/inference/fuzz and tests/fuzz with
# clang (bazel --config=asan: ASan and libFuzzer's edge counters, the fuzzers
# linked with -fsanitize=fuzzer) in the ASan output base that scripts/test.sh's
# ASan run uses (scripts/asan_output_base.sh), so after that run only the
# fuzzers' own files compile; and runs each for a bounded time over a seed
# corpus of real models. Any crash, ASan report, leak, timeout or out-of-memory fails it; the
# offending input is saved under fuzz-artifacts/ (add it to the gcc fuzz tests
# as a regression case: tests/inference/fuzz/regressions/{tflite,onnx}/,
# tests/fuzz/regressions/).
#
#   scripts/fuzz.sh [SECONDS_PER_FUZZER]        (default 60)
#   RILL_FUZZ_KEEP_CORPUS=DIR  keep the grown corpora in DIR/<fuzzer>/ (reused next time)
#
# Prints one bazel-style line per fuzzer ("//target  PASSED|FAILED ...", so
# scripts/test.sh counts them) and ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${1:-60}
output_base=${RILL_FUZZ_OUTPUT_BASE:-$(bash scripts/asan_output_base.sh)}
artifacts=$root/fuzz-artifacts
bazel_fuzz() { bazel --output_base="$output_base" "$@"; }

# package|fuzzer name|seed glob (from the repository root)|largest seed in
# bytes (bigger real models make each run slow without reaching new code)|
# regression folder.
FUZZERS=(
  "tests/inference/fuzz|tflite_reader_fuzzer|third_party/models/*.tflite|1200000|tests/inference/fuzz/regressions/tflite"
  "tests/inference/fuzz|onnx_reader_fuzzer|third_party/models/*.onnx|65536|tests/inference/fuzz/regressions/onnx"
  "tests/fuzz|graph_config_fuzzer|graphs/*/*.pbtxt|65536|tests/fuzz/regressions"
)

passed=0
failed=0
report() {  # package:target, PASSED|FAILED, detail
  printf '//%-48s %s %s\n' "$1" "$2" "$3"
  if [ "$2" = PASSED ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
finish() {
  bazel_fuzz shutdown >/dev/null 2>&1 || true  # its server would idle on a 2-core box
  echo "${passed} passed, ${failed} failed"
  [ "$failed" -eq 0 ]
  exit $?
}

if ! command -v clang-14 >/dev/null; then
  echo "fuzz: clang-14 not found (scripts/setup.sh installs clang-14 and libclang-rt-14-dev)"
  for f in "${FUZZERS[@]}"; do IFS='|' read -r pkg name _ <<<"$f"; report "$pkg:$name" FAILED "(no clang-14)"; done
  finish
fi

targets=()
for f in "${FUZZERS[@]}"; do IFS='|' read -r pkg name _ <<<"$f"; targets+=("//$pkg:$name"); done
build_log=$(mktemp)
if ! bazel_fuzz build --config=asan "${targets[@]}" >"$build_log" 2>&1; then
  grep -v 'Cannot export local symbol' "$build_log" | tail -40
  rm -f "$build_log"
  for f in "${FUZZERS[@]}"; do IFS='|' read -r pkg name _ <<<"$f"; report "$pkg:$name" FAILED "(build)"; done
  finish
fi
rm -f "$build_log"
bin=$(bazel_fuzz info --config=asan bazel-bin 2>/dev/null)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"
for f in "${FUZZERS[@]}"; do
  IFS='|' read -r pkg name glob max_seed regressions <<<"$f"
  seeds=$work/$name.seeds
  corpus=${RILL_FUZZ_KEEP_CORPUS:+$RILL_FUZZ_KEEP_CORPUS/$name}
  corpus=${corpus:-$work/$name.corpus}
  mkdir -p "$seeds" "$corpus"
  max_len=4096
  for m in $root/$glob; do
    [ -f "$m" ] || continue
    size=$(stat -c %s "$m")
    [ "$size" -le "$max_seed" ] || continue
    cp "$m" "$seeds/"
    [ "$size" -le "$max_len" ] || max_len=$size
  done
  # Regression inputs found earlier, and small models of ops the fetched
  # models lack (grouped convs, Slice, the channel shuffle, cubic and
  # antialiased Resize), start the corpus too.
  for r in "$regressions"/* tests/inference/fuzz/seeds/"${name%%_*}"/*; do
    [ -f "$r" ] && cp "$r" "$seeds/"
  done
  [ -n "$(ls -A "$seeds")" ] || echo "fuzz: $name: no seeds ($glob; scripts/fetch_models.sh fetches the models), fuzzing from scratch"
  log=$work/$name.log
  start=$(date +%s)
  # -timeout: one input may not run longer; -rss_limit_mb also caps single
  # mallocs; leaks are reported (ASan detect_leaks) and fail the run.
  # RILL_FUZZ_ROOT: where the graph fuzzer finds the shipped subgraphs.
  (cd "$work" && RILL_FUZZ_ROOT=$root ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 "$bin/$pkg/$name" \
     -max_total_time="$seconds" -timeout=30 -rss_limit_mb=3072 -max_len="$max_len" \
     -print_final_stats=1 -artifact_prefix="$artifacts/$name-" "$corpus" "$seeds") >"$log" 2>&1
  rc=$?
  runs=$(grep -oE '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
  if [ "$rc" -eq 0 ]; then
    report "$pkg:$name" PASSED "in $(($(date +%s) - start))s (libFuzzer+ASan, ${runs:-?} inputs)"
  else
    grep -E 'ERROR|SUMMARY|Test unit written|^ +#[0-9]+ ' "$log" | head -40
    report "$pkg:$name" FAILED "(libFuzzer exit $rc; input saved under fuzz-artifacts/)"
  fi
done
finish
