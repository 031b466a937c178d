#!/usr/bin/python3
"""Exports torchvision's architectures to ONNX for the model zoo
(benchmarks/zoo/model_zoo.py): random weights from a fixed seed (nothing is
downloaded), batch 1, one input file and PyTorch's outputs beside each
model as raw little-endian float32:

  OUT/<name>.onnx, OUT/<name>.input.f32, OUT/<name>.output<i>.f32

Sizes: classifiers at 224 (inception_v3 299, efficientnet_b1 240, swin_v2_t
256), segmenters at 256, detectors at 320 (built with min_size = max_size =
320: torchvision's default resize is 800), ssd300 at 300, video 8x112x112
(S3D and MViT 16x224x224, as they are built); the "user" models of
user_models.py at their own sizes. A detector's score layers (and
the R-CNNs' box deltas) get weights that spread its scores
(decisive_detection_heads). Not in the zoo: the other sizes of a family
present (same ops), torchvision's quantized models, RAFT (two inputs).

usage: /usr/bin/python3 benchmarks/zoo/export_zoo.py OUT [NAME...]
Needs Debian's python3-torch and python3-torchvision. Skips models already
exported with the same recipe (OUT/<name>.recipe holds a hash of the model's
ZOO entry, the functions that build it and the torch versions; a changed
recipe deletes OUT/<name>.* and exports again); a model that does not export
is listed in OUT/<name>.export_error (its last error line), as is one whose
export process died unfinished (OUT/<name>.exporting left behind: killed out
of memory) at the next run, instead of trying again.
"""
import glob
import hashlib
import inspect
import os
import sys
import traceback

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "inference"))
from export_torchvision_onnx import lively_batch_norm  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import user_models  # noqa: E402

