// LSTM, GRU and RNN on the CPU (ir/ops/recurrent_ops.h). The optimized
// execution multiplies every step's input by W in one GEMM per direction
// (rows of steps x batch, split over the threads) and each step's state by R
// with the table's GEMM (a GEMV for batch 1), both on weights packed at
// Prepare; the directions then run their steps on threads of their own. The
// gates are the reference kernel's code (kernels/ref/recurrent.h), with
// sigmoid and tanh on the table's vector kernels over whole gates; LSTM's
// projection (TFLite's) is the table's GEMM / GEMV on its packed weights.
#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/recurrent.h"
#include "inference/backend/cpu/ops/conv_common.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/ops/recurrent_ops.h"

namespace rill::inference::cpu {
namespace {

class RecurrentOp : public CpuOp {
 public:
  using CpuOp::CpuOp;

  std::string name() const override {
    std::string n = ir::OpTypeName(args_.node->type);
    std::transform(n.begin(), n.end(), n.begin(), [](char ch) { return static_cast<char>(std::tolower(ch)); });
    return n + (gemm_ != nullptr ? std::string("_gemm_") + gemm_->name : "_ref");
  }

  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::RecurrentAttrs>();
    if (attrs_ == nullptr) return Error("missing RecurrentAttrs");
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(args_.inputs.size()));
    const Shape& x = InShape(0);
    dims_ = {x[0], x[1], x[2], attrs_->hidden};
    gates_ = ir::GatesOf(attrs_->kind);
    gemm_ = nullptr;
    const bool has_projection = attrs_->projection > 0;
    const bool constant_weights = args_.inputs[1]->constant && args_.inputs[2]->constant &&
                                  (!has_projection || args_.inputs[7]->constant);
    if (args_.algorithm != AlgorithmPolicy::kReference && constant_weights && kernels().widest_gemm() != nullptr) {
      gemm_ = kernels().widest_gemm();
      const int h = dims_.hidden, gh = gates_ * h, hs = ir::StateWidthOf(*attrs_), p = attrs_->projection;
      split_h_gate_ = attrs_->kind == ir::RecurrentKind::kGru && !attrs_->linear_before_reset;
      w_.assign(attrs_->directions, {});
      r_.assign(attrs_->directions, {});
      rh_.assign(attrs_->directions, {});
      proj_.assign(has_projection ? attrs_->directions : 0, {});
      for (int d = 0; d < attrs_->directions; ++d) {
        w_[d].Pack(In(1) + static_cast<size_t>(d) * gh * dims_.input, gh, dims_.input, *gemm_, PanelType::kF32);
        const float* r = In(2) + static_cast<size_t>(d) * gh * hs;
        r_[d].Pack(r, split_h_gate_ ? 2 * h : gh, hs, *gemm_, PanelType::kF32);
        if (split_h_gate_) rh_[d].Pack(r + static_cast<size_t>(2) * h * h, h, h, *gemm_, PanelType::kF32);
        if (has_projection) proj_[d].Pack(In(7) + static_cast<size_t>(d) * p * h, p, h, *gemm_, PanelType::kF32);
      }
    }
    scratch_floats_ = gemm_ != nullptr ? (XwFloats() + RecurrentScratchFloats(*attrs_, dims_)) * attrs_->directions : 0;
    return Status::Ok();
  }

  size_t scratch_bytes() const override { return scratch_floats_ * sizeof(float); }
  size_t packed_weight_bytes() const override {
    size_t bytes = 0;
    for (const auto* set : {&w_, &r_, &rh_, &proj_}) {
      for (const GemmPanels& p : *set) bytes += p.bytes();
    }
    return bytes;
  }

