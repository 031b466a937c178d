// Det: DET (ir/ops/det_ops.h) on the input in ONNX's layout.
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/det_ops.h"

namespace rill::inference::onnx_import {
namespace {

Status Det(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int x, c.ToNchw(xv));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::DetOp(), {x}, c.out_name()));
  c.Define(out, false);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"Det"}, Det);

}  // namespace
}  // namespace rill::inference::onnx_import
