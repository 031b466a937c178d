// Optional, OptionalHasElement and OptionalGetElement of values known at
// import to be present: an optional holding a tensor (or a sequence known
// at import, converters/sequence.cc) is that tensor; OptionalHasElement folds
// into a constant bool (false for the absent input opset 18 allows).
// Nothing reaches the IR. An empty Optional (no input) is UNIMPLEMENTED: the
// importer has no value for "none".
#include <string>
#include <vector>

#include "inference/import/onnx/onnx_converter.h"

namespace rill::inference::onnx_import {
namespace {

// Defines output 0 as input 0, a value or a sequence.
Status PassOn(ConverterContext& c) {
  if (const std::vector<Value>* seq = c.FindSequence(c.node().input(0))) {
    c.DefineSequence(*seq);
    return Status::Ok();
  }
  RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(0));
  c.Define(v);
  return Status::Ok();
}

Status Optional(ConverterContext& c) {
  if (!c.HasInput(0)) return c.Unsupported("an empty Optional (one holding no element)");
  return PassOn(c);
}

Status OptionalGetElement(ConverterContext& c) {
  if (!c.HasInput(0)) return c.Invalid("needs an input");
  return PassOn(c);
}

Status OptionalHasElement(ConverterContext& c) {
  bool has = false;
  if (c.HasInput(0)) {
    const std::string& name = c.node().input(0);
    if (c.Find(name) == nullptr && c.FindSequence(name) == nullptr) return c.Get(name).status();
    has = true;
  }
  const Shape scalar;
  c.Define(c.NewIntConst(c.out_name(), {has ? 1 : 0}, &scalar), false);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"Optional"}, Optional) &&
                         RegisterOnnxConverter({"OptionalGetElement"}, OptionalGetElement) &&
                         RegisterOnnxConverter({"OptionalHasElement"}, OptionalHasElement);

}  // namespace
}  // namespace rill::inference::onnx_import
