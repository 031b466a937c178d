#!/usr/bin/python3
"""Golden data for the ONNX importer: exports torchvision CNNs to ONNX with a
fixed seed (random weights; nothing is downloaded) and saves one input and
PyTorch's output beside each model as raw little-endian float32:

  third_party/models/<name>.onnx
  third_party/models/<name>.input.f32    (1x3x224x224)
  third_party/models/<name>.output.f32   (1x1000)

Needs Debian's python3-torch, python3-torchvision (scripts/fetch_models.sh
calls it when they are installed). Skips models already exported.
"""
import os
import sys

import torch
import torchvision

OUT = sys.argv[1] if len(sys.argv) > 1 else "third_party/models"
MODELS = ["mobilenet_v2", "resnet18", "resnet50", "squeezenet1_1"]


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in MODELS:
        path = os.path.join(OUT, name + ".onnx")
        if os.path.exists(path) and os.path.exists(os.path.join(OUT, name + ".output.f32")):
            continue
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None).eval()
        x = torch.rand(1, 3, 224, 224, generator=torch.Generator().manual_seed(1)) * 2 - 1
        with torch.no_grad():
            y = model(x)
        torch.onnx.export(model, x, path, input_names=["input"], output_names=["output"], opset_version=13,
                          do_constant_folding=True)
        x.numpy().astype("<f4").tofile(os.path.join(OUT, name + ".input.f32"))
        y.numpy().astype("<f4").tofile(os.path.join(OUT, name + ".output.f32"))
        print("exported", path)


if __name__ == "__main__":
    main()