M = torchvision.models
AT_320 = {"min_size": 320, "max_size": 320}
# name: (task, constructor, input shape, extra export arguments)
ZOO = {
    # Classification at 224 (inception_v3 at 299, as it is built).
    "alexnet": ("classification", lambda: M.alexnet(), (1, 3, 224, 224)),
    "vgg11": ("classification", lambda: M.vgg11(), (1, 3, 224, 224)),
    "resnet18": ("classification", lambda: M.resnet18(), (1, 3, 224, 224)),
    "resnet50": ("classification", lambda: M.resnet50(), (1, 3, 224, 224)),
    "resnext50_32x4d": ("classification", lambda: M.resnext50_32x4d(), (1, 3, 224, 224)),
    "wide_resnet50_2": ("classification", lambda: M.wide_resnet50_2(), (1, 3, 224, 224)),
    "densenet121": ("classification", lambda: M.densenet121(), (1, 3, 224, 224)),
    "googlenet": ("classification", lambda: M.googlenet(aux_logits=False, init_weights=True), (1, 3, 224, 224)),
    "inception_v3": ("classification", lambda: M.inception_v3(aux_logits=False, init_weights=True), (1, 3, 299, 299)),
    "squeezenet1_1": ("classification", lambda: M.squeezenet1_1(), (1, 3, 224, 224)),
    "mobilenet_v2": ("classification", lambda: M.mobilenet_v2(), (1, 3, 224, 224)),
    "mobilenet_v3_small": ("classification", lambda: M.mobilenet_v3_small(), (1, 3, 224, 224)),
    "mobilenet_v3_large": ("classification", lambda: M.mobilenet_v3_large(), (1, 3, 224, 224)),
    "mnasnet1_0": ("classification", lambda: M.mnasnet1_0(), (1, 3, 224, 224)),
    "shufflenet_v2_x1_0": ("classification", lambda: M.shufflenet_v2_x1_0(), (1, 3, 224, 224)),
    "efficientnet_b0": ("classification", lambda: M.efficientnet_b0(), (1, 3, 224, 224)),
    "efficientnet_v2_s": ("classification", lambda: M.efficientnet_v2_s(), (1, 3, 224, 224)),
    "regnet_y_400mf": ("classification", lambda: M.regnet_y_400mf(), (1, 3, 224, 224)),
    "regnet_x_400mf": ("classification", lambda: M.regnet_x_400mf(), (1, 3, 224, 224)),
    "convnext_tiny": ("classification", lambda: M.convnext_tiny(), (1, 3, 224, 224)),
    "vit_b_16": ("classification", lambda: M.vit_b_16(), (1, 3, 224, 224)),
    "swin_t": ("classification", lambda: M.swin_t(), (1, 3, 224, 224)),
    # One of each family's variants that differ in ops (the other sizes of a
    # family repeat the same graph with other widths and depths).
    "vgg11_bn": ("classification", lambda: M.vgg11_bn(), (1, 3, 224, 224)),
    "resnet34": ("classification", lambda: M.resnet34(), (1, 3, 224, 224)),
    "squeezenet1_0": ("classification", lambda: M.squeezenet1_0(), (1, 3, 224, 224)),
    "shufflenet_v2_x0_5": ("classification", lambda: M.shufflenet_v2_x0_5(), (1, 3, 224, 224)),
    "mnasnet0_5": ("classification", lambda: M.mnasnet0_5(), (1, 3, 224, 224)),
    "efficientnet_b1": ("classification", lambda: M.efficientnet_b1(), (1, 3, 240, 240)),
    "regnet_y_800mf": ("classification", lambda: M.regnet_y_800mf(), (1, 3, 224, 224)),
    "vit_b_32": ("classification", lambda: M.vit_b_32(), (1, 3, 224, 224)),
    "swin_v2_t": ("classification", lambda: M.swin_v2_t(), (1, 3, 256, 256)),
    "maxvit_t": ("classification", lambda: M.maxvit_t(), (1, 3, 224, 224)),
    # Segmentation at 256.
    "fcn_resnet50": ("segmentation", lambda: M.segmentation.fcn_resnet50(weights_backbone=None, aux_loss=False), (1, 3, 256, 256)),
    "deeplabv3_resnet50": ("segmentation", lambda: M.segmentation.deeplabv3_resnet50(weights_backbone=None, aux_loss=False), (1, 3, 256, 256)),
    "deeplabv3_mobilenet_v3_large": ("segmentation", lambda: M.segmentation.deeplabv3_mobilenet_v3_large(weights_backbone=None, aux_loss=False), (1, 3, 256, 256)),
    "lraspp_mobilenet_v3_large": ("segmentation", lambda: M.segmentation.lraspp_mobilenet_v3_large(weights_backbone=None), (1, 3, 256, 256)),
    "fcn_resnet101": ("segmentation", lambda: M.segmentation.fcn_resnet101(weights_backbone=None, aux_loss=False), (1, 3, 256, 256)),
    "deeplabv3_resnet101": ("segmentation", lambda: M.segmentation.deeplabv3_resnet101(weights_backbone=None, aux_loss=False), (1, 3, 256, 256)),
    # Detection (torchvision's post-processing included: NMS, top-k).
    "ssdlite320_mobilenet_v3_large": ("detection", lambda: M.detection.ssdlite320_mobilenet_v3_large(weights_backbone=None), (1, 3, 320, 320)),
    "fasterrcnn_mobilenet_v3_large_320_fpn": ("detection", lambda: M.detection.fasterrcnn_mobilenet_v3_large_320_fpn(weights_backbone=None), (1, 3, 320, 320)),
    # The rest resize to 320 (torchvision's default is 800) as the 320 model
    # above does, so the zoo stays fast; ssd300 at its own 300.
    "fasterrcnn_mobilenet_v3_large_fpn": ("detection", lambda: M.detection.fasterrcnn_mobilenet_v3_large_fpn(weights_backbone=None, **AT_320), (1, 3, 320, 320)),
    "fasterrcnn_resnet50_fpn": ("detection", lambda: M.detection.fasterrcnn_resnet50_fpn(weights_backbone=None, **AT_320), (1, 3, 320, 320)),
    "fasterrcnn_resnet50_fpn_v2": ("detection", lambda: M.detection.fasterrcnn_resnet50_fpn_v2(weights_backbone=None, **AT_320), (1, 3, 320, 320)),
    "maskrcnn_resnet50_fpn": ("detection", lambda: M.detection.maskrcnn_resnet50_fpn(weights_backbone=None, **AT_320), (1, 3, 320, 320)),
    "maskrcnn_resnet50_fpn_v2": ("detection", lambda: M.detection.maskrcnn_resnet50_fpn_v2(weights_backbone=None, **AT_320), (1, 3, 320, 320)),
    "keypointrcnn_resnet50_fpn": ("detection", lambda: M.detection.keypointrcnn_resnet50_fpn(weights_backbone=None, **AT_320), (1, 3, 320, 320)),
    "retinanet_resnet50_fpn": ("detection", lambda: M.detection.retinanet_resnet50_fpn(weights_backbone=None, **AT_320), (1, 3, 320, 320)),
    "retinanet_resnet50_fpn_v2": ("detection", lambda: M.detection.retinanet_resnet50_fpn_v2(weights_backbone=None, **AT_320), (1, 3, 320, 320)),
    "fcos_resnet50_fpn": ("detection", lambda: M.detection.fcos_resnet50_fpn(weights_backbone=None, **AT_320), (1, 3, 320, 320)),
    "ssd300_vgg16": ("detection", lambda: M.detection.ssd300_vgg16(weights_backbone=None), (1, 3, 300, 300)),
    # Video: 8 frames of 112x112.
    "r3d_18": ("video", lambda: M.video.r3d_18(), (1, 3, 8, 112, 112)),
    "mc3_18": ("video", lambda: M.video.mc3_18(), (1, 3, 8, 112, 112)),
    "r2plus1d_18": ("video", lambda: M.video.r2plus1d_18(), (1, 3, 8, 112, 112)),
    # These three are built for 16 frames of 224x224 (S3D's last pooling and
    # MViT's position embeddings fix the size).
    "s3d": ("video", lambda: M.video.s3d(), (1, 3, 16, 224, 224)),
    "mvit_v1_b": ("video", lambda: M.video.mvit_v1_b(), (1, 3, 16, 224, 224)),
    "mvit_v2_s": ("video", lambda: M.video.mvit_v2_s(), (1, 3, 16, 224, 224)),
    # Models of the kinds users train themselves (user_models.py): a text
    # recognizer with a bidirectional LSTM, a GRU keyword spotter, a
    # transformer encoder.
    "crnn": ("user", lambda: user_models.Crnn(), (1, 1, 32, 100)),
    "gru_keywords": ("user", lambda: user_models.GruKeywords(), (49, 1, 40)),
    "transformer_encoder": ("user", lambda: user_models.TransformerClassifier(), (1, 50, 128)),
}


