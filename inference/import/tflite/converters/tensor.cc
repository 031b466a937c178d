// Tensor ops of inference/ir/ops/tensor_ops.h: BATCH_MATMUL
// (BatchMatMulOptions adj_x, adj_y; float operands only); GATHER
// (GatherOptions axis, batch_dims 0 only; constant or run-time indices,
// negative ones from the end); TILE (constant multiples); BROADCAST_TO
// (constant shape) as EXPAND; GATHER_ND (params, indices [..., q]; batch_dims
// 0) as the engine's GATHER_ND; SCATTER_ND (indices, updates, constant shape)
// as SCATTER_ND of a zeros constant with reduction add (TFLite sums the
// updates of a repeated index).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inference/import/tflite/tflite_converter.h"
#include "inference/ir/ops/dynamic_ops.h"
#include "inference/ir/ops/tensor_ops.h"

namespace rill::inference::tflite {
namespace {

constexpr int32_t kGather = 36;
constexpr int32_t kTile = 69;
constexpr int32_t kGatherNd = 107;
constexpr int32_t kScatterNd = 122;
constexpr int32_t kBatchMatMul = 126;
constexpr int32_t kBroadcastTo = 130;

Status BatchMatMul(ConverterContext& c) {
  if (c.Option<uint8_t>(2, 0) != 0) {
    return c.UnsupportedAttribute("asymmetric_quantize_inputs", "quantized inputs");
  }
  auto a = std::make_shared<ir::BatchMatMulAttrs>();
  a->adj_x = c.Option<uint8_t>(0, 0) != 0;
  a->adj_y = c.Option<uint8_t>(1, 0) != 0;
  c.node().type = ir::BatchMatMulOp();
  c.node().typed_attrs = std::move(a);
  return Status::Ok();
}

Status Gather(ConverterContext& c) {
  if (c.num_inputs() != 2) return c.Invalid("expects the params and the indices");
  if (c.Option<int32_t>(1, 0) != 0) {
    return c.UnsupportedAttribute("batch_dims", "batch_dims " + std::to_string(c.Option<int32_t>(1, 0)) + " (0 only)");
  }
  const Shape params = c.InShape(0);
  const int rank = static_cast<int>(params.size());
  if (rank == 0) return c.Invalid("GATHER of a scalar");
  auto a = std::make_shared<ir::AxisAttrs>();
  RILL_INF_RETURN_IF_ERROR(c.NormalizeAxis(c.Option<int32_t>(0, 0), rank, "axis", &a->axis));
  const ir::TensorInfo& idx = c.graph().tensors[c.node().inputs[1]];
  if (idx.is_constant()) {
    std::vector<int> values;
    RILL_INF_RETURN_IF_ERROR(c.ConstInts(1, "indices", &values));
    for (int v : values) {
      if (v < -params[a->axis] || v >= params[a->axis]) return c.Invalid("index " + std::to_string(v) + " out of range");
    }
  }
  RILL_INF_ASSIGN_OR_RETURN(int data, c.FloatInput(0));
  c.node().inputs[0] = data;
  c.node().type = ir::GatherOp();
  c.node().typed_attrs = std::move(a);
  return Status::Ok();
}

Status GatherNd(ConverterContext& c) {
  if (c.num_inputs() != 2) return c.Invalid("expects the params and the indices");
  const Shape params = c.InShape(0), idx = c.InShape(1);
  if (idx.empty() || idx.back() < 1 || idx.back() > static_cast<int>(params.size())) {
    return c.Invalid("indices " + ShapeToString(idx) + " do not index params " + ShapeToString(params));
  }
  RILL_INF_ASSIGN_OR_RETURN(int data, c.FloatInput(0));
  RILL_INF_ASSIGN_OR_RETURN(int indices, c.FloatInput(1));
  c.node().inputs = {data, indices};
  c.node().type = ir::GatherNdOp();
  c.node().typed_attrs = std::make_shared<ir::GatherNdAttrs>();  // batch_dims 0
  return Status::Ok();
}

Status ScatterNd(ConverterContext& c) {
  if (c.num_inputs() != 3) return c.Invalid("expects the indices, the updates and the shape");
  std::vector<int> shape;
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(2, "shape", &shape));
  long long n = 1;
  for (int d : shape) {
    if (d < 1 || d > (1 << 24)) return c.Unsupported("output dimension " + std::to_string(d));
    n *= d;
    if (n > (1LL << 28)) return c.Unsupported("an output of more than 2^28 elements");
  }
  const int zeros = c.NewFloatConst("zeros", Shape(shape.begin(), shape.end()), std::vector<float>(n, 0.0f));
  RILL_INF_ASSIGN_OR_RETURN(int indices, c.FloatInput(0));
  RILL_INF_ASSIGN_OR_RETURN(int updates, c.FloatInput(1));
  auto a = std::make_shared<ir::ScatterAttrs>();
  a->reduction = ir::ScatterAttrs::Reduction::kAdd;
  c.node().inputs = {zeros, indices, updates};
  c.node().type = ir::ScatterNdOp();
  c.node().typed_attrs = std::move(a);
  return Status::Ok();
}

Status Tile(ConverterContext& c) {
  if (c.num_inputs() != 2) return c.Invalid("expects the input and the multiples");
  auto a = std::make_shared<ir::TileAttrs>();
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(1, "multiples", &a->repeats));
  if (a->repeats.size() != c.InShape(0).size()) return c.Invalid("multiples must have one value per axis");
  for (int r : a->repeats) {
    if (r < 1) return c.Unsupported("multiple " + std::to_string(r) + " (empty outputs)");
  }
  RILL_INF_ASSIGN_OR_RETURN(int x, c.FloatInput(0));
  c.node().type = ir::TileOp();
  c.node().typed_attrs = std::move(a);
  c.node().inputs = {x};
  return Status::Ok();
}

Status BroadcastTo(ConverterContext& c) {
  if (c.num_inputs() != 2) return c.Invalid("expects the input and the shape");
  auto a = std::make_shared<ir::ExpandAttrs>();
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(1, "shape", &a->shape));
  Shape out;
  if (!ir::BroadcastShapes({c.InShape(0), a->shape}, &out) || out != a->shape) {
    return c.Invalid("input " + ShapeToString(c.InShape(0)) + " does not broadcast to " + ShapeToString(a->shape));
  }
  RILL_INF_ASSIGN_OR_RETURN(int x, c.FloatInput(0));
  c.node().type = ir::ExpandOp();
  c.node().typed_attrs = std::move(a);
  c.node().inputs = {x};
  return Status::Ok();
}

const bool kRegistered = RegisterTfLiteConverter({kBatchMatMul}, BatchMatMul) &&
                         RegisterTfLiteConverter({kGather}, Gather) && RegisterTfLiteConverter({kGatherNd}, GatherNd) &&
                         RegisterTfLiteConverter({kScatterNd}, ScatterNd) &&
                         RegisterTfLiteConverter({kTile}, Tile) && RegisterTfLiteConverter({kBroadcastTo}, BroadcastTo);

}  // namespace
}  // namespace rill::inference::tflite
