// Ops that only produce or pass on values at import: Constant, Shape (folded
// from the import-time input shapes), Gather and Cast of constants (shape
// arithmetic; of activations: tensor.cc), CastLike (a Cast to its target's
// ONNX type, as far as the import knows it), Identity and Dropout
// (inference: identity).
#include <cstdint>
#include <string>
#include <vector>

#include "inference/import/onnx/converters/tensor.h"
#include "inference/import/onnx/onnx_converter.h"

namespace rill::inference::onnx_import {
namespace {

Status Constant(ConverterContext& c) {
  const onnx::AttributeProto* value = c.FindAttr("value");
  if (value && value->has_t()) {
    RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstantFromProto(value->t(), c.out_name()));
    c.Define(id, false);
    return Status::Ok();
  }
  if (const onnx::AttributeProto* f = c.FindAttr("value_float")) {
    c.Define(c.NewFloatConst(c.out_name(), {}, {f->f()}), false);
    return Status::Ok();
  }
  if (const onnx::AttributeProto* i = c.FindAttr("value_int")) {
    c.Define(c.NewIntConst(c.out_name(), {i->i()}), false);
    return Status::Ok();
  }
  if (const onnx::AttributeProto* is = c.FindAttr("value_ints")) {
    c.Define(c.NewIntConst(c.out_name(), std::vector<int64_t>(is->ints().begin(), is->ints().end())), false);
    return Status::Ok();
  }
  return c.Unsupported("Constant without a supported value attribute");
}

Status ShapeOp(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const Shape s = c.OnnxShape(x);
  if (ir::HasDynamicDim(s)) return ConvertShapeAtRun(c, x);  // dynamic.cc
  c.NoteShapeFold();  // valid for the import-time input shapes only
  c.Define(c.NewIntConst(c.out_name(), std::vector<int64_t>(s.begin(), s.end())), false);
  return Status::Ok();
}

Status Gather(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value data, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(Value idx_value, c.Input(1));
  // Activations, and constants of other ranks: tensor.cc.
  if (!c.IsConst(data.id) || !c.IsConst(idx_value.id) || c.ShapeOf(data.id).size() != 1 ||
      c.AttrInt("axis", 0) != 0) {
    return ConvertGather(c);
  }
  const int idx = idx_value.id;
  const std::vector<int64_t> d = c.ConstInts(data.id), ix = c.ConstInts(idx);
  std::vector<int64_t> r;
  for (int64_t i : ix) {
    const int64_t k = i < 0 ? i + static_cast<int64_t>(d.size()) : i;
    if (k < 0 || k >= static_cast<int64_t>(d.size())) return c.Unsupported("index out of range");
    r.push_back(d[k]);
  }
  const Shape scalar;
  // A scalar index gives a scalar.
  c.Define(c.NewIntConst(c.out_name(), r, c.ShapeOf(idx).empty() ? &scalar : nullptr), false);
  return Status::Ok();
}

Status CastTo(ConverterContext& c, int64_t to) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  if (!c.IsConst(x.id)) {
    if (to == kFloat && c.tensor(x.id).dtype == DataType::kFloat32) {
      c.Define(x);
      return Status::Ok();
    }
    return ConvertCastTensor(c, x, to);  // tensor.cc
  }
  const Shape shape = c.ShapeOf(x.id);
  if (to == kFloat || to == kDouble) {
    c.Define(c.NewFloatConst(c.out_name(), shape, c.ConstFloats(x.id)), false);
  } else if (to == kInt64 || to == kInt32) {
    c.Define(c.NewIntConst(c.out_name(), c.ConstInts(x.id), &shape), false);
  } else if (to == 2 || to == 3 || to == 4 || to == 5 || to == 12 || to == 13) {
    // The 8-, 16- and 32-bit types as int64 constants, wrapped into the
    // type's range as C++'s conversions do (uint64: as int64).
    const int bits = to == 2 || to == 3 ? 8 : to == 4 || to == 5 ? 16 : to == 12 ? 32 : 64;
    const bool is_signed = to == 3 || to == 5;
    std::vector<int64_t> v = c.ConstInts(x.id);
    if (bits < 64) {
      const uint64_t mask = (uint64_t{1} << bits) - 1;
      for (int64_t& e : v) {
        uint64_t u = static_cast<uint64_t>(e) & mask;
        if (is_signed && ((u >> (bits - 1)) & 1) != 0) u |= ~mask;
        e = static_cast<int64_t>(u);
      }
    }
    c.Define(c.NewIntConst(c.out_name(), v, &shape), false);
  } else if (to == kBool) {  // int64 0 / 1
    std::vector<int64_t> b;
    for (float v : c.ConstFloats(x.id)) b.push_back(v != 0.0f);
    c.Define(c.NewIntConst(c.out_name(), b, &shape), false);
  } else {
    return c.UnsupportedAttribute("to", "Cast to type " + std::to_string(to));
  }
  return Status::Ok();
}