def decisive_detection_heads(model, x_in):
    """Spreads a random-weight detector's class and objectness scores.

    With torchvision's initialisation and random weights every class score
    is about 1/91 and equal to within 1e-7 across boxes, whatever the input:
    the order of TopK and NonMaxSuppression then rests on rounding, and two
    correct engines disagree (or, below the score threshold, both return
    nothing). Scaling the score layers' weights (fixed seed, as the rest)
    gives scores that differ by far more than rounding, so the comparison
    tests the detector's post-processing instead of its ties. SSDlite's are
    scaled by a fixed factor; the others' are set from a run on the input
    (calibrate) to a given mean and spread of their outputs, the box
    regressors' too where random deltas draw degenerate boxes."""
    g = torch.Generator().manual_seed(2)
    layers = []
    scale = 4.0  # SSDlite
    head = getattr(model, "head", None)
    if head is not None and hasattr(head.classification_head, "cls_logits"):  # RetinaNet, FCOS
        # Their towers' features are large and vary by level, so a fixed
        # scale saturates every score at 1: set the logits' spread from a
        # run on the input instead (class logits' mean -6 and standard
        # deviation 1.5 over all levels and anchors, so the few hundred kept
        # are sigmoids well below 1; FCOS's centerness mean 0, deviation 1).
        calibrated = [(head.classification_head.cls_logits, -6.0, 1.5)]
        if hasattr(head.regression_head, "bbox_ctrness"):  # FCOS scores sqrt(class x centerness)
            calibrated.append((head.regression_head.bbox_ctrness, 0.0, 1.0))
        calibrate(model, x_in, calibrated, g)
    elif head is not None and all(isinstance(m, torch.nn.Conv2d) for m in head.classification_head.module_list):
        # SSD300: VGG's features saturate the softmax the same way; logits
        # of deviation 2 per level keep the scores between 0.01 and ~0.5.
        calibrate(model, x_in, [(m, 0.0, 2.0) for m in head.classification_head.module_list], g)
    elif head is not None and hasattr(head, "classification_head"):  # SSDlite
        layers += [m for m in head.classification_head.modules() if isinstance(m, torch.nn.Conv2d)][-6:]
    roi = getattr(model, "roi_heads", None)
    if roi is not None:  # Faster/Mask/Keypoint R-CNN
        # The RPN's objectness and box deltas, then (on the proposals those
        # give) the box classifier's and regressor's: a fixed scale
        # saturated ResNet-50's class scores at 1 and its deltas drew
        # boxes a pixel thin, sensitive to every rounding. Deviation 2 for
        # the logits (softmax scores up to ~0.5), 0.5 for the deltas.
        calibrate(model, x_in, [(model.rpn.head.cls_logits, 0.0, 2.0), (model.rpn.head.bbox_pred, 0.0, 0.5)], g)
        calibrate(model, x_in, [(roi.box_predictor.cls_score, 0.0, 2.0), (roi.box_predictor.bbox_pred, 0.0, 0.5)], g)
        if getattr(roi, "mask_predictor", None) is not None:
            # Mask R-CNN's mask logits: random weights spread them over
            # hundreds (ResNet-50's features), so the sigmoid's output, of
            # range 1, carries the logits' rounding (1e-5 of their range)
            # as an error of 1e-3 of its own. Deviation 2, as the scores.
            calibrate(model, x_in, [(roi.mask_predictor.mask_fcn_logits, 0.0, 2.0)], g)
    with torch.no_grad():
        for m in layers:
            m.weight.copy_(torch.randn(m.weight.shape, generator=g) * (scale / m.weight[0].numel() ** 0.5))
            if m.bias is not None:
                m.bias.copy_(torch.randn(m.bias.shape, generator=g))


