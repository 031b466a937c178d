#!/usr/bin/env bash
# Installs what is missing, then builds and runs every test in the tree.
# Ends with one line: "N passed, N failed, N skipped", counting test cases
# (gtest's, from each target's test.xml; a fuzzer counts as one), once per
# configuration they ran under (plain, aarch64 under qemu, TSan, ASan). Skipped cases are listed
# by name. Under CI=true a test that would skip for want of a model, the
# media, ONNX Runtime or an OpenCL device fails instead (tests/.../test_util.h).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

log=$(mktemp)
cases=$(mktemp)
status=0
run() {  # run bazel test with the given flags (the first names the configuration); count the cases
  local config=$1
  shift
  local one
  one=$(mktemp)
  # The aarch64 cross build keeps an output base of its own, so neither
  # tree's outputs or analysis cache are thrown away by the other.
  # The clang ASan build has one too (scripts/asan_output_base.sh), shared
  # with scripts/fuzz.sh, whose fuzzers then reuse its objects.
  local startup=()
  [ "$config" = aarch64 ] && startup=(--output_base="$HOME/.cache/bazel-aarch64")
  [ "$config" = asan ] && startup=(--output_base="$(bash scripts/asan_output_base.sh)")
  local t0=$SECONDS
  # Read bazel's exit status before anything else runs: under pipefail a
  # trailing `|| true` would replace PIPESTATUS with its own (a failing test
  # went uncounted in the exit status that way).
  bazel "${startup[@]}" test --test_summary=short "$@" 2>&1 | tee -a "$log" "$one" | grep -E '^(//|ERROR|FAIL|Executed|INFO: Build)'
  local rcs=("${PIPESTATUS[@]}")
  [ "${rcs[0]}" -eq 0 ] || status=1
  python3 scripts/count_cases.py "$one" "$config" >>"$cases"
  rm -f "$one"
  echo "# $config: $((SECONDS - t0)) s"
}
run plain //...
# The aarch64 cross build (--config=aarch64: Debian's g++-aarch64-linux-gnu,
# the arm64 multiarch libraries) and the ARM subset under qemu-aarch64
# -cpu max (bazel/toolchains/aarch64/qemu.sh; docs/arm.md says which test
# proves which path): the NEON/fp16 kernels against the reference, the
# MediaPipe models against the x86 build's outputs, the framework, the
# calculators, face detection end to end and the mobile demo on a clip.
# Without the cross compiler or qemu this fails (setup.sh installs them).
# Two cases of face_detection_test are left to the x86 run (each minutes
# under emulation: a 270-frame video and the desktop live graph); the
# graph, the detector and the video decoder stay covered on ARM by its other
# cases and by the mobile demo's clip.
# The GPU cases of inference_calculator_test are left to the x86 run too:
# no OpenCL or Vulkan device exists under emulation (PoCL and lavapipe are
# installed for amd64 only).
run aarch64 --config=aarch64 \
  --test_filter=-*MegamindVideoGivesDetectionsFrameAfterFrame:*DesktopLiveGraphDrawsTheFaces:*GpuDelegateRunsOnOpenCl:*VulkanBackendAndThreeBackends:*ReportsTheBackendOfItsLayers -- \
  //tests/inference:arm64_kernels_test //tests/inference:mediapipe_golden_test \
  //tests/inference:ref_kernels_test //tests/inference:cpu_kernels_test \
  //framework/... //calculators/... //tests/solutions:face_detection_test \
  //examples/mobile:mobile_face_detection_test
# The scheduler and the graph runtime must be clean under both sanitizers;
# the inference engine, its tests and the calculators under ASan too (not the
# OpenCV video tests: OpenCV's camera probing leaks in libusb and gphoto2).
# ASan builds with clang (.bazelrc's --config=asan) in the output base that
# scripts/fuzz.sh then builds the fuzzers in. Two tests are left to the plain
# run: vulkan_test (Mesa lavapipe's shader compiler under ASan's allocator
# took 750 s, a quarter of the phase; the Vulkan backend's host code stays
# under ASan through vulkan_unavailable_test and the calculators' GPU cases)
# and zero_allocation_test (it counts allocations, which ASan does not change;
# the same models run under ASan in mediapipe_models_test and onnx_models_test).
# ONNX Runtime's own 14-byte static leak is suppressed (scripts/lsan_suppressions.txt).
# inference_calculator_test runs in an invocation of its own with
# use_tls=0: LeakSanitizer's thread suspender crashed ("Tracer caught signal
# 11") reading the thread-local storage of PoCL's threads at the exit of its
# OpenCL test, every run under Bazel's sandbox; none of our code keeps heap
# pointers only in thread-local variables (x86: ints), so not scanning TLS
# there hides no leak of ours. (For every test it would: OpenCV keeps its
# allocations in TLS, and 13 tests then report them as leaks.)
if [ "${RILL_SANITIZERS:-1}" = 1 ]; then
  run tsan --config=tsan //framework/...
  run asan --config=asan --test_env=LSAN_OPTIONS=suppressions=$PWD/scripts/lsan_suppressions.txt -- \
    //framework/... //inference/... //tests/inference/... //calculators/... -//calculators/video/... \
    -//calculators/inference:inference_calculator_test -//tests/inference:vulkan_test \
    -//tests/inference:zero_allocation_test
  run asan --config=asan --test_env=LSAN_OPTIONS=suppressions=$PWD/scripts/lsan_suppressions.txt:use_tls=0 \
    //calculators/inference:inference_calculator_test
fi
# Coverage-guided fuzzing of the model readers and the graph-config reader
# (libFuzzer + ASan, clang), a
# bounded time per fuzzer; each fuzzer counts as one test.
if [ "${RILL_FUZZ:-1}" = 1 ]; then
  t0=$SECONDS
  bash scripts/fuzz.sh "${RILL_FUZZ_SECONDS:-60}" 2>&1 | tee -a "$log" | grep -vE '^[0-9]+ passed, [0-9]+ failed$'
  rcs=("${PIPESTATUS[@]}")
  [ "${rcs[0]}" -eq 0 ] || status=1
  echo "# fuzz: $((SECONDS - t0)) s"
fi
# The reliability run (scripts/reliability.sh) for a short time: the face
# pipeline over a looped video, flat memory after warm-up, a clean SIGINT
# stop. It counts as one case. An hour is the real thing: run it by hand.
if [ "${RILL_RELIABILITY:-1}" = 1 ]; then
  bash scripts/reliability.sh "${RILL_RELIABILITY_SECONDS:-60}" 5 2>&1 | tee -a "$log" | tail -4
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
grep '^# skipped: ' "$cases" | sed 's/^# /  /'
read -r passed failed skipped < <(grep -v '^#' "$cases" | awk '{p += $3; f += $4; s += $5} END {print p + 0, f + 0, s + 0}')
# Each fuzzer is one case (scripts/fuzz.sh's report lines).
passed=$((passed + $(grep -cE '^//tests/(inference/)?fuzz:\S+\s+PASSED' "$log" || true)))
failed=$((failed + $(grep -cE '^//tests/(inference/)?fuzz:\S+\s+FAILED' "$log" || true)))
passed=$((passed + $(grep -cE '^//scripts:reliability PASSED' "$log" || true)))
failed=$((failed + $(grep -cE '^//scripts:reliability FAILED' "$log" || true)))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi  # a build error
rm -f "$log" "$cases"
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
