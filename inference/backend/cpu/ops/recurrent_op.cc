// LSTM, GRU and RNN on the CPU (ir/ops/recurrent_ops.h). The optimized
// execution multiplies every step's input by W in one GEMM per direction
// (rows of steps x batch, split over the threads) and each step's state by R
// with the table's GEMM (a GEMV for batch 1), both on weights packed at
// Prepare; the directions then run their steps on threads of their own. The
// gates are the reference kernel's code (kernels/ref/recurrent.h), with
// sigmoid and tanh on the table's vector kernels over whole gates.
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
    const bool constant_weights = args_.inputs[1]->constant && args_.inputs[2]->constant;
    if (args_.algorithm != AlgorithmPolicy::kReference && constant_weights && kernels().widest_gemm() != nullptr) {
      gemm_ = kernels().widest_gemm();
      const int h = dims_.hidden, gh = gates_ * h;
      split_h_gate_ = attrs_->kind == ir::RecurrentKind::kGru && !attrs_->linear_before_reset;
      w_.assign(attrs_->directions, {});
      r_.assign(attrs_->directions, {});
      rh_.assign(attrs_->directions, {});
      for (int d = 0; d < attrs_->directions; ++d) {
        w_[d].Pack(In(1) + static_cast<size_t>(d) * gh * dims_.input, gh, dims_.input, *gemm_, PanelType::kF32);
        const float* r = In(2) + static_cast<size_t>(d) * gh * h;
        r_[d].Pack(r, split_h_gate_ ? 2 * h : gh, h, *gemm_, PanelType::kF32);
        if (split_h_gate_) rh_[d].Pack(r + static_cast<size_t>(2) * h * h, h, h, *gemm_, PanelType::kF32);
      }
    }
    scratch_floats_ = gemm_ != nullptr ? (XwFloats() + RecurrentScratchFloats(*attrs_, dims_)) * attrs_->directions : 0;
    return Status::Ok();
  }

  size_t scratch_bytes() const override { return scratch_floats_ * sizeof(float); }
  size_t packed_weight_bytes() const override {
    size_t bytes = 0;
    for (const auto* set : {&w_, &r_, &rh_}) {
      for (const GemmPanels& p : *set) bytes += p.bytes();
    }
    return bytes;
  }

  void Compute() override {
    const float* b = In(3);
    if (gemm_ == nullptr) {
      RecurrentRef(*attrs_, dims_, In(0), In(1), In(2), b, In(4), In(5), In(6), Out());
      return;
    }
    const int dirs = attrs_->directions, h = dims_.hidden, gh = gates_ * h;
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
      auto product = [&, d, rb](int n_rows, const float* hs, int gate0, int gates, float* o, int ldo) {
        const GemmPanels& panels = gate0 == 0 ? r_[d] : rh_[d];
        const float* bias = rb ? rb + static_cast<size_t>(gate0) * h : nullptr;
        const int n = gates * h;
        if (n_rows == 1) {
          panels.Gemv(n, h, hs, 0, bias, FusedActivation::kNone, o);
        } else {
          panels.Gemm(n_rows, n, h, hs, h, 0, bias, FusedActivation::kNone, o, ldo);
        }
      };
      float* xw = scratch + d * per_dir;
      const size_t state = static_cast<size_t>(d) * dims_.batch * h;
      RunRecurrentDirection(*attrs_, dims_, d, xw, In(4) ? In(4) + state : nullptr, In(5) ? In(5) + state : nullptr,
                            In(6) ? In(6) + static_cast<size_t>(d) * 3 * h : nullptr, product, activate,
                            xw + XwFloats(), Out());
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
  std::vector<GemmPanels> w_, r_, rh_;  // per direction
  size_t scratch_floats_ = 0;
};

std::unique_ptr<Execution> MakeRecurrent(const CpuArgs& args) { return std::make_unique<RecurrentOp>(args); }

const bool kRegistered = RegisterCpuOp(ir::RecurrentOp(ir::RecurrentKind::kLstm), MakeRecurrent) &&
                         RegisterCpuOp(ir::RecurrentOp(ir::RecurrentKind::kGru), MakeRecurrent) &&
                         RegisterCpuOp(ir::RecurrentOp(ir::RecurrentKind::kRnn), MakeRecurrent);

}  // namespace
}  // namespace rill::inference::cpu