def calibrate(model, x_in, layers, g):
    """Random weights for each (layer, mean, std), scaled so that the layer's
    outputs on x_in have that mean and standard deviation."""
    with torch.no_grad():
        for m, mean, std in layers:
            m.weight.copy_(torch.randn(m.weight.shape, generator=g))
            m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.5)
            seen = []
            hook = m.register_forward_hook(lambda _m, _i, out: seen.append(out.flatten()))
            model(x_in)
            hook.remove()
            logits = torch.cat(seen)
            a = std / float(logits.std())
            m.weight.mul_(a)
            m.bias.mul_(a).add_(mean - float(logits.mean()) * a)


def flat(outputs):
    if isinstance(outputs, torch.Tensor):
        return [outputs]
    if isinstance(outputs, dict):
        return [v for k in sorted(outputs) for v in flat(outputs[k])]
    if isinstance(outputs, (list, tuple)):
        return [v for o in outputs for v in flat(o)]
    return []


def onnx_zero(g, self):
    """aten::zero (Tensor.zero_ as the exporter makes it functional) has no
    ONNX export in torch 1.13; swin_v2's attention zeroes its key bias that
    way (`qkv_bias[length:2 * length].zero_()`). Zeros of self's shape
    (ONNX Runtime then matches PyTorch within 3.4e-6 on swin_v2_t)."""
    return g.op("ConstantOfShape", g.op("Shape", self), value_t=torch.tensor([0.0]))


