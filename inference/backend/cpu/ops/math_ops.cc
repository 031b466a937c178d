// The math and normalization ops (ir/ops/math_ops.h) on the CPU. Under
// AlgorithmPolicy::kReference each runs its reference kernel on the calling
// thread; otherwise contiguous loops the compiler vectorizes, split over the
// session's threads (TANH through the table's tanh where it has one).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "inference/backend/cpu/kernels/ref/math.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/backend/cpu/ops/math_loops.h"
#include "inference/ir/op_registry.h"
#include "inference/ir/ops/math_ops.h"

namespace rill::inference::cpu {
namespace {

std::string Lower(const char* name) {
  std::string s(name);
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

bool IsReference(const CpuArgs& args) { return args.algorithm == AlgorithmPolicy::kReference; }

void UnaryRun(const CpuKernels& k, ir::UnaryFn fn, const ir::UnaryMathAttrs& a, long long n, const float* in,
              float* out) {
  if (fn == ir::UnaryFn::kGelu && a.tanh_approximation) {  // UnaryMathLoop's GELU is the erf form
    if (k.transcendental.tanh_in_place == nullptr) {
      UnaryMathRef(fn, a, n, in, out);
      return;
    }
    GeluTanhArgumentLoop(n, in, out);
    k.transcendental.tanh_in_place(out, n);
    GeluTanhFinishLoop(n, in, out);
    return;
  }
  if (!UnaryMathLoop(fn, n, in, out)) UnaryMathRef(fn, a, n, in, out);
}

class UnaryMathOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override {
    return Lower(ir::OpTypeName(args_.node->type)) +
           (IsReference(args_) ? "_ref" : tanh_ || gelu_ ? "_" + isa_ : "_loop");
  }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    if (!ir::IsUnaryMathOp(args_.node->type, &fn_)) return Error("not a unary math op");
    const auto* a = args_.node->attrs_as<ir::UnaryMathAttrs>();
    attrs_ = a != nullptr ? *a : ir::UnaryMathAttrs{};
    n_ = NumElements(InShape(0));
    tanh_ = fn_ == ir::UnaryFn::kTanh && !IsReference(args_) && kernels().transcendental.tanh_in_place != nullptr;
    // GELU's erf form through the table's vector kernel (the loop's erf
    // stays scalar: its clamp and division do not vectorize without -mavx2).
    gelu_ = fn_ == ir::UnaryFn::kGelu && !attrs_.tanh_approximation && !IsReference(args_) &&
            kernels().transcendental.gelu != nullptr;
    isa_ = tanh_ || gelu_ ? kernels().transcendental.isa : "";
    return Status::Ok();
  }
  void Compute() override {
    const float* x = In(0);
    float* y = Out();
    if (IsReference(args_)) {
      UnaryMathRef(fn_, attrs_, n_, x, y);
      return;
    }
    ParallelRange(n_, 64, n_ * 8, [&](long long begin, long long end) {
      if (tanh_) {
        std::copy(x + begin, x + end, y + begin);
        kernels().transcendental.tanh_in_place(y + begin, end - begin);
      } else if (gelu_) {
        kernels().transcendental.gelu(end - begin, x + begin, y + begin);
      } else {
        UnaryRun(kernels(), fn_, attrs_, end - begin, x + begin, y + begin);
      }
    });
  }

