// The broadcasting binaries (ADD, SUB, MUL, DIV, PRELU) and the unary
// activations on the CPU.
#include <algorithm>
#include <string>

#include "inference/backend/cpu/kernels/ref/activations.h"
#include "inference/backend/cpu/kernels/ref/add.h"
#include "inference/backend/cpu/kernels/ref/div.h"
#include "inference/backend/cpu/kernels/ref/mul.h"
#include "inference/backend/cpu/kernels/ref/prelu.h"
#include "inference/backend/cpu/kernels/ref/sub.h"
#include "inference/backend/cpu/ops/cpu_op.h"

namespace rill::inference::cpu {
namespace {

class BinaryOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override {
    // PRELU's kernel has an ISA string of its own (where `binary` may be
    // null, as on ARM, and so its string).
    if (args_.node->type == ir::OpType::kPRelu) {
      return std::string("prelu_") + (fast_ ? kernels().elementwise.prelu_isa : "ref");
    }
    const std::string suffix = std::string("_") + (fast_ || runs_ ? kernels().elementwise.isa : "ref");
    switch (args_.node->type) {
      case ir::OpType::kAdd: return "add" + suffix;
      case ir::OpType::kSub: return "sub" + suffix;
      case ir::OpType::kMul: return "mul" + suffix;
      default: return "div" + suffix;
    }
  }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(2));
    if (!MakeBroadcastParams(InShape(0), InShape(1), &p_)) return Error("shapes do not broadcast");
    p_.activation = ToFused(attrs().activation);
    // The table's kernel: one operand has the output's shape (the first, or the
    // second of an ADD or MUL: x * gate as well as gate * x) and the other is
    // the same shape, a scalar, one value per innermost index, or one per
    // image and innermost index (a squeeze-excitation gate [N, 1, 1, C]).
    // PRELU takes the same forms for its slope (TFLite's per-channel [C] or
    // [1, 1, C], a scalar, x's shape) through the table's own PRELU kernel.
    fast_ = false;
    const ir::OpType t = args_.node->type;
    const bool commutes = t == ir::OpType::kAdd || t == ir::OpType::kMul;
    swapped_ = commutes && InShape(0) != OutShape() && InShape(1) == OutShape();
    const bool has_kernel =
        t == ir::OpType::kPRelu ? kernels().elementwise.prelu != nullptr : kernels().elementwise.binary != nullptr;
    if (has_kernel && InShape(swapped_ ? 1 : 0) == OutShape()) {
      const Shape& a = InShape(swapped_ ? 1 : 0);
      const Shape& b = InShape(swapped_ ? 0 : 1);
      const int64_t nb = NumElements(b);
      const int64_t images = a.size() >= 2 && b.size() == a.size() && b[0] == a[0] ? a[0] : 1;
      bool per_channel = !a.empty() && !b.empty() && nb == images * a.back() && b.back() == a.back();
      for (size_t i = images > 1 ? 1 : 0; per_channel && i + 1 < b.size(); ++i) per_channel = b[i] == 1;
      if (a == b || nb == 1 || per_channel) {
        fast_ = true;
        n_ = NumElements(a);
        period_ = a == b ? n_ : nb == 1 ? 1 : a.back();
        image_ = a == b || nb == 1 || images == 1 ? n_ : n_ / images;
        op_ = t == ir::OpType::kAdd ? BinaryKind::kAdd : t == ir::OpType::kSub ? BinaryKind::kSub
            : t == ir::OpType::kMul ? BinaryKind::kMul : BinaryKind::kDiv;
      }
    }
    runs_ = !fast_ && has_kernel && t != ir::OpType::kPRelu && args_.algorithm != AlgorithmPolicy::kReference &&
            PlanRuns(commutes);
    return Status::Ok();
  }
  void Compute() override {
    if (fast_) {
      // Pieces start on a period of b, so each piece reads b from its start;
      // a per-image b moves on at each image's first element.
      const auto binary = kernels().elementwise.binary;
      const auto prelu = kernels().elementwise.prelu;
      const bool is_prelu = args_.node->type == ir::OpType::kPRelu;
      const float* a = In(swapped_ ? 1 : 0);
      const float* b = In(swapped_ ? 0 : 1);
      float* y = Out();
      const long long align = period_ == n_ || period_ == 1 ? 64 : period_;
      ParallelRange(n_, align, n_, [&](long long begin, long long end) {
        if (period_ == n_) {
          if (is_prelu) prelu(end - begin, a + begin, b + begin, end - begin, y + begin);
          else binary(op_, end - begin, a + begin, b + begin, end - begin, p_.activation, y + begin);
          return;
        }
        for (long long i = begin; i < end;) {
          const long long image = i / image_, stop = std::min(end, (image + 1) * image_);
          const float* bi = period_ == 1 ? b : b + image * period_;
          if (is_prelu) prelu(stop - i, a + i, bi, period_, y + i);
          else binary(op_, stop - i, a + i, bi, period_, p_.activation, y + i);
          i = stop;
        }
      });
      return;
    }
    if (runs_) {
      ComputeRuns();
      return;
    }
    if (args_.algorithm == AlgorithmPolicy::kReference || p_.rank == 0) {
      Reference(p_, In(0), In(1), Out());
      return;
    }
    // Other broadcasts (short runs; a first operand broadcast along the
    // innermost axis of a SUB or DIV) run the reference kernel on pieces of
    // the output's outermost axis longer than 1, over the threads: each
    // piece a broadcast of its own, the operands' offsets by their strides.
    int axis = 0;
    while (axis + 1 < p_.rank && p_.out_dims[axis] == 1) ++axis;
    long long out_stride = 1;
    for (int d = axis + 1; d < p_.rank; ++d) out_stride *= p_.out_dims[d];
    const float* a = In(0);
    const float* b = In(1);
    float* y = Out();
    ParallelRange(p_.out_dims[axis], 1, p_.out_size, [&](long long begin, long long end) {
      BroadcastParams piece = p_;
      piece.out_dims[axis] = static_cast<int>(end - begin);
      piece.out_size = (end - begin) * out_stride;
      Reference(piece, a + begin * p_.a_strides[axis], b + begin * p_.b_strides[axis], y + begin * out_stride);
    });
  }

 private:
  void Reference(const BroadcastParams& p, const float* a, const float* b, float* y) const {
    switch (args_.node->type) {
      case ir::OpType::kAdd: AddRef(p, a, b, y); break;
      case ir::OpType::kSub: SubRef(p, a, b, y); break;
      case ir::OpType::kMul: MulRef(p, a, b, y); break;
      case ir::OpType::kDiv: DivRef(p, a, b, y); break;
      default: PReluRef(p, a, b, y); break;
    }
  }

  // Any other broadcast whose innermost run (the output's innermost axes
  // merged while both operands step through them alike) is long: the
  // table's kernel once per run, the first operand contiguous along it and
  // the second contiguous or one value (Swin's attention mask [1, W, 1, N,
  // N] on the scores [1, W, H, N, N]: runs of N * N; its position bias [H,
  // N, N] on [W, H, N, N]: one run of H * N * N per window). An ADD or MUL
  // whose first operand is the broadcast one swaps them.
  static constexpr long long kMinRun = 16;
  bool PlanRuns(bool commutes) {
    dims_ = 0;
    for (int d = 0; d < p_.rank; ++d) {
      if (p_.out_dims[d] == 1) continue;
      const long long sa = p_.a_strides[d], sb = p_.b_strides[d], n = p_.out_dims[d];
      if (dims_ > 0 && run_a_[dims_ - 1] == sa * n && run_b_[dims_ - 1] == sb * n) {
        run_dims_[dims_ - 1] *= n;
        run_a_[dims_ - 1] = sa;
        run_b_[dims_ - 1] = sb;
        continue;
      }
      run_dims_[dims_] = n;
      run_a_[dims_] = sa;
      run_b_[dims_] = sb;
      ++dims_;
    }
    if (dims_ == 0) return false;
    const int in = dims_ - 1;
    runs_swapped_ = false;
    if (run_a_[in] != 1 && commutes && run_b_[in] == 1) {
      runs_swapped_ = true;
      for (int d = 0; d < dims_; ++d) std::swap(run_a_[d], run_b_[d]);
    }
    if (run_a_[in] != 1 || (run_b_[in] != 1 && run_b_[in] != 0) || run_dims_[in] < kMinRun) return false;
    op_ = args_.node->type == ir::OpType::kAdd   ? BinaryKind::kAdd
          : args_.node->type == ir::OpType::kSub ? BinaryKind::kSub
          : args_.node->type == ir::OpType::kMul ? BinaryKind::kMul
                                                 : BinaryKind::kDiv;
    return true;
  }
  void ComputeRuns() {
    const auto binary = kernels().elementwise.binary;
    const int in = dims_ - 1;
    const long long run = run_dims_[in], period = run_b_[in] == 1 ? run : 1;
    const float* a = In(runs_swapped_ ? 1 : 0);
    const float* b = In(runs_swapped_ ? 0 : 1);
    float* y = Out();
    ParallelRange(p_.out_size / run, 1, p_.out_size, [&](long long begin, long long end) {
      for (long long r = begin; r < end; ++r) {
        long long oa = 0, ob = 0, rest = r;
        for (int d = in - 1; d >= 0; --d) {
          const long long i = rest % run_dims_[d];
          rest /= run_dims_[d];
          oa += i * run_a_[d];
          ob += i * run_b_[d];
        }
        binary(op_, run, a + oa, b + ob, period, p_.activation, y + r * run);
      }
    });
  }

  BroadcastParams p_;
  bool fast_ = false;
  bool runs_ = false;          // ComputeRuns
  bool runs_swapped_ = false;  // its first operand is the node's second
  int dims_ = 0;               // the merged loop nest, outermost first
  long long run_dims_[BroadcastParams::kMaxRank] = {};
  long long run_a_[BroadcastParams::kMaxRank] = {}, run_b_[BroadcastParams::kMaxRank] = {};
  bool swapped_ = false;  // the operand with the output's shape is the second
  long long n_ = 0, period_ = 1;
  long long image_ = 0;  // elements per image of a per-image b (else n_)
  BinaryKind op_ = BinaryKind::kAdd;
};

class UnaryOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override {
    const std::string isa = std::string("_") + (kernel_ != nullptr ? isa_ : "ref");
    switch (args_.node->type) {
      case ir::OpType::kRelu: return "relu_ref";
      case ir::OpType::kRelu6: return "relu6_ref";
      case ir::OpType::kHardSwish: return "hard_swish" + isa;
      case ir::OpType::kClamp: return "clamp_ref";
      case ir::OpType::kLeakyRelu: return "leaky_relu_ref";
      case ir::OpType::kHardSigmoid: return "hard_sigmoid_ref";
      case ir::OpType::kSilu: return "silu" + isa;
      default: return "logistic" + isa;
    }
  }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    n_ = NumElements(InShape(0));
    const CpuKernels& k = kernels();
    switch (args_.node->type) {
      case ir::OpType::kHardSwish:
        kernel_ = k.elementwise.hard_swish;
        isa_ = k.elementwise.isa;
        break;
      case ir::OpType::kSilu:
        kernel_ = k.transcendental.silu;
        isa_ = k.transcendental.isa;
        break;
      case ir::OpType::kLogistic:
        kernel_ = k.transcendental.logistic;
        isa_ = k.transcendental.isa;
        break;
      default: kernel_ = nullptr; break;
    }
    return Status::Ok();
  }
  void Compute() override {
    // Each element on its own: pieces over the threads (the same results).
    const float* x = In(0);
    float* y = Out();
    ParallelRange(n_, 64, n_, [&](long long begin, long long end) {
      const long long n = end - begin;
      const float* in = x + begin;
      float* out = y + begin;
      switch (args_.node->type) {
        case ir::OpType::kRelu: ReluRef(n, in, out); break;
        case ir::OpType::kRelu6: Relu6Ref(n, in, out); break;
        case ir::OpType::kHardSwish:
          if (kernel_ != nullptr) kernel_(n, in, out);
          else HardSwishRef(n, in, out);
          break;
        case ir::OpType::kClamp: ClampRef(n, attrs().clamp_min, attrs().clamp_max, in, out); break;
        case ir::OpType::kLeakyRelu: LeakyReluRef(n, attrs().alpha, in, out); break;
        case ir::OpType::kHardSigmoid: HardSigmoidRef(n, attrs().alpha, attrs().beta, in, out); break;
        case ir::OpType::kSilu:
          if (kernel_ != nullptr) kernel_(n, in, out);
          else SiluRef(n, in, out);
          break;
        default:
          if (kernel_ != nullptr) kernel_(n, in, out);
          else LogisticRef(n, in, out);
          break;
      }
    });
  }

 private:
  long long n_ = 0;
  // The table's kernel where it has one (HARD_SWISH, LOGISTIC, SILU), and
  // the ISA its name says.
  void (*kernel_)(long long n, const float* in, float* out) = nullptr;
  const char* isa_ = "ref";
};

}  // namespace

