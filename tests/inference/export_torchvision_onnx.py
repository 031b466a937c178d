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
# Architectures beyond the four benchmark models, for op coverage: squeeze-
# excitation, Hardswish as HardSigmoid * x, SiLU, channel shuffle with
# Slice, grouped convs.
EXTRA_MODELS = ["mobilenet_v3_small", "shufflenet_v2_x1_0", "efficientnet_b0", "regnet_y_400mf"]
# Models whose batch-norm statistics are re-drawn (lively_batch_norm) so that
# random weights still give outputs of useful range (MobileNetV2's default
# initialisation gave a span of 4e-9). Speed is unaffected (measured on the
# device: the same ratios to ONNX Runtime either way).
LIVELY = EXTRA_MODELS + ["mobilenet_v2"]


def lively_batch_norm(model):
    """Untrained torchvision models with zero-initialised last BNs and tiny
    classifier weights give near-constant outputs (EfficientNet's span 1e-13):
    a weak check. Random BN statistics and affine terms keep activations alive."""
    g = torch.Generator().manual_seed(2)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.copy_(torch.rand(m.num_features, generator=g) * 0.2 - 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=g) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(m.num_features, generator=g) * 0.5 + 0.75)
                m.bias.copy_(torch.rand(m.num_features, generator=g) * 0.2 - 0.1)
        elif isinstance(m, torch.nn.Linear):
            with torch.no_grad():
                m.weight.normal_(0.0, 1.0 / m.in_features ** 0.5, generator=g)


def resolve_constant_identities(path):
    """PyTorch writes Identity nodes over shared initializers; OpenCV DNN 4.6
    (a benchmark peer) rejects them. Replace each by a copy of the initializer."""
    import onnx
    m = onnx.load(path)
    inits = {t.name: t for t in m.graph.initializer}
    keep = []
    for n in m.graph.node:
        if n.op_type == "Identity" and n.input[0] in inits:
            t = onnx.TensorProto()
            t.CopyFrom(inits[n.input[0]])
            t.name = n.output[0]
            m.graph.initializer.append(t)
        else:
            keep.append(n)
    del m.graph.node[:]
    m.graph.node.extend(keep)
    onnx.save(m, path)


def write_opencv_copy(path, out_path):
    """A copy for OpenCV DNN 4.6 (benchmark peer only): Clip with constant
    min/max inputs rewritten to the pre-opset-11 attribute form it reads."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(path)
    consts = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    for n in m.graph.node:
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value":
                    consts[n.output[0]] = numpy_helper.to_array(a.t)
    for n in m.graph.node:
        if n.op_type == "Clip" and len(n.input) > 1:
            bounds = [float(consts[i]) if i else None for i in list(n.input[1:])]
            del n.input[1:]
            if len(bounds) > 0 and bounds[0] is not None:
                n.attribute.append(onnx.helper.make_attribute("min", bounds[0]))
            if len(bounds) > 1 and bounds[1] is not None:
                n.attribute.append(onnx.helper.make_attribute("max", bounds[1]))
    onnx.save(m, out_path)


class OpZoo(torch.nn.Module):
    """The ONNX ops torchvision's classifiers do not use, on odd shapes."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.dw = nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=8)
        self.deconv = nn.ConvTranspose2d(8, 5, 4, stride=2, padding=1)
        self.bn = nn.BatchNorm2d(5)
        self.prelu = nn.PReLU(5)
        self.fc = nn.Linear(10 * 6 * 5, 7)
        self.proj = nn.Parameter(torch.randn(10, 4))
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.5, 0.5)
            self.prelu.weight.uniform_(0.0, 0.5)

    def forward(self, x):
        F = torch.nn.functional
        y = F.leaky_relu(self.conv(x), 0.1)                  # 1x8x9x7
        y = F.hardswish(self.dw(y)) + F.hardsigmoid(y)
        z = self.prelu(self.bn(self.deconv(y)))               # 1x5x18x14
        z = F.interpolate(z, size=(11, 9), mode="bilinear", align_corners=False)
        c = torch.cat([torch.clamp(z, -0.5, 0.7), torch.sigmoid(z) - z / 3.0], dim=1)  # 1x10x11x9
        p = F.avg_pool2d(c, 3, stride=2, ceil_mode=True)       # 1x10x6x5 (last windows partial)
        m = F.max_pool2d(c, 2, stride=2, ceil_mode=True)       # 1x10x6x5
        out_softmax = torch.softmax(p * 3.0, dim=1)
        t = m.permute(0, 2, 3, 1)                              # 1x6x5x10
        out_fc = F.relu6(self.fc(torch.flatten(m, 1)))
        out_matmul = torch.matmul(t, self.proj).squeeze(0).unsqueeze(1)  # 6x1x5x4
        return out_softmax, out_fc, out_matmul


def export_op_zoo():
    path = os.path.join(OUT, "rill_op_zoo.onnx")
    if os.path.exists(path) and os.path.exists(os.path.join(OUT, "rill_op_zoo.output2.f32")):
        return
    torch.manual_seed(0)
    model = OpZoo().eval()
    x = torch.rand(1, 3, 17, 13, generator=torch.Generator().manual_seed(1)) * 2 - 1
    with torch.no_grad():
        outs = model(x)
    torch.onnx.export(model, x, path, input_names=["input"], output_names=["softmax", "fc", "matmul"],
                      opset_version=14)
    x.numpy().astype("<f4").tofile(os.path.join(OUT, "rill_op_zoo.input.f32"))
    for i, y in enumerate(outs):
        y.numpy().astype("<f4").tofile(os.path.join(OUT, "rill_op_zoo.output%d.f32" % i))
    print("exported", path)


