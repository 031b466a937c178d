#!/usr/bin/env python3
"""Compares the packets two `rill run --dump_stream=...` runs printed.

usage: compare_dumps.py A.txt B.txt STREAM_A[=STREAM_B]... [--atol=X]

Each STREAM_A (in A) is compared with STREAM_B (in B; the same name when no
"=" is given), timestamp by timestamp. A timestamp with no packet and one
whose packet is empty (an empty list or object) both mean "nothing found",
so a graph that sends empty vectors matches one that sends none. Numbers
match within --atol (default 1e-5); everything else exactly. Prints one line
per stream and exits 1 on any mismatch.
"""
import json
import sys


def load(path):
    streams = {}
    decoder = json.JSONDecoder()
    with open(path) as f:
        for line in f:
            start = line.find('{"stream":')
            if start < 0:
                continue
            try:
                # raw_decode: the run's summary may follow on the same line.
                packet, _ = decoder.raw_decode(line[start:])
            except json.JSONDecodeError:
                continue
            streams.setdefault(packet["stream"], {})[packet["timestamp"]] = packet["value"]
    return streams


def empty(v):
    return v is None or v == [] or v == {}


def diff(a, b, atol, where):
    """Returns (max numeric difference, first mismatch description or None)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return 0.0, None if a == b else f"{where}: {a} != {b}"
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        d = abs(a - b)
        return d, None if d <= atol else f"{where}: {a} != {b}"
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return 0.0, f"{where}: {len(a)} vs {len(b)} elements"
        worst, first = 0.0, None
        for i, (x, y) in enumerate(zip(a, b)):
            d, m = diff(x, y, atol, f"{where}[{i}]")
            worst = max(worst, d)
            first = first or m
        return worst, first
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return 0.0, f"{where}: fields {sorted(set(a) ^ set(b))} in one only"
        worst, first = 0.0, None
        for k in a:
            d, m = diff(a[k], b[k], atol, f"{where}.{k}")
            worst = max(worst, d)
            first = first or m
        return worst, first
    return 0.0, None if a == b else f"{where}: {a!r} != {b!r}"


def main(argv):
    atol = 1e-5
    args = []
    for a in argv[1:]:
        if a.startswith("--atol="):
            atol = float(a[len("--atol="):])
        else:
            args.append(a)
    if len(args) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    a_streams, b_streams = load(args[0]), load(args[1])
    ok = True
    for spec in args[2:]:
        name_a, _, name_b = spec.partition("=")
        name_b = name_b or name_a
        pa = {t: v for t, v in a_streams.get(name_a, {}).items() if not empty(v)}
        pb = {t: v for t, v in b_streams.get(name_b, {}).items() if not empty(v)}
        label = name_a if name_a == name_b else f"{name_a} = {name_b}"
        if not pa and not pb:
            # Nothing to compare (e.g. no left hand in the video): not a
            # mismatch, but say so.
            print(f"{label}: no results in either run (nothing to compare)")
            continue
        worst, problems = 0.0, []
        for t in sorted(set(pa) | set(pb)):
            if t not in pa or t not in pb:
                problems.append(f"t={t}: results in {'B' if t in pb else 'A'} only")
                continue
            d, m = diff(pa[t], pb[t], atol, f"t={t}")
            worst = max(worst, d)
            if m:
                problems.append(m)
        verdict = "same" if not problems else f"FAIL: {len(problems)} mismatch(es), first {problems[0]}"
        print(f"{label}: {len(set(pa) | set(pb))} timestamps with results, "
              f"max |diff| {worst:.3g}: {verdict}")
        ok = ok and not problems
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
