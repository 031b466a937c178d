// Shape arithmetic on run-time shapes, followed before the run
// (PropagatePlanValues, onnx_converter.h). torchvision's exports compute
// shapes from a count known only at run time and dims known at import
// (MultiScaleRoIAlign: Shape -> Gather -> Unsqueeze -> Concat -> Where ->
// Expand, and ConstantOfShape of the result): the engine keeps the known
// dims through those small int tensors (ir::TensorInfo::plan_values), so
// the tensors they shape keep their static dims, and a value wholly known
// folds into a constant. Unknown entries are dims of run-time tensors,
// hence never negative (Equal with a negative constant is false).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "inference/import/onnx/onnx_converter.h"

namespace rill::inference::onnx_import {
namespace {

// An entry: its value, or none when known only at run time.
using Entry = std::optional<int64_t>;

// Input i's entries (a constant's, or a run-time tensor's plan values,
// where kDynamicDim means unknown) and its shape; false when neither is
// known or it is not small.
bool ValuesOf(const ConverterContext& c, int i, std::vector<Entry>* v) {
  v->clear();
  if (!c.HasInput(i)) return false;
  const Value* val = c.Find(c.node().input(i));
  if (val == nullptr || val->nhwc) return false;
  const Shape shape = c.ShapeOf(val->id);
  if (shape.size() > 1 || NumElements(shape) > 8 || ir::HasDynamicDim(shape)) return false;
  if (c.IsConst(val->id)) {
    for (int64_t x : c.ConstInts(val->id)) v->push_back(x);
    return true;
  }
  const Shape* pv = c.ShapeValues(val->id);
  if (pv == nullptr || static_cast<int64_t>(pv->size()) != NumElements(shape)) return false;
  for (int x : *pv) v->push_back(x == ir::kDynamicDim ? Entry() : Entry(x));
  return true;
}

// Element k of a (broadcast when it has one element).
const Entry& At(const std::vector<Entry>& a, size_t k) { return a[a.size() == 1 ? 0 : k]; }

}  // namespace

void PropagatePlanValues(ConverterContext& c) {
  const onnx::NodeProto& node = c.node();
  if (node.output_size() != 1) return;
  const Value* out = c.Find(node.output(0));
  if (out == nullptr || c.IsConst(out->id)) return;
  const std::string& op = node.op_type();
  std::vector<Entry> a, b, cond, r;
  if (op == "Identity" || op == "Cast" || op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" ||
      op == "Flatten") {
    if (op == "Cast" && c.AttrInt("to", 1) == 9) return;  // to bool
    if (!ValuesOf(c, 0, &a)) return;
    r = a;
  } else if (op == "Gather") {
    if (c.AttrInt("axis", 0) != 0 || !ValuesOf(c, 0, &a) || !ValuesOf(c, 1, &b)) return;
    for (const Entry& i : b) {
      if (!i) return;
      const int64_t k = *i < 0 ? *i + static_cast<int64_t>(a.size()) : *i;
      if (k < 0 || k >= static_cast<int64_t>(a.size())) return;
      r.push_back(a[k]);
    }
  } else if (op == "Concat") {
    for (int i = 0; i < node.input_size(); ++i) {
      if (!ValuesOf(c, i, &a)) return;
      r.insert(r.end(), a.begin(), a.end());
    }
  } else if (op == "Equal") {
    if (!ValuesOf(c, 0, &a) || !ValuesOf(c, 1, &b)) return;
    const size_t n = std::max(a.size(), b.size());
    if ((a.size() != n && a.size() != 1) || (b.size() != n && b.size() != 1)) return;
    for (size_t k = 0; k < n; ++k) {
      const Entry& x = At(a, k);
      const Entry& y = At(b, k);
      if (x && y) {
        r.push_back(*x == *y);
      } else if ((!x && y && *y < 0) || (!y && x && *x < 0)) {
        r.push_back(0);  // an unknown entry is a dim, never negative
      } else {
        r.push_back(Entry());
      }
    }
  } else if (op == "Where") {
    if (!ValuesOf(c, 0, &cond) || !ValuesOf(c, 1, &a) || !ValuesOf(c, 2, &b)) return;
    const size_t n = std::max({cond.size(), a.size(), b.size()});
    for (const auto* v : {&cond, &a, &b}) {
      if (v->size() != n && v->size() != 1) return;
    }
    for (size_t k = 0; k < n; ++k) {
      const Entry& p = At(cond, k);
      r.push_back(!p ? Entry() : *p != 0 ? At(a, k) : At(b, k));
    }
  } else {
    return;
  }
  const Shape shape = c.ShapeOf(out->id);
  if (static_cast<int64_t>(r.size()) != NumElements(shape) || ir::HasDynamicDim(shape)) return;
  bool known = true;
  for (const Entry& v : r) known = known && v.has_value();
  if (known) {
    std::vector<int64_t> values;
    for (const Entry& v : r) values.push_back(*v);
    c.Define(c.NewIntConst(node.output(0) + "/folded", values, &shape), false);
    return;
  }
  Shape plan;  // a known -1 cannot be told from an unknown entry: it is one
  for (const Entry& v : r) {
    plan.push_back(v && *v >= 0 && *v <= (int64_t{1} << 30) ? static_cast<int>(*v) : ir::kDynamicDim);
  }
  c.NoteShapeValues(out->id, plan);
}

}  // namespace rill::inference::onnx_import
