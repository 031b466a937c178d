#!/usr/bin/python3
"""PyTorch on the GPU, the peer of our OpenCL backend (benchmarks/gpu/run.sh):
batch 1, fp32 with TF32 off, eager and CUDA-graph replay, the same
torchvision architectures (random weights). Also exports each model to ONNX
(the TorchScript exporter, opset 17) for our engine to load.

  python3 torch_bench.py OUT_DIR RUNS  ->  OUT_DIR/NAME.onnx, JSON lines on stdout
"""
import json
import statistics
import sys
import time

import torch
import torchvision

OUT = sys.argv[1]
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 200
MODELS = ["mobilenet_v2", "resnet18", "squeezenet1_1", "resnet50"]

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True


def timed(fn):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), min(times)


for name in MODELS:
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    kwargs = {"dynamo": False} if "dynamo" in torch.onnx.export.__code__.co_varnames else {}
    torch.onnx.export(model, x, f"{OUT}/{name}.onnx", opset_version=17, input_names=["input"],
                      output_names=["output"], **kwargs)
    model = model.cuda()
    xc = x.cuda()
    with torch.no_grad():
        eager = timed(lambda: model(xc))
        static_in = xc.clone()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                model(static_in)
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_out = model(static_in)
        replay = timed(graph.replay)
    print(json.dumps({"model": name, "eager_ms": eager[0], "eager_min_ms": eager[1], "graph_ms": replay[0],
                      "graph_min_ms": replay[1], "device": torch.cuda.get_device_name(0)}), flush=True)
