#!/usr/bin/python3
"""Prints the GPU benchmark's table from run.sh's JSON lines."""
import json
import sys

ours = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
torch = {j["model"]: j for j in (json.loads(l) for l in open(sys.argv[2]) if l.strip())}
rows = {}
for r in ours:
    name = r["model"].rsplit("/", 1)[-1].split(".")[0]
    rows.setdefault(name, {})[(r["backend"], r["precision"])] = r["median_ms"]
print("| model | ours CPU (16 thr) | ours OpenCL fp32 | ours OpenCL fp16 | ours Vulkan fp32 | ours Vulkan fp16 | "
      "PyTorch eager | PyTorch CUDA graph | OpenCL fp32 / graph | Vulkan fp32 / graph | Vulkan fp16 / graph |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
fmt = lambda v: f"{v:.3f}" if isinstance(v, float) else "n/a"
for name, r in rows.items():
    t = torch.get(name, {})
    cl = r.get(("opencl", "fp32"))
    vk, vk16 = r.get(("vulkan", "fp32")), r.get(("vulkan", "fp16"))
    eager, graph = t.get("eager_ms"), t.get("graph_ms")
    ratio = lambda a, b: f"{a / b:.2f}x" if a and b else "n/a"
    print(f"| {name} | {fmt(r.get(('cpu', 'fp32')))} | {fmt(cl)} | {fmt(r.get(('opencl', 'fp16')))} | {fmt(vk)} | "
          f"{fmt(vk16)} | {fmt(eager)} | {fmt(graph)} | {ratio(cl, graph)} | {ratio(vk, graph)} | {ratio(vk16, graph)} |")