def recipe(name):
    """A hash of everything that makes NAME's export: its ZOO entry, the
    functions below that build and change the model, and the PyTorch and
    torchvision versions. Kept beside the export (OUT/<name>.recipe) so a
    changed recipe exports again instead of reusing a stale file."""
    parts = [_source(ZOO[name][1]), repr(ZOO[name][0]), repr(ZOO[name][2]), repr(AT_320),
             torch.__version__, torchvision.__version__]
    makers = [export, flat, lively_batch_norm]
    if ZOO[name][0] == "detection":
        makers += [decisive_detection_heads, calibrate]
    if name.startswith("swin_v2"):
        makers.append(onnx_zero)
    parts += [_source(f) for f in makers]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def export(name, out_dir):
    task, make, shape = ZOO[name]
    path = os.path.join(out_dir, name + ".onnx")
    stamp = os.path.join(out_dir, name + ".recipe")
    want = recipe(name)
    have = open(stamp).read().strip() if os.path.exists(stamp) else None
    if have == want and (os.path.exists(path) or os.path.exists(path[:-5] + ".export_error")):
        return
    marker = path[:-5] + ".exporting"
    if have == want and os.path.exists(marker):
        # An export of this recipe started and never finished: the process
        # died (mvit_v2_s: killed by the kernel out of memory at 22 GB).
        # Say so instead of trying again; delete OUT/<name>.* to retry.
        with open(path[:-5] + ".export_error", "w") as f:
            f.write("an earlier export of this recipe died unfinished (killed: out of memory?)\n")
        os.remove(marker)
        return
    for f in glob.glob(os.path.join(glob.escape(out_dir), glob.escape(name) + ".*")):
        os.remove(f)  # a stale export (another recipe, or one from before recipes were kept)
    with open(stamp, "w") as f:
        f.write(want + "\n")
    open(marker, "w").close()
    torch.manual_seed(0)
    model = make().eval()
    lively_batch_norm(model)
    x = torch.rand(*shape, generator=torch.Generator().manual_seed(1))
    if task == "detection":
        x_in = [x[0]]
        decisive_detection_heads(model, x_in)
    else:
        x_in = x
    mode = torch.onnx.TrainingMode.EVAL
    if name.startswith("swin_v2"):
        torch.onnx.register_custom_op_symbolic("aten::zero", onnx_zero, 17)
    if name.startswith("vit_") or name == "transformer_encoder":
        # In eval mode torch 1.13 runs attention (and nn.TransformerEncoder's
        # layers) through fused kernels (aten::_native_multi_head_attention,
        # aten::_transformer_encoder_layer_fwd) that have no ONNX export; in
        # train mode it takes the plain path, and with dropout at 0
        # (torchvision's ViT default; user_models.py's) and no batch norm the
        # outputs are the same.
        model.train()
        mode = torch.onnx.TrainingMode.PRESERVE
    try:
        with torch.no_grad():
            outs = flat(model(x_in))
            torch.onnx.export(model, (x_in,), path, input_names=["input"], opset_version=17,
                              do_constant_folding=True, training=mode)
    except Exception:  # an architecture that does not export is a finding, not a crash
        with open(path[:-5] + ".export_error", "w") as f:
            f.write(traceback.format_exc().strip().splitlines()[-1] + "\n")
        if os.path.exists(path):
            os.remove(path)
        os.remove(marker)
        return
    x.numpy().astype("<f4").tofile(os.path.join(out_dir, name + ".input.f32"))
    for i, y in enumerate(outs):
        y.numpy().astype("<f4").tofile(os.path.join(out_dir, "%s.output%d.f32" % (name, i)))
    os.remove(marker)  # last: the export is whole


# The source of the code as loaded: inspect reads the file at each call, so
# an edit during a long run would otherwise change the hashes of the models
# not yet reached (and export them again under the old code).
_SOURCES = {id(f): inspect.getsource(f) for f in
            [z[1] for z in ZOO.values()] + [export, flat, lively_batch_norm, decisive_detection_heads,
                                             calibrate, onnx_zero]}


def _source(f):
    return _SOURCES[id(f)]


def main():
    out_dir = sys.argv[1]
    names = sys.argv[2:] or list(ZOO)
    os.makedirs(out_dir, exist_ok=True)
    for name in names:
        if name not in ZOO:
            sys.exit("unknown model %s (known: %s)" % (name, ", ".join(ZOO)))
        print("exporting", name, flush=True)
        export(name, out_dir)


if __name__ == "__main__":
    main()
