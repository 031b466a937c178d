#!/usr/bin/python3
"""Exports torchvision's shufflenet_v2_x1_0 (random weights, as
export_torchvision_onnx.py) with symbolic batch, height and width
(torch.onnx.export dynamic_axes): its channel shuffles and flatten become
Shape -> Gather -> Div -> Concat -> Reshape arithmetic on the input's size.
For checking Session::Resize / --input_shape on a real model:

  /usr/bin/python3 tests/inference/export_dynamic_hw_onnx.py /tmp/shufflenet_dynamic_hw.onnx
  rill model info /tmp/shufflenet_dynamic_hw.onnx            # lists the symbolic dims
  rill model compare /tmp/shufflenet_dynamic_hw.onnx --input_shape=input:2,3,160,192

Written outside third_party/models on purpose: onnx_vs_ort_test expects every
model there in its list.
"""
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_torchvision_onnx import lively_batch_norm  # noqa: E402


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/shufflenet_dynamic_hw.onnx"
    torch.manual_seed(0)
    model = torchvision.models.shufflenet_v2_x1_0(weights=None).eval()
    lively_batch_norm(model)
    x = torch.rand(1, 3, 224, 224, generator=torch.Generator().manual_seed(1)) * 2 - 1
    torch.onnx.export(model, x, path, input_names=["input"], output_names=["output"], opset_version=13,
                      dynamic_axes={"input": {0: "batch", 2: "height", 3: "width"}, "output": {0: "batch"}})
    print("exported", path)


if __name__ == "__main__":
    main()