 private:
  ir::UnaryFn fn_ = ir::UnaryFn::kSqrt;
  ir::UnaryMathAttrs attrs_;
  long long n_ = 0;
  bool tanh_ = false, gelu_ = false;
  std::string isa_;
};

class NaryMathOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override {
    return Lower(ir::OpTypeName(args_.node->type)) + (fast_ ? "_loop" : "_ref");
  }
  Status Prepare() override {
    const size_t count = args_.inputs.size();
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(count));
    if (!ir::IsNaryMathOp(args_.node->type, &fn_)) return Error("not a broadcasting math op");
    shapes_.clear();
    for (size_t k = 0; k < count; ++k) shapes_.push_back(InShape(k));
    in_.assign(count, nullptr);  // filled at each run, without allocating
    n_ = NumElements(OutShape());
    // The loops take inputs of the output's shape and scalars.
    fast_ = !IsReference(args_);
    for (const Shape& s : shapes_) fast_ = fast_ && (s == OutShape() || NumElements(s) == 1);
    // POW by a constant scalar exponent: 1, 2, 3, 0.5 have loops of their own.
    exponent_ = NAN;
    if (fn_ == ir::NaryFn::kPow && NumElements(shapes_[1]) == 1) {
      const ir::TensorInfo& e = args_.graph->tensors[args_.node->inputs[1]];
      if (e.is_constant()) exponent_ = *reinterpret_cast<const float*>(e.data);
    }
    return Status::Ok();
  }
  void Compute() override {
    std::vector<const float*>& in = in_;
    for (size_t k = 0; k < in.size(); ++k) in[k] = In(k);
    float* y = Out();
    if (!fast_) {
      NaryMathRef(fn_, shapes_, in, OutShape(), y);
      return;
    }
    ParallelRange(n_, 64, n_ * static_cast<long long>(in.size()), [&](long long begin, long long end) {
      const long long n = end - begin;
      float* out = y + begin;
      auto at = [&](size_t k) { return NumElements(shapes_[k]) == 1 ? nullptr : in[k] + begin; };
      if (fn_ == ir::NaryFn::kPow) {
        Pow(n, at(0), in[0], at(1), in[1], out);
        return;
      }
      // out = input 0, then each further input folded in.
      const float* first = at(0);
      if (first != nullptr) std::copy(first, first + n, out);
      else std::fill(out, out + n, in[0][0]);
      for (size_t k = 1; k < in.size(); ++k) {
        const float* v = at(k);
        if (v != nullptr) Fold(n, v, out);
        else Fold(n, in[k][0], out);
      }
      if (fn_ == ir::NaryFn::kMean) {
        const float c = static_cast<float>(in.size());
        for (long long i = 0; i < n; ++i) out[i] /= c;
      }
    });
  }

 private:
  // x / e: the run's elements, or nullptr for a scalar (read from *_scalar).
  void Pow(long long n, const float* x, const float* x_scalar, const float* e, const float* e_scalar,
           float* out) const {
    if (x == nullptr) {
      for (long long i = 0; i < n; ++i) out[i] = std::pow(x_scalar[0], e ? e[i] : e_scalar[0]);
      return;
    }
    if (e != nullptr) {
      for (long long i = 0; i < n; ++i) out[i] = std::pow(x[i], e[i]);
      return;
    }
    const float p = std::isnan(exponent_) ? e_scalar[0] : exponent_;
    if (!PowScalarLoop(n, x, p, out)) {
      for (long long i = 0; i < n; ++i) out[i] = std::pow(x[i], p);
    }
  }
  template <typename V>
  void Fold(long long n, V v, float* out) const {
    auto get = [&](long long i) {
      if constexpr (std::is_pointer_v<V>) return v[i];
      else return v;
    };
    switch (fn_) {
      case ir::NaryFn::kMin:
        for (long long i = 0; i < n; ++i) out[i] = ir::ApplyNary(ir::NaryFn::kMin, out[i], get(i));
        break;
      case ir::NaryFn::kMax:
        for (long long i = 0; i < n; ++i) out[i] = ir::ApplyNary(ir::NaryFn::kMax, out[i], get(i));
        break;
      default:
        for (long long i = 0; i < n; ++i) out[i] += get(i);
        break;
    }
  }

  ir::NaryFn fn_ = ir::NaryFn::kSum;
  std::vector<Shape> shapes_;
  std::vector<const float*> in_;
  long long n_ = 0;
  bool fast_ = false;
  float exponent_ = NAN;  // POW's constant scalar exponent
};

class LayerNormOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return IsReference(args_) ? "layer_norm_ref" : "layer_norm_rows"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(args_.inputs.size()));
    const auto* a = args_.node->attrs_as<ir::LayerNormAttrs>();
    if (a == nullptr) return Error("missing LayerNormAttrs");
    epsilon_ = a->epsilon;
    const Shape& x = InShape(0);
    const int rank = static_cast<int>(x.size());
    const int axis = a->axis < 0 ? a->axis + rank : a->axis;
    inner_ = 1;
    for (int d = axis; d < rank; ++d) inner_ *= x[d];
    rows_ = inner_ > 0 ? NumElements(x) / inner_ : 0;
    return Status::Ok();
  }
  void Compute() override {
    const float* x = In(0);
    const float* scale = In(1);
    const float* bias = In(2);
    float* y = Out();
    if (IsReference(args_)) {
      LayerNormRef(rows_, inner_, epsilon_, x, scale, bias, y);
      return;
    }
    const long long inner = inner_;
    const float eps = epsilon_;
    ParallelRange(rows_, 1, rows_ * inner_ * 4, [&](long long begin, long long end) {
      for (long long r = begin; r < end; ++r) {
        const float* xr = x + r * inner;
        float* yr = y + r * inner;
        LayerNormRow(inner, eps, xr, scale, bias, yr);
      }
    });
  }

 private:
  float epsilon_ = 1e-5f;
  long long rows_ = 0, inner_ = 1;
};

std::unique_ptr<Execution> MakeUnaryMath(const CpuArgs& args) { return std::make_unique<UnaryMathOp>(args); }
std::unique_ptr<Execution> MakeNaryMath(const CpuArgs& args) { return std::make_unique<NaryMathOp>(args); }
std::unique_ptr<Execution> MakeLayerNorm(const CpuArgs& args) { return std::make_unique<LayerNormOp>(args); }

bool RegisterAll() {
  bool ok = RegisterCpuOp(ir::LayerNormOp(), MakeLayerNorm);
  for (int i = 0; i < ir::kNumUnaryFns; ++i) {
    ok = RegisterCpuOp(ir::UnaryMathOp(static_cast<ir::UnaryFn>(i)), MakeUnaryMath) && ok;
  }
  for (int i = 0; i < ir::kNumNaryFns; ++i) {
    ok = RegisterCpuOp(ir::NaryMathOp(static_cast<ir::NaryFn>(i)), MakeNaryMath) && ok;
  }
  return ok;
}

const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace rill::inference::cpu
