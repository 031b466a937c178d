#!/usr/bin/env bash
# A reliability run anyone can repeat: the face detection pipeline over a
# looped video for SECONDS (default one hour), sampling resident memory and
# per-frame latency every REPORT seconds (`rill run --loop --report_every`),
# then a clean Ctrl-C (SIGINT) stop.
#
#   scripts/reliability.sh [SECONDS] [REPORT_SECONDS]     (defaults 3600, 30)
#   RILL_RELIABILITY_GRAPH=graphs/...pbtxt RILL_RELIABILITY_VIDEO=file.avi  (optional)
#
# Pass line: after warm-up (the first fifth of the run) the resident memory
# stays flat: the samples of the last third of the rest are no higher than
# those of its first third: their highest or their median at most
# max(4 MiB, 2%) above. A leak climbs, raising both; the allocator's working
# set swings by a few MiB from sample to sample (105.1-112.7 MiB within one
# 60-s run of the face pipeline), which with three samples a third moved a
# median by 5.3 MiB while the highest rose 1.1 (CI, 2026-11-27);
# the run ends by the signal with exit 0 and a summary saying "interrupted";
# and frames kept flowing (every interval after warm-up delivered frames).
# Prints every sample, the CPU, the command, and one line
# "//scripts:reliability PASSED|FAILED ..." (scripts/test.sh counts it).
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-3600}
every=${2:-30}
graph=${RILL_RELIABILITY_GRAPH:-graphs/demo/face_detection_file.pbtxt}
video=${RILL_RELIABILITY_VIDEO:-third_party/media/Megamind.avi}
verdict() {  # PASSED|FAILED detail
  echo "//scripts:reliability $1 $2"
  [ "$1" = PASSED ]
  exit $?
}
for f in "$graph" "$video" third_party/models/face_detection_short_range.tflite; do
  [ -f "$f" ] || verdict FAILED "($f missing: scripts/setup.sh fetches the models and media)"
done
if ! bazel build //tools:rill >/dev/null 2>&1; then
  bazel build //tools:rill 2>&1 | tail -20
  verdict FAILED "(build)"
fi
rill=$(bazel info bazel-bin 2>/dev/null)/tools/rill
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "reliability: $graph on $video, looped, ${seconds}s, a sample every ${every}s ($cpu, $(nproc) cores)"
echo "command: $rill run $graph --input=$video --loop --report_every=$every --json"
"$rill" run "$graph" --input="$video" --loop --report_every="$every" --json >"$log.out" 2>"$log" &
pid=$!
sleep "$seconds"
kill -INT "$pid" 2>/dev/null
# The frames in flight finish and the summary is printed; a run that does
# not stop within a minute is a hang.
for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
if kill -0 "$pid" 2>/dev/null; then
  kill -KILL "$pid"
  verdict FAILED "(did not stop within 60 s of SIGINT)"
fi
wait "$pid"
rc=$?
summary=$(cat "$log.out")
rm -f "$log.out"
python3 - "$log" "$rc" "$summary" "$seconds" <<'PY'
import json, sys
log, rc, summary, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
samples, other = [], []
for line in open(log):
    line = line.strip()
    try:
        samples.append(json.loads(line)["report"])
    except (ValueError, KeyError, TypeError):
        if line:
            other.append(line)
print(f"{'t (s)':>8} {'frames':>9} {'fps':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'RSS MiB':>8} {'passes':>6}")
for s in samples:
    print(f"{s['t_s']:8.0f} {s['frames']:9d} {s['fps']:7.1f} {s['p50_ms']:8.2f} {s['p99_ms']:8.2f} "
          f"{s['max_ms']:8.2f} {s['rss_mib']:8.1f} {s['passes']:6d}")
for line in other[-5:]:
    print("  " + line)
problems = []
if rc != 0:
    problems.append(f"exit {rc}")
try:
    end = json.loads(summary)
    if not end.get("interrupted"):
        problems.append("the summary does not say interrupted")
    print(f"summary: {end['frames_in']} frames, {end['fps']:.1f} fps, latency p50 {end['latency_ms']['p50']:.2f} ms, "
          f"p99 {end['latency_ms']['p99']:.2f} ms, max {end['latency_ms']['max']:.2f} ms")
except (ValueError, KeyError):
    problems.append("no JSON summary: " + summary[:200])
warm = [s for s in samples if s["t_s"] > seconds / 5]
if len(warm) < 2:
    problems.append(f"only {len(warm)} samples after warm-up")
else:
    rss = [s["rss_mib"] for s in warm]
    third = max(1, len(rss) // 3)
    first, last = sorted(rss[:third]), sorted(rss[-third:])
    median = lambda v: v[len(v) // 2]
    allowed = max(4.0, 0.02 * median(first))
    grow_max, grow_median = last[-1] - first[-1], median(last) - median(first)
    print(f"RSS after warm-up: {min(rss):.1f} to {max(rss):.1f} MiB; first third max {first[-1]:.1f} median "
          f"{median(first):.1f}, last third max {last[-1]:.1f} median {median(last):.1f} (allowed growth {allowed:.1f})")
    if grow_max > allowed and grow_median > allowed:
        problems.append(f"RSS grew after warm-up (max +{grow_max:.1f} MiB, median +{grow_median:.1f} MiB)")
    stalled = [s["t_s"] for s in warm if s["fps"] <= 0]
    if stalled:
        problems.append(f"no frames in the intervals ending at {stalled} s")
if problems:
    print("//scripts:reliability FAILED (" + "; ".join(problems) + ")")
    sys.exit(1)
print(f"//scripts:reliability PASSED ({len(samples)} samples over {seconds:.0f} s, flat RSS)")
PY
