#!/usr/bin/python3
"""The model zoo: torchvision's architectures exported to ONNX (random
weights, fixed seed; export_zoo.py), each run on the engine and on ONNX
Runtime 1.30 on the same input (`rill model compare`: PASS within 1e-4 of
each output's range; a detector that fails only in its detections' order is
then matched as a set against ONNX Runtime's, see match_detections),
then timed beside ONNX Runtime at 1 and 2 threads
(bench_engines, interleaved runs) for those that pass. Prints one Markdown
table, with the machine and the command.

usage: /usr/bin/python3 benchmarks/zoo/model_zoo.py [--dir=DIR] [--models=a,b]
           [--threads=1,2] [--runs=N] [--clock=wall|cpu] [--no_bench]
  --dir      where the exports are kept (default ~/.cache/rill-zoo); reused
  --models   a subset of export_zoo.ZOO (default: all)
  --clock    bench_engines' clock: wall (default) or cpu, each run's process
             CPU time (for 1 thread on a busy shared machine)
  --no_bench only import and compare

Runs the binaries of the checkout it is in (its bazel-bin, so a worktree
runs its own build) after `bazel build //tools:rill
//inference/tools:bench_engines`. Exports are cached in --dir by name and
recipe (export_zoo.recipe): a changed recipe exports again. Exit status 0
when every model that exports passes, 1 otherwise (a model that does not
export with this PyTorch is a NO EXPORT row with its error, not a failure).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export_zoo  # noqa: E402

# The binaries of the checkout this script is in (its bazel-bin link, so a
# worktree runs its own build), wherever it is run from.
ROOT = os.path.dirname(os.path.dirname(HERE))
RILL = os.path.join(ROOT, "bazel-bin", "tools", "rill")
BENCH = os.path.join(ROOT, "bazel-bin", "inference", "tools", "bench_engines")


def first_line(text):
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line
    return ""


def compare(path, input_path):
    """(verdict, detail): PASS/FAIL with the worst relative error, or
    UNSUPPORTED/ERROR with the engine's first line of explanation."""
    r = subprocess.run([RILL, "model", "compare", path, "--input=" + input_path, "--json", "--threads=2"],
                       capture_output=True, text=True, timeout=1800, cwd=ROOT)
    out = r.stdout.strip()
    if out.startswith("{"):
        j = json.loads(out)
        worst = max((o["max_rel_error"] for o in j["outputs"]), default=0.0)
        return ("PASS" if j["pass"] else "FAIL"), "max rel error %.2g" % worst
    err = (r.stderr or r.stdout).strip()
    if "UNIMPLEMENTED" in err:
        lines = [l.strip() for l in err.splitlines()[1:] if "unsupported" in l]
        ops = sorted({l.split("(")[1].split(")")[0] for l in lines if "(" in l})
        return "UNSUPPORTED", "ops: " + ", ".join(ops) if ops else first_line(err)
    return "ERROR", first_line(err)[:160]


def detections(arrays):
    """(boxes [N,4], labels [N], scores [N]) from a detector's outputs, told
    apart by shape and values (torchvision's order: boxes, labels, scores)."""
    boxes = [a.reshape(-1, 4) for a in arrays if a.ndim == 2 and a.shape[-1] == 4]
    flat = [a.reshape(-1) for a in arrays if a.ndim <= 1]
    if len(boxes) != 1 or len(flat) != 2:
        return None
    ints = [a for a in flat if a.size == 0 or (a == a.round()).all()]
    labels = ints[0] if len(ints) == 1 else flat[0]
    scores = flat[1] if labels is flat[0] else flat[0]
    return boxes[0], labels, scores


def match_detections(path, input_path, task):
    """For a detector that `rill model compare` fails in output order: the
    engine's detections against ONNX Runtime's as sets (`rill model compare
    --output_dir` writes both). Near-equal scores (random weights give many
    within 1e-6) make the order of TopK and of the sorted output rest on
    rounding, so two correct runs can list the same detections in another
    order. PASS when both have the same count and each of ONNX Runtime's
    detections has its own engine detection of the same label, with score
    and box within 1e-4 of their ranges."""
    import numpy as np
    import tempfile
    if task != "detection":
        return None
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([RILL, "model", "compare", path, "--input=" + input_path, "--output_dir=" + out,
                        "--threads=2"], capture_output=True, text=True, timeout=1800, cwd=ROOT)
        files = sorted(f for f in os.listdir(out) if f.endswith(".npy") and not f.endswith(".onnxruntime.npy"))
        ours = detections([np.load(os.path.join(out, f)) for f in files])
        ref = detections([np.load(os.path.join(out, f[:-4] + ".onnxruntime.npy")) for f in files])
    if ours is None or ref is None:
        return None
    if ours[2].size != ref[2].size:
        return "FAIL", "%d detections, ONNX Runtime %d" % (ours[2].size, ref[2].size)
    box_tol = 1e-4 * max(float(np.ptp(ref[0])) if ref[0].size else 0.0, 1e-6)
    score_tol = 1e-4 * max(float(np.ptp(ref[2])) if ref[2].size else 0.0, 1e-6)
    used = np.zeros(ours[2].size, dtype=bool)
    worst_box = worst_score = 0.0
    for i in range(ref[2].size):
        cand = np.where(~used & (ours[1] == ref[1][i]) & (np.abs(ours[2] - ref[2][i]) <= score_tol))[0]
        if cand.size == 0:
            return "FAIL", "ORT's detection %d (label %d, score %.6g) has no match" % (i, ref[1][i], ref[2][i])
        err = np.abs(ours[0][cand] - ref[0][i]).max(axis=1)
        if err.min() > box_tol:
            return "FAIL", "ORT's detection %d: nearest box off by %.3g" % (i, err.min())
        used[cand[int(err.argmin())]] = True
        worst_box = max(worst_box, float(err.min()))
        worst_score = max(worst_score, float(np.abs(ours[2][cand] - ref[2][i]).min()))
    return "PASS", "%d detections equal ORT's as a set (box err %.2g, score err %.2g)" % (
        ref[2].size, worst_box, worst_score)