  void Compute() override {
    const float* b = In(3);
    if (gemm_ == nullptr) {
      RecurrentInputs in;
      in.x = In(0);
      in.w = In(1);
      in.r = In(2);
      in.b = b;
      in.init_h = In(4);
      in.init_c = In(5);
      in.p = In(6);
      in.proj_w = In(7);
      in.proj_b = In(8);
      in.ln_coeff = In(9);
      in.ln_bias = In(10);
      RecurrentRef(*attrs_, dims_, in, Out());
      return;
    }
    const int dirs = attrs_->directions, h = dims_.hidden, gh = gates_ * h;
    const int hs = ir::StateWidthOf(*attrs_), p = attrs_->projection;
    const int rows = dims_.steps * dims_.batch;
    float* scratch = Scratch();
    const size_t per_dir = XwFloats() + RecurrentScratchFloats(*attrs_, dims_);
    // x W^T + Wb for every step, in row blocks over the threads.
    const int blocks = std::max(1, std::min((rows + kRowsPerBlock - 1) / kRowsPerBlock, 4 * threads()));
    auto input_block = [&](int task, int) {
      const int d = task / blocks, blk = task % blocks;
      const int r0 = static_cast<int>(static_cast<long long>(rows) * blk / blocks);
      const int r1 = static_cast<int>(static_cast<long long>(rows) * (blk + 1) / blocks);
      if (r1 <= r0) return;
      float* xw = scratch + d * per_dir;
      w_[d].Gemm(r1 - r0, gh, dims_.input, In(0) + static_cast<size_t>(r0) * dims_.input, dims_.input, 0,
                 b ? b + static_cast<size_t>(d) * 2 * gh : nullptr, FusedActivation::kNone,
                 xw + static_cast<size_t>(r0) * gh, gh);
    };
    ParallelFor(dirs * blocks, input_block);
    // Sigmoid and tanh, the gates' usual functions, on the table's vector
    // kernels; the others element by element.
    const TranscendentalKernels& tk = kernels().transcendental;
    auto activate = [&tk](const ir::RecurrentFunction& f, float* v, int n) {
      if (f.fn == ir::RecurrentActivation::kSigmoid && tk.logistic != nullptr) {
        tk.logistic(n, v, v);
      } else if (f.fn == ir::RecurrentActivation::kTanh && tk.tanh_in_place != nullptr) {
        tk.tanh_in_place(v, n);
      } else {
        ScalarRecurrentActivate(f, v, n);
      }
    };
    auto direction = [&](int d, int) {
      const float* rb = b ? b + static_cast<size_t>(d) * 2 * gh + gh : nullptr;
      auto product = [&, d, rb](int n_rows, const float* hs_in, int gate0, int gates, float* o, int ldo) {
        const GemmPanels& panels = gate0 == 0 ? r_[d] : rh_[d];
        const float* bias = rb ? rb + static_cast<size_t>(gate0) * h : nullptr;
        const int n = gates * h;
        // The h gate of GRU multiplies r . h, H wide; the others the state, Hs.
        const int k = gate0 == 0 ? hs : h;
        if (n_rows == 1) {
          panels.Gemv(n, k, hs_in, 0, bias, FusedActivation::kNone, o);
        } else {
          panels.Gemm(n_rows, n, k, hs_in, k, 0, bias, FusedActivation::kNone, o, ldo);
        }
      };
      const float* pb = In(8) ? In(8) + static_cast<size_t>(d) * p : nullptr;
      auto project = [&, d, pb](int n_rows, const float* in, float* o) {
        if (n_rows == 1) {
          proj_[d].Gemv(p, h, in, 0, pb, FusedActivation::kNone, o);
        } else {
          proj_[d].Gemm(n_rows, p, h, in, h, 0, pb, FusedActivation::kNone, o, p);
        }
      };
      const RecurrentProject project_ref = project;
      float* xw = scratch + d * per_dir;
      const size_t b_rows = static_cast<size_t>(d) * dims_.batch;
      RecurrentDirectionArgs args;
      args.xw = xw;
      args.init_h = In(4) ? In(4) + b_rows * hs : nullptr;
      args.init_c = In(5) ? In(5) + b_rows * h : nullptr;
      args.peep = In(6) ? In(6) + static_cast<size_t>(d) * 3 * h : nullptr;
      args.ln_coeff = In(9) ? In(9) + static_cast<size_t>(d) * 4 * h : nullptr;
      args.ln_bias = In(10) ? In(10) + static_cast<size_t>(d) * 4 * h : nullptr;
      args.project = p > 0 ? &project_ref : nullptr;
      RunRecurrentDirection(*attrs_, dims_, d, args, product, activate, xw + XwFloats(), Out());
    };
    ParallelFor(dirs, direction);
  }

 private:
  static constexpr int kRowsPerBlock = 48;
  size_t XwFloats() const {
    return static_cast<size_t>(dims_.steps) * dims_.batch * static_cast<size_t>(gates_) * dims_.hidden;
  }

  const ir::RecurrentAttrs* attrs_ = nullptr;
  RecurrentDims dims_;
  int gates_ = 1;
  const GemmKernels* gemm_ = nullptr;  // null: the reference kernel
  bool split_h_gate_ = false;          // GRU without linear_before_reset: R_h packed apart
  std::vector<GemmPanels> w_, r_, rh_, proj_;  // per direction
  size_t scratch_floats_ = 0;
};

std::unique_ptr<Execution> MakeRecurrent(const CpuArgs& args) { return std::make_unique<RecurrentOp>(args); }

const bool kRegistered = RegisterCpuOp(ir::RecurrentOp(ir::RecurrentKind::kLstm), MakeRecurrent) &&
                         RegisterCpuOp(ir::RecurrentOp(ir::RecurrentKind::kGru), MakeRecurrent) &&
                         RegisterCpuOp(ir::RecurrentOp(ir::RecurrentKind::kRnn), MakeRecurrent);

}  // namespace
}  // namespace rill::inference::cpu
