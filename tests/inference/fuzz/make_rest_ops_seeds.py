"""Writes the fuzz seeds of the ONNX ops added for issue 16 into seeds/onnx/:
the bitwise ops, the sequence ops known at import, Scan, MaxRoiPool and
Multinomial (each a few nodes, so a mutation reaches their converters).

    /usr/bin/python3 tests/inference/fuzz/make_rest_ops_seeds.py
"""
import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds", "onnx")


def save(graph, name, opset):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    if opset <= 17:  # the onnx package here (1.12) knows opsets up to 17
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, name))


def bitwise():
    nodes = [
        helper.make_node("Cast", ["x"], ["xi"], to=TensorProto.UINT8),
        helper.make_node("Cast", ["m"], ["mi"], to=TensorProto.UINT8),
        helper.make_node("BitwiseAnd", ["xi", "mi"], ["a"]),
        helper.make_node("BitwiseXor", ["a", "xi"], ["b"]),
        helper.make_node("BitwiseNot", ["b"], ["c"]),
        helper.make_node("BitShift", ["c", "mi"], ["d"], direction="RIGHT"),
        helper.make_node("BitwiseOr", ["d", "a"], ["e"]),
        helper.make_node("Cast", ["e"], ["y"], to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(
        nodes, "bitwise",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor("m", TensorProto.INT64, [4], [1, 2, 3, 4])])
    save(graph, "bitwise_ops.onnx", 18)


def sequences_and_scan():
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "x_t"], ["s_out"]),
         helper.make_node("Neg", ["s_out"], ["y_t"])],
        "body",
        [helper.make_tensor_value_info("s_in", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("x_t", TensorProto.FLOAT, None)],
        # ONNX Runtime needs the body's output shapes where it cannot infer
        # them (a ConcatFromSequence's output feeds the Scan).
        [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [7]),
         helper.make_tensor_value_info("y_t", TensorProto.FLOAT, [7])])
    nodes = [
        helper.make_node("SplitToSequence", ["x", "split"], ["seq"], axis=1),
        helper.make_node("SequenceErase", ["seq", "zero"], ["seq2"]),
        helper.make_node("SequenceInsert", ["seq2", "x"], ["seq3"]),
        helper.make_node("SequenceLength", ["seq3"], ["n"]),
        helper.make_node("ConcatFromSequence", ["seq3"], ["cat"], axis=1),
        helper.make_node("Scan", ["s0", "cat"], ["s", "ys"], num_scan_inputs=1,
                         scan_input_directions=[1], body=body),
        helper.make_node("Cast", ["n"], ["nf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["ys", "nf"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "sequences_and_scan",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 7]),
         helper.make_tensor_value_info("s", TensorProto.FLOAT, [7])],
        [helper.make_tensor("split", TensorProto.INT64, [2], [1, 3]),
         helper.make_tensor("zero", TensorProto.INT64, [], [0]),
         helper.make_tensor("s0", TensorProto.FLOAT, [7], [0.0] * 7)])
    save(graph, "sequences_scan.onnx", 16)


def roi_pool_and_multinomial():
    nodes = [
        helper.make_node("MaxRoiPool", ["x", "rois"], ["p"], pooled_shape=[2, 2], spatial_scale=0.5),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Multinomial", ["f"], ["m"], sample_size=3, seed=1.0, dtype=TensorProto.INT64),
        helper.make_node("Cast", ["m"], ["y"], to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(
        nodes, "roi_pool_multinomial",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor("rois", TensorProto.FLOAT, [2, 5],
                            [0, 0, 0, 8, 8, 0, 2.5, 1, 11, 7])])
    save(graph, "roi_pool_multinomial.onnx", 16)


if __name__ == "__main__":
    bitwise()
    sequences_and_scan()
    roi_pool_and_multinomial()
