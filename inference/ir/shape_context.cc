#include "inference/ir/shape_context.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "inference/ir/conv_geometry.h"

namespace rill::inference::ir {
namespace {

constexpr int kMaxWindowParam = 1 << 16;

bool InRange(int v) { return v >= 1 && v <= kMaxWindowParam; }

}  // namespace

Status ShapeContext::Ints(size_t i, std::vector<int64_t>* values, bool* known) {
  *known = false;
  values->clear();
  if (!Has(i)) return Error("input " + std::to_string(i) + " is missing");
  const int id = node_.inputs[i];
  const TensorInfo& t = g_.tensors[id];
  const Shape& shape = (*shapes_)[id];
  if (HasDynamicDim(shape) || NumElements(shape) > (1 << 20)) {
    if (!t.is_constant() && !at_run()) {
      read_run_time_values_ = true;
      return Status::Ok();
    }
    if (NumElements(shape) > (1 << 20)) return Error("input " + std::to_string(i) + " is too large for a shape operand");
  }
  const size_t n = static_cast<size_t>(NumElements(shape));
  const uint8_t* data = t.is_constant() ? t.data : nullptr;
  DataType dtype = t.dtype;
  if (data == nullptr) {
    if (!at_run()) {
      read_run_time_values_ = true;
      return Status::Ok();
    }
    data = static_cast<const uint8_t*>((*values_)[id]);
    run_time_inputs_read_ |= uint64_t{1} << std::min<size_t>(i, 63);
    dtype = DataType::kFloat32;  // every run-time tensor is float32
    if (data == nullptr && n > 0) return Error("input " + std::to_string(i) + " has no values at run time");
  }
  values->resize(n);
  for (size_t k = 0; k < n; ++k) {
    if (dtype == DataType::kInt64) {
      int64_t v;
      std::memcpy(&v, data + 8 * k, 8);
      (*values)[k] = v;
    } else if (dtype == DataType::kInt32) {
      int32_t v;
      std::memcpy(&v, data + 4 * k, 4);
      (*values)[k] = v;
    } else if (dtype == DataType::kFloat32) {
      float v;
      std::memcpy(&v, data + 4 * k, 4);
      if (!std::isfinite(v)) return Error("input " + std::to_string(i) + " holds a non-finite size");
      (*values)[k] = static_cast<int64_t>(std::llround(std::clamp(v, -1e15f, 1e15f)));
    } else {
      return Error("input " + std::to_string(i) + " is " + DataTypeName(dtype) + ", not an integer tensor");
    }
  }
  *known = true;
  return Status::Ok();
}

Status ShapeContext::Floats(size_t i, std::vector<double>* values, bool* known) {
  *known = false;
  values->clear();
  if (!Has(i)) return Error("input " + std::to_string(i) + " is missing");
  const int id = node_.inputs[i];
  const TensorInfo& t = g_.tensors[id];
  const Shape& shape = (*shapes_)[id];
  const uint8_t* data = t.is_constant() ? t.data : nullptr;
  DataType dtype = t.dtype;
  if (data == nullptr) {
    read_run_time_values_ = true;
    if (!at_run()) return Status::Ok();
    data = static_cast<const uint8_t*>((*values_)[id]);
    run_time_inputs_read_ |= uint64_t{1} << std::min<size_t>(i, 63);
    dtype = DataType::kFloat32;  // every run-time tensor is float32
  }
  if (HasDynamicDim(shape) || NumElements(shape) > (1 << 20)) {
    return Error("input " + std::to_string(i) + " is too large for a scalar operand");
  }
  const size_t n = static_cast<size_t>(NumElements(shape));
  if (data == nullptr && n > 0) return Error("input " + std::to_string(i) + " has no values at run time");
  values->resize(n);
  for (size_t k = 0; k < n; ++k) {
    if (dtype == DataType::kInt64) {
      int64_t v;
      std::memcpy(&v, data + 8 * k, 8);
      (*values)[k] = static_cast<double>(v);
    } else if (dtype == DataType::kInt32) {
      int32_t v;
      std::memcpy(&v, data + 4 * k, 4);
      (*values)[k] = v;
    } else if (dtype == DataType::kFloat32) {
      float v;
      std::memcpy(&v, data + 4 * k, 4);
      (*values)[k] = v;
    } else {
      return Error("input " + std::to_string(i) + " is " + DataTypeName(dtype) + ", not a numeric tensor");
    }
  }
  *known = true;
  return Status::Ok();
}

bool ShapeContext::ShapeOperandDims(size_t i, Shape* dims) const {
  if (at_run() || !Has(i)) return false;
  const TensorInfo& t = g_.tensors[node_.inputs[i]];
  if (t.plan_values.empty()) return false;
  *dims = t.plan_values;
  return true;
}

Status CheckWindow(ShapeContext& c, const OpAttrs& a, int kernel_h, int kernel_w) {
  if (!InRange(a.stride_h) || !InRange(a.stride_w) || !InRange(a.dilation_h) || !InRange(a.dilation_w) ||
      !InRange(kernel_h) || !InRange(kernel_w)) {
    return c.Error("invalid window: kernel " + std::to_string(kernel_h) + "x" + std::to_string(kernel_w) +
                   ", stride " + std::to_string(a.stride_h) + "x" + std::to_string(a.stride_w) + ", dilation " +
                   std::to_string(a.dilation_h) + "x" + std::to_string(a.dilation_w));
  }
  return Status::Ok();
}

Status CheckExplicitPads(ShapeContext& c, const OpAttrs& a) {
  if (a.padding != Padding::kExplicit) return Status::Ok();
  for (int p : {a.pad_top, a.pad_left, a.pad_bottom, a.pad_right}) {
    if (p < 0 || p > (1 << 20)) return c.Error("invalid padding " + std::to_string(p));
  }
  return Status::Ok();
}

// Output height and width of a conv window (kernel kh x kw) over x, or an
// error naming the window when it does not fit.
Status ConvWindowOutput(ShapeContext& c, const OpAttrs& a, const Shape& x, const Shape& w, int kh, int kw, int* oh,
                        int* ow) {
  RILL_INF_RETURN_IF_ERROR(CheckExplicitPads(c, a));
  *oh = a.padding == Padding::kExplicit
            ? ExplicitWindowOutputSize(x[1], kh, a.stride_h, a.dilation_h, a.pad_top, a.pad_bottom, false)
            : WindowOutputSize(x[1], kh, a.stride_h, a.dilation_h, a.padding);
  *ow = a.padding == Padding::kExplicit
            ? ExplicitWindowOutputSize(x[2], kw, a.stride_w, a.dilation_w, a.pad_left, a.pad_right, false)
            : WindowOutputSize(x[2], kw, a.stride_w, a.dilation_w, a.padding);
  if (*oh <= 0 || *ow <= 0) return c.Error("window " + ShapeToString(w) + " does not fit input " + ShapeToString(x));
  return Status::Ok();
}

}  // namespace rill::inference::ir