def export_pad_graph():
    """Pad as opset 13 writes it (pads and value as inputs), which PyTorch's
    exporter only emits behind dynamic control flow; expected output by numpy."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    path = os.path.join(OUT, "rill_pad.onnx")
    if os.path.exists(path) and os.path.exists(os.path.join(OUT, "rill_pad.output0.f32")):
        return
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, size=(1, 3, 5, 4)).astype(np.float32)
    w = rng.uniform(-1, 1, size=(2, 3, 1, 1)).astype(np.float32)
    pads = np.array([0, 0, 1, 2, 0, 0, 2, 1], dtype=np.int64)  # N C H W begins, then ends
    graph = helper.make_graph(
        [helper.make_node("Conv", ["input", "w"], ["conv"]),
         helper.make_node("Pad", ["conv", "pads", "value"], ["padded"], mode="constant"),
         helper.make_node("Relu", ["padded"], ["output"])],
        "rill_pad",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 5, 4])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 2, 8, 7])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(pads, "pads"),
         numpy_helper.from_array(np.array(0.5, dtype=np.float32), "value")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    conv = np.einsum("nchw,oc->nohw", x, w[:, :, 0, 0])
    y = np.maximum(np.pad(conv, ((0, 0), (0, 0), (1, 2), (2, 1)), constant_values=0.5), 0)
    x.astype("<f4").tofile(os.path.join(OUT, "rill_pad.input.f32"))
    y.astype("<f4").tofile(os.path.join(OUT, "rill_pad.output0.f32"))
    print("exported", path)


class MultiTask(torch.nn.Module):
    """A multi-task model as people build them: one backbone (MobileNetV2's
    first 14 blocks, 96 channels at 1/16), a classification head (the rest
    of MobileNetV2 and its classifier) and a dense head (two convs and a 4x
    bilinear upsample, 21 classes at 1/4): the engine runs the heads on
    different backends at once."""

    def __init__(self):
        super().__init__()
        mnv2 = torchvision.models.mobilenet_v2(weights=None)
        lively_batch_norm(mnv2)
        self.backbone = mnv2.features[:14]
        self.cls_blocks = mnv2.features[14:]
        self.classifier = mnv2.classifier
        nn = torch.nn
        self.dense = nn.Sequential(nn.Conv2d(96, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
                                   nn.Conv2d(128, 128, 3, padding=1), nn.ReLU(), nn.Conv2d(128, 21, 1))
        lively_batch_norm(self.dense)

    def forward(self, x):
        f = self.backbone(x)
        c = self.cls_blocks(f)
        classes = self.classifier(torch.flatten(torch.nn.functional.adaptive_avg_pool2d(c, 1), 1))
        mask = torch.nn.functional.interpolate(self.dense(f), scale_factor=4.0, mode="bilinear", align_corners=False)
        return classes, mask


def export_multitask():
    path = os.path.join(OUT, "rill_multitask.onnx")
    if os.path.exists(path) and os.path.exists(os.path.join(OUT, "rill_multitask.output1.f32")):
        return
    torch.manual_seed(0)
    model = MultiTask().eval()
    x = torch.rand(1, 3, 224, 224, generator=torch.Generator().manual_seed(1)) * 2 - 1
    with torch.no_grad():
        outs = model(x)
    torch.onnx.export(model, x, path, input_names=["input"], output_names=["classes", "mask"], opset_version=13,
                      do_constant_folding=True)
    resolve_constant_identities(path)
    x.numpy().astype("<f4").tofile(os.path.join(OUT, "rill_multitask.input.f32"))
    for i, y in enumerate(outs):
        y.numpy().astype("<f4").tofile(os.path.join(OUT, "rill_multitask.output%d.f32" % i))
    print("exported", path)


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in MODELS + EXTRA_MODELS:
        extra = name in EXTRA_MODELS
        path = os.path.join(OUT, name + ".onnx")
        if os.path.exists(path) and os.path.exists(os.path.join(OUT, name + ".output.f32")):
            if not extra and not os.path.exists(os.path.join(OUT, name + ".opencv.onnx")):
                write_opencv_copy(path, os.path.join(OUT, name + ".opencv.onnx"))
            continue
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None).eval()
        if name in LIVELY:
            lively_batch_norm(model)
        x = torch.rand(1, 3, 224, 224, generator=torch.Generator().manual_seed(1)) * 2 - 1
        with torch.no_grad():
            y = model(x)
        torch.onnx.export(model, x, path, input_names=["input"], output_names=["output"], opset_version=13,
                          do_constant_folding=True)
        resolve_constant_identities(path)
        if not extra:  # OpenCV DNN is a peer on the benchmark models only
            write_opencv_copy(path, os.path.join(OUT, name + ".opencv.onnx"))
        x.numpy().astype("<f4").tofile(os.path.join(OUT, name + ".input.f32"))
        y.numpy().astype("<f4").tofile(os.path.join(OUT, name + ".output.f32"))
        print("exported", path)
    export_op_zoo()
    export_pad_graph()
    export_multitask()


if __name__ == "__main__":
    main()