def main():
    args = {"dir": os.path.expanduser("~/.cache/rill-zoo"), "models": "", "threads": "1,2", "runs": "10",
            "clock": "wall"}
    bench = True
    for a in sys.argv[1:]:
        if a == "--no_bench":
            bench = False
        elif a.startswith("--") and "=" in a and a[2:a.index("=")] in args:
            args[a[2:a.index("=")]] = a[a.index("=") + 1:]
        else:
            sys.exit(__doc__)
    names = [m for m in args["models"].split(",") if m] or list(export_zoo.ZOO)
    args["dir"] = os.path.abspath(args["dir"])  # the binaries run in ROOT (ONNX Runtime's path is relative)
    os.makedirs(args["dir"], exist_ok=True)
    rows = []
    for name in names:
        print("zoo: %s" % name, file=sys.stderr, flush=True)
        export_zoo.export(name, args["dir"])
        base = os.path.join(args["dir"], name)
        task = export_zoo.ZOO[name][0]
        if os.path.exists(base + ".export_error"):
            rows.append([name, task, "NO EXPORT", open(base + ".export_error").read().strip()[:160]])
            continue
        verdict, detail = compare(base + ".onnx", base + ".input.f32")
        if verdict == "FAIL":
            as_sets = match_detections(base + ".onnx", base + ".input.f32", task)
            if as_sets is not None:
                verdict, detail = as_sets[0], as_sets[1] + "; in order vs ORT: " + detail
        rows.append([name, task, verdict, detail])

    timing = {}
    passing = [r[0] for r in rows if r[2] == "PASS"]
    machine = ""
    if bench and passing:
        r = subprocess.run([BENCH, "--json", "--models=" + ",".join(passing), "--threads=" + args["threads"],
                            "--runs=" + args["runs"], "--clock=" + args["clock"], args["dir"]], capture_output=True, text=True,
                           cwd=ROOT)
        if r.stdout.strip().startswith("{"):
            j = json.loads(r.stdout)
            m = j["machine"]
            machine = "%s, %d CPUs, ONNX Runtime %s, %s time" % (m["cpu"], m["cpus"], j["onnxruntime"],
                                                                  "process CPU" if j.get("clock") == "cpu" else "wall")
            for row in j["onnx"]:
                timing[(row["model"], row["threads"])] = row
        else:
            print("bench_engines failed: " + first_line(r.stderr), file=sys.stderr)

    threads = [int(t) for t in args["threads"].split(",")]
    head = "| model | task | result | detail |" + "".join(
        " ours ms (%dt) | ORT ms (%dt) | ours/ORT (%dt) |" % (t, t, t) for t in threads)
    print("\n" + (machine or "machine: see /proc/cpuinfo") + "\n")
    print("```\n/usr/bin/python3 benchmarks/zoo/model_zoo.py " + " ".join(sys.argv[1:]) + "\n```\n")
    print(head)
    print("|" + "---|" * (4 + 3 * len(threads)))
    for name, task, verdict, detail in rows:
        cells = [name, task, verdict, detail.replace("|", "/")]
        for t in threads:
            row = timing.get((name, t))
            if row and row["ours"]["median_ms"] is not None:
                cells += ["%.2f" % row["ours"]["median_ms"],
                          "%.2f" % row["onnxruntime"]["median_ms"] if row["onnxruntime"]["median_ms"] else "n/a",
                          "%.2fx" % row["ours_over_onnxruntime"] if row["ours_over_onnxruntime"] else "n/a"]
            else:
                cells += ["", "", ""]
        print("| " + " | ".join(cells) + " |")
    counts = {}
    for r in rows:
        counts[r[2]] = counts.get(r[2], 0) + 1
    print("\n" + ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items())))
    return 0 if all(r[2] in ("PASS", "NO EXPORT") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
