#!/usr/bin/python3
"""The model zoo: torchvision's architectures exported to ONNX (random
weights, fixed seed; export_zoo.py), each run on the engine and on ONNX
Runtime 1.30 on the same input (`rill model compare`: PASS within 1e-4 of
each output's range), then timed beside ONNX Runtime at 1 and 2 threads
(bench_engines, interleaved runs) for those that pass. Prints one Markdown
table, with the machine and the command.

usage: /usr/bin/python3 benchmarks/zoo/model_zoo.py [--dir=DIR] [--models=a,b]
           [--threads=1,2] [--runs=N] [--no_bench]
  --dir      where the exports are kept (default ~/.cache/rill-zoo); reused
  --models   a subset of export_zoo.ZOO (default: all)
  --no_bench only import and compare

Run from the repository root after `bazel build //tools:rill
//inference/tools:bench_engines`. Exit status 0 when every model that
exports passes, 1 otherwise.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export_zoo  # noqa: E402

RILL = "bazel-bin/tools/rill"
BENCH = "bazel-bin/inference/tools/bench_engines"


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
                       capture_output=True, text=True, timeout=1800)
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


def main():
    args = {"dir": os.path.expanduser("~/.cache/rill-zoo"), "models": "", "threads": "1,2", "runs": "10"}
    bench = True
    for a in sys.argv[1:]:
        if a == "--no_bench":
            bench = False
        elif a.startswith("--") and "=" in a and a[2:a.index("=")] in args:
            args[a[2:a.index("=")]] = a[a.index("=") + 1:]
        else:
            sys.exit(__doc__)
    names = [m for m in args["models"].split(",") if m] or list(export_zoo.ZOO)
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
        rows.append([name, task, verdict, detail])

    timing = {}
    passing = [r[0] for r in rows if r[2] == "PASS"]
    machine = ""
    if bench and passing:
        r = subprocess.run([BENCH, "--json", "--models=" + ",".join(passing), "--threads=" + args["threads"],
                            "--runs=" + args["runs"], args["dir"]], capture_output=True, text=True)
        if r.stdout.strip().startswith("{"):
            j = json.loads(r.stdout)
            m = j["machine"]
            machine = "%s, %d CPUs, ONNX Runtime %s" % (m["cpu"], m["cpus"], j["onnxruntime"])
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