Status Cast(ConverterContext& c) { return CastTo(c, c.AttrInt("to", kFloat)); }

}  // namespace

// The ONNX element type of value `name`: declared (graph input, output or
// value_info), an initializer's or a Constant's, bool for what a comparison
// or logic op gives, int64 for what the importer knows holds integers,
// else 0 (ElementType: float, as run-time values of unknown type are
// float32 in the engine). tensor.h.
int64_t DeclaredElementType(ConverterContext& c, const std::string& name) {
  const onnx::GraphProto& g = c.graph_proto();
  for (const auto* infos : {&g.input(), &g.output(), &g.value_info()}) {
    for (const onnx::ValueInfoProto& v : *infos) {
      if (v.name() == name && v.type().has_tensor_type() && v.type().tensor_type().elem_type() != 0) {
        return v.type().tensor_type().elem_type();
      }
    }
  }
  for (const onnx::TensorProto& t : g.initializer()) {
    if (t.name() == name) return t.data_type();
  }
  static const char* const kBoolOps[] = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
                                         "And",   "Or",   "Xor",     "Not",         "IsNaN",
                                         "IsInf"};
  for (const onnx::NodeProto& n : g.node()) {
    for (int k = 0; k < n.output_size(); ++k) {
      if (n.output(k) != name) continue;
      if (n.op_type() == "Constant") {
        const onnx::AttributeProto* value = FindAttr(n, "value");
        if (value != nullptr && value->has_t()) return value->t().data_type();
        if (FindAttr(n, "value_int") != nullptr || FindAttr(n, "value_ints") != nullptr) return kInt64;
        return kFloat;
      }
      if (n.op_type() == "Cast") return AttrInt(n, "to", kFloat);
      for (const char* op : kBoolOps) {
        if (n.op_type() == op) return kBool;
      }
    }
  }
  return c.IsIntegerValue(name) ? int64_t{kInt64} : int64_t{0};
}

int64_t ElementType(ConverterContext& c, const std::string& name) {
  const int64_t t = DeclaredElementType(c, name);
  return t != 0 ? t : int64_t{kFloat};
}

namespace {

Status CastLike(ConverterContext& c) {
  if (!c.HasInput(1)) return c.Invalid("needs target_type");
  return CastTo(c, ElementType(c, c.node().input(1)));
}

Status Identity(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(0));
  c.Define(v);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"Constant"}, Constant) && RegisterOnnxConverter({"Shape"}, ShapeOp) &&
                         RegisterOnnxConverter({"Gather"}, Gather) && RegisterOnnxConverter({"Cast"}, Cast) &&
                         RegisterOnnxConverter({"CastLike"}, CastLike) &&
                         RegisterOnnxConverter({"Identity", "Dropout"}, Identity);

}  // namespace
}  // namespace rill::inference::onnx_import
