#!/usr/bin/python3
"""Sums ONNX Runtime's own profile (bench_engines --ort_profile=PREFIX writes
PREFIX_<date>.json) by op type, per run, to set beside the engine's
`rill model bench MODEL --profile`: where each engine spends a run.

usage: benchmarks/zoo/ort_profile_summary.py PROFILE.json [SKIP]

SKIP (default 3): the first runs left out (bench_engines' warm-up runs).
Prints one line per op type: nodes per run, ms per run, share.
"""
import collections
import json
import sys


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path = sys.argv[1]
    skip = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    try:
        with open(path) as f:
            events = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{path}: {e}", file=sys.stderr)
        return 1
    runs = [e for e in events if e.get("cat") == "Session" and e.get("name") == "model_run"]
    kept = runs[skip:]
    if not kept:
        print(f"{path}: {len(runs)} runs, none left after skipping {skip}", file=sys.stderr)
        return 1
    spans = [(r["ts"], r["ts"] + r["dur"]) for r in kept]
    time_us = collections.Counter()
    count = collections.Counter()
    for e in events:
        if e.get("cat") != "Node" or not e.get("name", "").endswith("_kernel_time"):
            continue
        if not any(a <= e["ts"] <= b for a, b in spans):
            continue
        op = e.get("args", {}).get("op_name", "?")
        time_us[op] += e["dur"]
        count[op] += 1
    n = len(kept)
    total = sum(time_us.values())
    print(f"{path}: {n} runs (first {skip} of {len(runs)} left out), "
          f"run {sum(r['dur'] for r in kept) / n / 1000:.2f} ms, kernels {total / n / 1000:.2f} ms")
    for op, us in time_us.most_common():
        print(f"{op:28s} {count[op] // n:5d} {us / n / 1000:9.2f} ms {100 * us / total:6.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
