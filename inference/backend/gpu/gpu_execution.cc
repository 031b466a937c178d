// The GPU backends' shared execution base (gpu_execution.h).
#include "inference/backend/gpu/gpu_execution.h"

namespace rill::inference::gpu {

Status GpuExecution::Error(const std::string& what) const {
  return InvalidArgumentError(args_.graph->NodeContext(*args_.node) + what);
}

Status GpuExecution::Refuse(const std::string& what) const {
  return UnimplementedError(args_.graph->NodeContext(*args_.node) + backend_name_ + ": " + what);
}

Status GpuExecution::NeedFloatInputs() const {
  for (size_t i = 0; i < args_.inputs.size(); ++i) {
    const TensorBinding* b = args_.inputs[i];
    if (b && (i == 0 || !b->constant) && b->dtype != DataType::kFloat32) {
      return Refuse(std::string("input type ") + DataTypeName(b->dtype));
    }
  }
  if (args_.outputs[0]->dtype != DataType::kFloat32) {
    return Refuse(std::string("output type ") + DataTypeName(args_.outputs[0]->dtype));
  }
  return Status::Ok();
}

Status GpuExecution::NeedConstantWeights(const char* what) const {
  if (!args_.inputs[1]->constant || (HasInput(2) && !args_.inputs[2]->constant)) return Refuse(what);
  return Status::Ok();
}

Status GpuExecution::NeedConstantInputs(std::initializer_list<size_t> which, const char* what) const {
  for (size_t i : which) {
    if (HasInput(i) && !args_.inputs[i]->constant) return Refuse(what);
  }
  return Status::Ok();
}

Status GpuExecution::MakeBinary(BroadcastGeometry* g) const {
  if (!MakeBroadcastGeometry(InShape(0), InShape(1), g)) return Error("shapes do not broadcast");
  return Status::Ok();
}

Status GpuExecution::MakeMean(MeanGeometry* g) const {
  std::vector<int> axes;
  RILL_INF_RETURN_IF_ERROR(ir::ReadConstInts(*args_.graph, *args_.node, 1, &axes));
  if (InShape(0).size() > 6) return Refuse("rank > 6");
  *g = MakeMeanGeometry(InShape(0), axes, OutShape());
  return Status::Ok();
}

ConcatGeometry GpuExecution::MakeConcat() const {
  std::vector<Shape> inputs;
  for (size_t i = 0; i < args_.inputs.size(); ++i) inputs.push_back(InShape(i));
  return MakeConcatGeometry(attrs().axis, inputs, OutShape());
}

Status GpuExecution::MakeView(ViewGeometry* v) const {
  const Shape& x = InShape(0);
  const Shape& y = OutShape();
  if (x.size() > 6 || y.size() > 6) return Refuse("rank > 6");
  RILL_INF_RETURN_IF_ERROR(MakeViewGeometry(*args_.graph, *args_.node, x, y, v));
  if (args_.node->type == ir::OpType::kPad && HasInput(2)) {
    if (!args_.inputs[2]->constant) return Refuse("non-constant pad value");
    v->value = *static_cast<const float*>(args_.inputs[2]->host());
  }
  return Status::Ok();
}

Status GpuExecution::FusedPRelu(size_t slope, int* slope_input, BroadcastGeometry* g) const {
  *slope_input = HasInput(slope) ? static_cast<int>(slope) : -1;
  if (*slope_input < 0) return Status::Ok();
  if (!args_.inputs[slope]->constant) return Refuse("non-constant PRELU slope");
  const Shape& y = OutShape();
  if (!MakeBroadcastGeometry(y, {y.back()}, g)) return Error("PRELU slope does not broadcast");
  return Status::Ok();
}

}  // namespace rill::inference::gpu
