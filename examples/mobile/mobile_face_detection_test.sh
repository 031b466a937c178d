#!/usr/bin/env bash
# The mobile demo end to end: the astronaut portrait (one face, where the
# face is) and the first 10 frames of a video clip (each frame printed with
# its latency, then the summary). Built for aarch64 it runs under
# qemu-aarch64 (bazel/toolchains/aarch64/qemu.sh, which bazel's --run_under
# hands this script; the binary is run through it here too).
set -uo pipefail
bin=examples/mobile/mobile_face_detection
run=()
case "$(od -An -tx1 -j18 -N2 "$bin" | tr -d ' ')" in
  b700) [ "$(uname -m)" = aarch64 ] || run=(bazel/toolchains/aarch64/qemu.sh) ;;
esac
fail() { echo "FAIL: $*"; exit 1; }
for f in third_party/models/face_detection_short_range.tflite third_party/media/astronaut.png third_party/media/vtest.avi; do
  [ -e "$f" ] || fail "$f is missing: run scripts/fetch_models.sh"
done

out=$("${run[@]}" "$bin" --input=third_party/media/astronaut.png 2>&1) || fail "image run: $out"
echo "$out"
grep -q '^frame 0: 1 face(s), [0-9.]* ms$' <<<"$out" || fail "the astronaut's face was not found once"
# Her face: box from x ~0.35, y ~0.16, 0.19 wide (tests/solutions/face_detection_test.cc).
grep -Eq 'face score 0\.(8|9)[0-9]* box x 0\.3[3-6][0-9] y 0\.1[4-8][0-9] w 0\.1[6-9][0-9]' <<<"$out" ||
  fail "the face box is not where her face is"

out=$("${run[@]}" "$bin" --input=third_party/media/vtest.avi --max_frames=10 2>&1) || fail "video run: $out"
echo "$out"
[ "$(grep -c '^frame [0-9]*: [0-9]* face(s), [0-9.]* ms$' <<<"$out")" -eq 10 ] || fail "not 10 frames with latency"
grep -q '^frames: 10, latency ms: mean ' <<<"$out" || fail "no latency summary"

# A missing input is an error, not a crash.
"${run[@]}" "$bin" --input=/nonexistent.png >/dev/null 2>&1 && fail "a missing image was accepted"
echo PASS
