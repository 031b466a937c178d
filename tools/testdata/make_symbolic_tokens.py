# Writes tools/testdata/symbolic_tokens.onnx (rill_test.sh: rill model with
# symbolic input dims): x [batch, 3, height, width] -> Conv 3x3 stride 2 ->
# Reshape to [Shape[0], Shape[1], -1] -> Transpose -> MatMul -> y.
#   /usr/bin/python3 tools/testdata/make_symbolic_tokens.py tools/testdata/symbolic_tokens.onnx
import random
import sys

from onnx import TensorProto, helper

rng = random.Random(3)


def floats(name, dims):
    n = 1
    for d in dims:
        n *= d
    return helper.make_tensor(name, TensorProto.FLOAT, dims, [rng.uniform(-1, 1) for _ in range(n)])


init = [floats("w", [8, 3, 3, 3]), floats("wm", [8, 6]),
        helper.make_tensor("i0", TensorProto.INT64, [1], [0]),
        helper.make_tensor("i1", TensorProto.INT64, [1], [1]),
        helper.make_tensor("m1", TensorProto.INT64, [1], [-1])]
nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2]),
         helper.make_node("Shape", ["c"], ["s"]),
         helper.make_node("Gather", ["s", "i0"], ["n"], axis=0),
         helper.make_node("Gather", ["s", "i1"], ["ch"], axis=0),
         helper.make_node("Concat", ["n", "ch", "m1"], ["t"], axis=0),
         helper.make_node("Reshape", ["c", "t"], ["f"]),
         helper.make_node("Transpose", ["f"], ["tok"], perm=[0, 2, 1]),
         helper.make_node("MatMul", ["tok", "wm"], ["y"])]
g = helper.make_graph(nodes, "symbolic_tokens",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, "height", "width"])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], init)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 7
with open(sys.argv[1], "wb") as f:
    f.write(m.SerializeToString())