std::unique_ptr<Execution> MakeBinary(const CpuArgs& args) { return std::make_unique<BinaryOp>(args); }
std::unique_ptr<Execution> MakeUnary(const CpuArgs& args) { return std::make_unique<UnaryOp>(args); }

namespace {

const bool kRegistered = RegisterCpuOp(ir::OpType::kAdd, MakeBinary) &&
                         RegisterCpuOp(ir::OpType::kSub, MakeBinary) &&
                         RegisterCpuOp(ir::OpType::kMul, MakeBinary) &&
                         RegisterCpuOp(ir::OpType::kDiv, MakeBinary) &&
                         RegisterCpuOp(ir::OpType::kPRelu, MakeBinary) &&
                         RegisterCpuOp(ir::OpType::kClamp, MakeUnary) &&
                         RegisterCpuOp(ir::OpType::kLeakyRelu, MakeUnary) &&
                         RegisterCpuOp(ir::OpType::kHardSigmoid, MakeUnary) &&
                         RegisterCpuOp(ir::OpType::kSilu, MakeUnary) &&
                         RegisterCpuOp(ir::OpType::kRelu, MakeUnary) &&
                         RegisterCpuOp(ir::OpType::kRelu6, MakeUnary) &&
                         RegisterCpuOp(ir::OpType::kHardSwish, MakeUnary) &&
                         RegisterCpuOp(ir::OpType::kLogistic, MakeUnary);

}  // namespace

}  // namespace rill::inference::cpu
