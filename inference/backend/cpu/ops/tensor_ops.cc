// The tensor, shape and attention ops (inference/ir/ops/tensor_ops.h) on the
// CPU. BATCH_MATMUL runs each batch's matrices through the kernel table's
// packed GEMM (the right operand packed per batch into scratch), batches or
// row blocks over the threads; the broadcasting ops (EXPAND, WHERE, the
// comparisons) walk contiguous runs of the output over the threads; the
// others run their reference kernels (kernels/ref/tensor.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/softmax.h"
#include "inference/backend/cpu/kernels/ref/tensor.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/ops/tensor_ops.h"

namespace rill::inference::cpu {
namespace {

// Reads an op's typed attributes or errors naming the node.
template <class T>
StatusOr<const T*> TypedAttrsOf(const CpuArgs& args) {
  const T* a = args.node->attrs_as<T>();
  if (a == nullptr) return InvalidArgumentError(args.graph->NodeContext(*args.node) + "missing typed attributes");
  return a;
}

class BatchMatMulOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override {
    return gemm_ ? std::string("batch_matmul_gemm_") + gemm_->name : "batch_matmul_ref";
  }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(2));
    RILL_INF_ASSIGN_OR_RETURN(const ir::BatchMatMulAttrs* a, TypedAttrsOf<ir::BatchMatMulAttrs>(args_));
    const Shape& x = InShape(0);
    const Shape& w = InShape(1);
    const Shape& y = OutShape();
    const int batch_rank = static_cast<int>(y.size()) - 2;
    if (batch_rank > BatchMatMulParams::kMaxBatchRank) return Error("more than 6 batch dims");
    p_ = BatchMatMulParams{};
    p_.batch_rank = batch_rank;
    p_.adj_x = a->adj_x;
    p_.adj_y = a->adj_y;
    p_.m = y[batch_rank];
    p_.n = y[batch_rank + 1];
    p_.k = x[x.size() - (a->adj_x ? 2 : 1)];
    // Batch strides in matrices, 0 where an operand broadcasts.
    const int xb = static_cast<int>(x.size()) - 2, wb = static_cast<int>(w.size()) - 2;
    long long xs = 1, ws = 1;  // ws: the right operand's matrix count
    for (int d = batch_rank - 1; d >= 0; --d) {
      p_.batch_dims[d] = y[d];
      p_.batches *= y[d];
      const int xd = d - (batch_rank - xb), wd = d - (batch_rank - wb);
      const int xdim = xd >= 0 ? x[xd] : 1, wdim = wd >= 0 ? w[wd] : 1;
      p_.a_strides[d] = xdim == 1 ? 0 : xs;
      p_.b_strides[d] = wdim == 1 ? 0 : ws;
      xs *= xdim;
      ws *= wdim;
    }
    gemm_ = kernels().widest_gemm();
    scratch_floats_ = 0;
    const TensorBinding& right = *args_.inputs[1];
    const_b_ = gemm_ != nullptr && right.constant && right.dtype == DataType::kFloat32;
    packed_b_.clear();
    if (const_b_) {
      // A constant right operand: each of its matrices packed once here,
      // not at every run.
      const size_t panel = gemm_->packed_floats(p_.n, p_.k), kn = static_cast<size_t>(p_.k) * p_.n;
      packed_b_.resize(panel * static_cast<size_t>(ws));
      const float* w = static_cast<const float*>(right.host());
      for (long long j = 0; j < ws; ++j) PackRight(w + j * kn, packed_b_.data() + panel * j);
    }
    if (gemm_) {
      per_task_ = (const_b_ ? 0 : gemm_->packed_floats(p_.n, p_.k)) + (p_.adj_x ? static_cast<size_t>(p_.m) * p_.k : 0);
      scratch_floats_ = per_task_ * threads();
    }
    return Status::Ok();
  }
  size_t scratch_bytes() const override { return scratch_floats_ * sizeof(float); }
  void Compute() override {
    const float* a = In(0);
    const float* b = In(1);
    float* c = Out();
    if (!gemm_) {
      BatchMatMulRef(p_, a, b, c, 0, p_.batches);
      return;
    }
    const long long batches = p_.batches;
    if (batches >= threads() || p_.m < 16) {
      // One task per batch (the pool deals each thread a contiguous range
      // and lets a thread that is done take the rest of another's): a
      // thread that joins late or is preempted holds up one batch, not
      // half of them.
      auto task = [&](int t, int thread) {
        float* packed = Scratch() + per_task_ * thread;
        for (long long batch = BatchBegin(t); batch < BatchBegin(t + 1); ++batch) {
          const float* panel = nullptr;
          const float* lhs = PackBatch(a, b, batch, packed, &panel);
          Rows(lhs, panel, c + batch * p_.m * p_.n, 0, p_.m);
        }
      };
      ParallelFor(BatchTasks(), task);
      return;
    }
    // Few large batches: pack each on the calling thread, rows over the threads.
    for (long long batch = 0; batch < batches; ++batch) {
      float* packed = Scratch();
      const float* panel = nullptr;
      const float* lhs = PackBatch(a, b, batch, packed, &panel);
      float* out = c + batch * p_.m * p_.n;
      const int blocks = threads() * 2;
      auto rows = [&](int t, int) { Rows(lhs, panel, out, p_.m * t / blocks, p_.m * (t + 1) / blocks); };
      ParallelFor(blocks, rows);
    }
  }

 private:
  // Tasks over the batches: one batch each, or runs of consecutive
  // batches where there are very many (kMaxBatchTasks tasks at most).
  static constexpr long long kMaxBatchTasks = 1024;
  int BatchTasks() const { return static_cast<int>(std::min(p_.batches, kMaxBatchTasks)); }
  long long BatchBegin(int t) const { return p_.batches * t / BatchTasks(); }
  // Packs batch `batch`'s right operand into `packed` (followed by the
  // scratch of its transpose and, with adj_x, the left operand's), or finds
  // it packed in Prepare (a constant); *panel is the packed operand. Returns
  // the left operand as [m, k] rows.
  const float* PackBatch(const float* a, const float* b, long long batch, float* packed,
                         const float** panel) const {
    long long ao, bo;
    BatchMatMulOffsets(p_, batch, &ao, &bo);
    const int m = p_.m, n = p_.n, k = p_.k;
    float* at = packed;  // the constant's case: only the left operand's transpose
    if (const_b_) {
      *panel = packed_b_.data() + gemm_->packed_floats(n, k) * static_cast<size_t>(bo / (static_cast<long long>(k) * n));
    } else {
      PackRight(b + bo, packed);
      *panel = packed;
      at = packed + gemm_->packed_floats(n, k);
    }
    if (!p_.adj_x) return a + ao;
    const float* x = a + ao;
    for (int t = 0; t < k; ++t)
      for (int i = 0; i < m; ++i) at[static_cast<size_t>(i) * k + t] = x[static_cast<size_t>(t) * m + i];
    return at;
  }
  // One matrix of the right operand ([k, n], or [n, k] with adj_y) into
  // the GEMM's panels.
  void PackRight(const float* w, float* packed) const {
    if (p_.adj_y) {
      gemm_->pack(w, p_.n, p_.k, packed);
    } else {
      gemm_->pack_kn(w, p_.k, p_.n, packed);
    }
  }
  void Rows(const float* lhs, const float* packed, float* out, int row_begin, int row_end) const {
    if (row_begin >= row_end) return;
    gemm_->gemm(row_end - row_begin, p_.n, p_.k, lhs + static_cast<size_t>(row_begin) * p_.k, p_.k, packed, nullptr,
                FusedActivation::kNone, out + static_cast<size_t>(row_begin) * p_.n, p_.n);
  }

  BatchMatMulParams p_;
  const GemmKernels* gemm_ = nullptr;
  size_t per_task_ = 0, scratch_floats_ = 0;
  bool const_b_ = false;
  std::vector<float> packed_b_;  // a constant right operand's panels, packed in Prepare
};

// ATTENTION: per batch (a head of a window or image), K and V packed for
// the GEMMs once (from their rows as stored, no transpose), then per block of kRowBlock query
// rows the scores Q K^T into a scratch of kRowBlock x N, scaled, biased and
// softmaxed in place, and multiplied by V straight into the output: the
// whole [M, N] score matrix is never written out. Batches over the threads
// (each thread its own packed K, V and score block); with fewer batches than
// threads, each batch is packed on the calling thread and its row blocks run
// over the threads. All scratch is sized in Prepare.
class AttentionOp : public CpuOp {
 public:
  static constexpr int kRowBlock = 64;
  static constexpr long long kMaxBatchTasks = 1024;
  using CpuOp::CpuOp;
  std::string name() const override {
    return heads_ ? std::string("attention_") + heads_->name
           : gemm_ ? std::string("attention_gemm_") + gemm_->name
                   : "attention_ref";
  }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(args_.inputs.size()));
    RILL_INF_ASSIGN_OR_RETURN(const ir::AttentionAttrs* a, TypedAttrsOf<ir::AttentionAttrs>(args_));
    const Shape& q = InShape(0);
    const Shape& k = InShape(1);
    const Shape& v = InShape(2);
    const int rank = static_cast<int>(q.size());
    const int batch_rank = rank - 2;
    if (batch_rank > AttentionParams::kMaxBatchRank) return Error("more than 6 batch dims");
    p_ = AttentionParams{};
    p_.batch_rank = batch_rank;
    p_.m = q[rank - 2];
    p_.d = q[rank - 1];
    p_.k_transposed = a->k_transposed;
    p_.n = a->k_transposed ? k[rank - 1] : k[rank - 2];
    p_.dv = v[rank - 1];
    p_.scale = a->scale;
    p_.has_bias = HasInput(3);
    const Shape* bias = p_.has_bias ? &InShape(3) : nullptr;
    if (bias != nullptr) p_.bias_rows = (*bias)[bias->size() - 2];
    long long bs = 1;
    for (int d = batch_rank - 1; d >= 0; --d) {
      p_.batch_dims[d] = q[d];
      p_.batches *= q[d];
      if (bias != nullptr) {
        const int bd = d - (rank - static_cast<int>(bias->size()));
        const int dim = bd >= 0 ? (*bias)[bd] : 1;
        p_.bias_strides[d] = dim == 1 ? 0 : bs;
        bs *= dim;
      }
    }
    const bool optimized = args_.algorithm != AlgorithmPolicy::kReference;
    heads_ = optimized && kernels().attention.rows != nullptr && p_.n > 0 ? &kernels().attention : nullptr;
    gemm_ = optimized && heads_ == nullptr ? kernels().widest_gemm() : nullptr;
    scratch_floats_ = 0;
    if (heads_) {
      packed_k_ = heads_->keys_floats(p_.n, p_.d);
      packed_v_ = 0;
      per_task_ = packed_k_ + heads_->scores_floats(p_.n);
      scratch_floats_ = per_task_ * threads();
    } else if (gemm_) {
      const size_t n = p_.n;
      packed_k_ = gemm_->packed_floats(p_.n, p_.d);
      packed_v_ = gemm_->packed_floats(p_.dv, p_.n);
      per_task_ = packed_k_ + packed_v_ + static_cast<size_t>(kRowBlock) * n;
      scratch_floats_ = per_task_ * threads();
    }
    return Status::Ok();
  }
  size_t scratch_bytes() const override { return scratch_floats_ * sizeof(float); }
  void Compute() override {
    const float* bias = p_.has_bias ? In(3) : nullptr;
    if (!gemm_ && !heads_) {
      AttentionRef(p_, In(0), In(1), In(2), bias, Out(), 0, p_.batches);
      return;
    }
    // The table's heads block their rows themselves, AttentionKernels::kRowBlock at a time.
    const int row_block = heads_ ? AttentionKernels::kRowBlock : kRowBlock;
    const long long batches = p_.batches;
    const int blocks = (p_.m + row_block - 1) / row_block;
    if (batches >= threads() || blocks < 2) {
      // One task per batch (runs of batches where there are very many), as
      // BATCH_MATMUL: uneven or late threads even out.
      const int tasks = static_cast<int>(std::min<long long>(batches, kMaxBatchTasks));
      auto task = [&](int t, int thread) {
        float* scratch = Scratch() + per_task_ * thread;
        for (long long b = batches * t / tasks; b < batches * (t + 1) / tasks; ++b) {
          Pack(b, scratch);
          for (int r = 0; r < p_.m; r += row_block) Rows(b, scratch, scratch, r, std::min(p_.m, r + row_block));
        }
      };
      ParallelFor(tasks, task);
      return;
    }
    for (long long b = 0; b < batches; ++b) {
      Pack(b, Scratch());
      auto rows = [&](int t, int thread) {
        const int r = t * row_block;
        Rows(b, Scratch(), Scratch() + per_task_ * thread, r, std::min(p_.m, r + row_block));
      };
      ParallelFor(blocks, rows);
    }
  }

 private:
  // Packs batch b's K (the GEMM's [n, d] rows, or [d, n] when transposed)
  // and V ([n, dv]: the second GEMM's right operand as stored) into
  // `scratch`; with the table's heads, lays out its keys there.
  void Pack(long long b, float* scratch) const {
    if (heads_) {
      heads_->keys(Head(b), scratch);
      return;
    }
    const int n = p_.n, d = p_.d, dv = p_.dv;
    const float* k = In(1) + b * static_cast<long long>(n) * d;
    if (p_.k_transposed) {
      gemm_->pack_kn(k, d, n, scratch);
    } else {
      gemm_->pack(k, n, d, scratch);
    }
    gemm_->pack_kn(In(2) + b * static_cast<long long>(n) * dv, n, dv, scratch + packed_k_);
  }
  // Query rows [r0, r1) of batch b with the packed operands in `packed` and
  // the score block in `own`'s scratch.
  void Rows(long long b, const float* packed, float* own, int r0, int r1) const {
    float* s = own + packed_k_ + packed_v_;
    if (heads_) {
      heads_->rows(Head(b), packed, r0, r1, s);
      return;
    }
    const int n = p_.n, rows = r1 - r0;
    const float* q = In(0) + (b * p_.m + r0) * static_cast<long long>(p_.d);
    gemm_->gemm(rows, n, p_.d, q, p_.d, packed, nullptr, FusedActivation::kNone, s, n);
    const float* bias = p_.has_bias ? In(3) + AttentionBiasOffset(p_, b) : nullptr;
    const float scale = p_.scale;
    // Scaled, then biased: the table's vector kernels over the whole block
    // (scalar loops here took as long as the softmax), the same two roundings.
    const auto binary = kernels().elementwise.binary;
    const long long block = static_cast<long long>(rows) * n;
    // One bias row for every query row (period n), or a row per query.
    const float* bi = bias == nullptr ? nullptr : p_.bias_rows == 1 ? bias : bias + static_cast<size_t>(r0) * n;
    const long long period = p_.bias_rows == 1 ? n : block;
    if (binary != nullptr) {
      if (scale != 1.0f) binary(BinaryKind::kMul, block, s, &scale, 1, FusedActivation::kNone, s);
      if (bi != nullptr) binary(BinaryKind::kAdd, block, s, bi, period, FusedActivation::kNone, s);
    } else {
      for (long long i = 0; i < block; ++i) {
        float v = scale != 1.0f ? s[i] * scale : s[i];
        s[i] = bi != nullptr ? v + bi[i % period] : v;
      }
    }
    if (kernels().transcendental.softmax != nullptr) {
      kernels().transcendental.softmax(rows, n, 1, s, s, 0, rows);
    } else {
      SoftmaxRef(rows, n, 1, s, s);
    }
    gemm_->gemm(rows, p_.dv, n, s, n, packed + packed_k_, nullptr, FusedActivation::kNone,
                Out() + (b * p_.m + r0) * static_cast<long long>(p_.dv), p_.dv);
  }

  // Batch b as the kernel table's head: its operands where they are stored.
  AttentionHead Head(long long b) const {
    AttentionHead h;
    h.m = p_.m;
    h.n = p_.n;
    h.d = p_.d;
    h.dv = p_.dv;
    h.q = In(0) + b * p_.m * static_cast<long long>(p_.d);
    h.ldq = p_.d;
    h.k = In(1) + b * p_.n * static_cast<long long>(p_.d);
    h.ldk = p_.k_transposed ? p_.n : p_.d;
    h.k_transposed = p_.k_transposed;
    h.v = In(2) + b * p_.n * static_cast<long long>(p_.dv);
    h.ldv = p_.dv;
    if (p_.has_bias) {
      h.bias = In(3) + AttentionBiasOffset(p_, b);
      h.bias_per_query = p_.bias_rows != 1;
      h.bias_ld = p_.n;
    }
    h.scale = p_.scale;
    h.out = Out() + b * p_.m * static_cast<long long>(p_.dv);
    h.ldo = p_.dv;
    return h;
  }
  AttentionParams p_;
  const AttentionKernels* heads_ = nullptr;
  const GemmKernels* gemm_ = nullptr;
  size_t packed_k_ = 0, packed_v_ = 0, per_task_ = 0, scratch_floats_ = 0;
};

// [outer, axis, inner] with the node's axis.
void SplitAt(const Shape& x, int axis, long long* outer, long long* inner) {
  *outer = *inner = 1;
  for (int d = 0; d < axis; ++d) *outer *= x[d];
  for (int d = axis + 1; d < static_cast<int>(x.size()); ++d) *inner *= x[d];
}

class GatherOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "gather"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    RILL_INF_ASSIGN_OR_RETURN(const ir::AxisAttrs* a, TypedAttrsOf<ir::AxisAttrs>(args_));
    axis_ = a->axis;
    SplitAt(InShape(0), axis_, &outer_, &inner_);
    count_ = NumElements(InShape(1));
    indices_.assign(count_, 0);
    const TensorBinding& idx = *args_.inputs[1];
    const_indices_ = idx.constant && idx.dtype != DataType::kFloat32;
    if (const_indices_) {
      if (idx.dtype != DataType::kInt64 && idx.dtype != DataType::kInt32) return Error("indices must be integers");
      for (long long i = 0; i < count_; ++i) {
        int64_t v;
        if (idx.dtype == DataType::kInt64) {
          std::memcpy(&v, static_cast<const uint8_t*>(idx.host()) + 8 * i, 8);
        } else {
          int32_t w;
          std::memcpy(&w, static_cast<const uint8_t*>(idx.host()) + 4 * i, 4);
          v = w;
        }
        indices_[i] = Resolve(static_cast<double>(v));
      }
    }
    return Status::Ok();
  }
  void Compute() override {
    if (!const_indices_) {
      const float* idx = In(1);
      for (long long i = 0; i < count_; ++i) indices_[i] = Resolve(idx[i]);
    }
    if (args_.algorithm == AlgorithmPolicy::kReference) {
      GatherRef(outer_, InShape(0)[axis_], inner_, indices_, In(0), Out());
      return;
    }
    // The output [outer, count, inner] in pieces of its elements over the
    // threads (Swin's q, k, v: one index, outer 1, one long run), each
    // piece its parts of the runs it covers, copied.
    const long long dim = InShape(0)[axis_], inner = inner_, count = count_;
    if (outer_ * count * inner == 0) return;
    const float* x = In(0);
    float* y = Out();
    ParallelRange(outer_ * count * inner, 16, outer_ * count * inner, [&](long long begin, long long end) {
      for (long long r = begin / inner; r * inner < end; ++r) {
        const long long lo = std::max(begin, r * inner), hi = std::min(end, (r + 1) * inner);
        const float* src = x + ((r / count) * dim + indices_[r % count]) * inner;
        std::memcpy(y + lo, src + (lo - r * inner), static_cast<size_t>(hi - lo) * sizeof(float));
      }
    });
  }

 private:
  // Negative indices count from the end; out-of-range ones (an error in
  // ONNX) are clamped rather than read out of bounds.
  int64_t Resolve(double v) const {
    const int dim = InShape(0)[axis_];
    int64_t i = static_cast<int64_t>(v);
    if (i < 0) i += dim;
    return std::min<int64_t>(std::max<int64_t>(i, 0), dim - 1);
  }
  int axis_ = 0;
  long long outer_ = 1, inner_ = 1, count_ = 0;
  bool const_indices_ = false;
  std::vector<int64_t> indices_;
};

// EXPAND, WHERE and the comparisons: broadcast over runs of the output.
class NaryOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override {
    return std::string(ir::OpTypeName(args_.node->type)) == "EXPAND" ? "expand" : "broadcast_nary";
  }
  Status Prepare() override {
    // EXPAND's input 1 (a run-time shape) is not an operand.
    const size_t n = args_.node->type == ir::ExpandOp() ? 1 : args_.inputs.size();
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(n));
    std::vector<std::vector<int>> ins;
    for (size_t i = 0; i < n; ++i) ins.push_back(InShape(i));
    SetNaryParams(OutShape(), ins, &p_);
    const ir::OpType type = args_.node->type;
    if (type == ir::ExpandOp()) {
      op_ = Kind::kCopy;
    } else if (type == ir::WhereOp()) {
      op_ = Kind::kWhere;
    } else if (!ir::CompareKindOf(type, &compare_)) {
      return Error("not a broadcasting op");
    } else {
      op_ = Kind::kCompare;
    }
    return Status::Ok();
  }
  void Compute() override {
    const float* in[3] = {In(0), HasInput(1) ? In(1) : nullptr, HasInput(2) ? In(2) : nullptr};
    float* y = Out();
    ParallelRange(p_.out_size, 64, p_.out_size, [&](long long begin, long long end) {
      switch (op_) {
        case Kind::kCopy: NaryApply(p_, in, y, begin, end, [](float a, float, float) { return a; }); break;
        case Kind::kWhere:
          NaryApply(p_, in, y, begin, end, [](float c, float a, float b) { return c != 0.0f ? a : b; });
          break;
        case Kind::kCompare: Compare(in, y, begin, end); break;
      }
    });
  }

 private:
  enum class Kind { kCopy, kWhere, kCompare };
  void Compare(const float* const* in, float* y, long long begin, long long end) const {
    using ir::CompareKind;
    auto run = [&](auto f) {
      NaryApply(p_, in, y, begin, end, [f](float a, float b, float) { return f(a, b) ? 1.0f : 0.0f; });
    };
    switch (compare_) {
      case CompareKind::kEqual: run([](float a, float b) { return a == b; }); break;
      case CompareKind::kLess: run([](float a, float b) { return a < b; }); break;
      case CompareKind::kGreater: run([](float a, float b) { return a > b; }); break;
      case CompareKind::kLessEqual: run([](float a, float b) { return a <= b; }); break;
      case CompareKind::kGreaterEqual: run([](float a, float b) { return a >= b; }); break;
      case CompareKind::kAnd: run([](float a, float b) { return a != 0.0f && b != 0.0f; }); break;
      case CompareKind::kOr: run([](float a, float b) { return a != 0.0f || b != 0.0f; }); break;
      case CompareKind::kXor: run([](float a, float b) { return (a != 0.0f) != (b != 0.0f); }); break;
    }
  }
  NaryParams p_;
  Kind op_ = Kind::kCopy;
  ir::CompareKind compare_ = ir::CompareKind::kEqual;
};

// LOGICAL_NOT and CAST: one value in, one out.
class MapOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return is_not_ ? "logical_not" : "cast"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    is_not_ = args_.node->type == ir::NotOp();
    if (!is_not_) {
      RILL_INF_ASSIGN_OR_RETURN(const ir::CastAttrs* a, TypedAttrsOf<ir::CastAttrs>(args_));
      kind_ = a->kind;
      bits_ = a->bits;
      is_signed_ = a->is_signed;
    }
    count_ = NumElements(InShape(0));
    return Status::Ok();
  }
  void Compute() override {
    const float* x = In(0);
    float* y = Out();
    ParallelRange(count_, 64, count_, [&](long long begin, long long end) {
      if (is_not_) {
        for (long long i = begin; i < end; ++i) y[i] = x[i] == 0.0f ? 1.0f : 0.0f;
      } else if (kind_ == ir::CastKind::kToBool) {
        for (long long i = begin; i < end; ++i) y[i] = x[i] != 0.0f ? 1.0f : 0.0f;
      } else if (bits_ >= 64) {
        for (long long i = begin; i < end; ++i) y[i] = std::trunc(x[i]);
      } else {
        for (long long i = begin; i < end; ++i) y[i] = WrapToInteger(x[i]);
      }
    });
  }

 private:
  // Truncated toward zero, then wrapped into bits_ bits as C++'s integer
  // conversions do (two's complement); NaN and magnitudes past int64 pass
  // through truncated (C++ leaves them undefined).
  float WrapToInteger(float v) const {
    const float t = std::trunc(v);
    if (!(std::fabs(t) < 9.2e18f)) return t;
    const uint64_t mask = (uint64_t{1} << bits_) - 1;
    uint64_t u = static_cast<uint64_t>(static_cast<int64_t>(t)) & mask;
    if (is_signed_ && ((u >> (bits_ - 1)) & 1) != 0) return static_cast<float>(static_cast<int64_t>(u | ~mask));
    return static_cast<float>(u);
  }

  bool is_not_ = false;
  ir::CastKind kind_ = ir::CastKind::kToInteger;
  int bits_ = 64;
  bool is_signed_ = true;
  long long count_ = 0;
};

class TileOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "tile_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    RILL_INF_ASSIGN_OR_RETURN(const ir::TileAttrs* a, TypedAttrsOf<ir::TileAttrs>(args_));
    repeats_ = a->repeats;
    if (InShape(0).size() > static_cast<size_t>(NaryParams::kMaxRank)) return Error("rank > 8");
    return Status::Ok();
  }
  void Compute() override { TileRef(InShape(0), repeats_, In(0), Out()); }

 private:
  std::vector<int> repeats_;
};

// The reductions: the reference kernel, or, when the reduced axes are the
// innermost ones (a layer norm's statistics, a pooled head), contiguous rows
// over the threads.
class ReduceOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return std::string(rows_ ? "reduce_rows" : "reduce_ref"); }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    RILL_INF_ASSIGN_OR_RETURN(const ir::ReduceAttrs* a, TypedAttrsOf<ir::ReduceAttrs>(args_));
    ir::ReduceKind kind;
    if (!ir::ReduceKindOf(args_.node->type, &kind)) return Error("not a reduction");
    kind_ = static_cast<ReduceRefKind>(kind);
    const Shape& x = InShape(0);
    const int rank = static_cast<int>(x.size());
    if (rank > NaryParams::kMaxRank) return Error("rank > 8");
    reduce_.assign(rank, a->axes.empty());
    for (int ax : a->axes) reduce_[ax] = true;
    // Innermost axes only: [outer, inner] rows.
    int first = rank;
    while (first > 0 && reduce_[first - 1]) --first;
    bool inner_only = true;
    for (int d = 0; d < first; ++d) inner_only = inner_only && !reduce_[d];
    outer_ = inner_ = 1;
    for (int d = 0; d < rank; ++d) (d < first ? outer_ : inner_) *= x[d];
    rows_ = inner_only && args_.algorithm != AlgorithmPolicy::kReference;
    return Status::Ok();
  }
  void Compute() override {
    if (!rows_) {
      ReduceRef(kind_, InShape(0), reduce_, In(0), Out());
      return;
    }
    const float* x = In(0);
    float* y = Out();
    const long long inner = inner_;
    const ReduceRefKind kind = kind_;
    ParallelRange(outer_, 1, outer_ * inner_, [&](long long begin, long long end) {
      for (long long r = begin; r < end; ++r) y[r] = Row(kind, x + r * inner, inner);
    });
  }

 private:
  static float Row(ReduceRefKind kind, const float* x, long long n) {
    switch (kind) {
      case ReduceRefKind::kSum: {
        float s = 0.0f;
        for (long long i = 0; i < n; ++i) s += x[i];
        return s;
      }
      case ReduceRefKind::kL2: {
        float s = 0.0f;
        for (long long i = 0; i < n; ++i) s += x[i] * x[i];
        return std::sqrt(s);
      }
      case ReduceRefKind::kProd: {
        float s = 1.0f;
        for (long long i = 0; i < n; ++i) s *= x[i];
        return s;
      }
      case ReduceRefKind::kMax:
      case ReduceRefKind::kMin: {
        float s = kind == ReduceRefKind::kMax ? -INFINITY : INFINITY;
        for (long long i = 0; i < n; ++i) {
          if (std::isnan(x[i])) return x[i];
          s = kind == ReduceRefKind::kMax ? std::max(s, x[i]) : std::min(s, x[i]);
        }
        return s;
      }
    }
    return 0.0f;
  }
  ReduceRefKind kind_ = ReduceRefKind::kSum;
  std::vector<bool> reduce_;
  long long outer_ = 1, inner_ = 1;
  bool rows_ = false;
};

class ArgOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return min_ ? "arg_min_ref" : "arg_max_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    RILL_INF_ASSIGN_OR_RETURN(const ir::ArgAttrs* a, TypedAttrsOf<ir::ArgAttrs>(args_));
    min_ = args_.node->type == ir::ArgMinOp();
    last_ = a->select_last_index;
    axis_ = a->axis;
    SplitAt(InShape(0), axis_, &outer_, &inner_);
    return Status::Ok();
  }
  void Compute() override { ArgMaxRef(outer_, InShape(0)[axis_], inner_, min_, last_, In(0), Out()); }

 private:
  bool min_ = false, last_ = false;
  int axis_ = 0;
  long long outer_ = 1, inner_ = 1;
};

class TopKOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return values_ ? "topk_values_ref" : "topk_indices_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    RILL_INF_ASSIGN_OR_RETURN(const ir::TopKAttrs* a, TypedAttrsOf<ir::TopKAttrs>(args_));
    values_ = args_.node->type == ir::TopKValuesOp();
    a_ = *a;
    a_.k = OutShape()[a_.axis];  // the attribute, or the run-time K (input 1)
    SplitAt(InShape(0), a_.axis, &outer_, &inner_);
    order_.resize(InShape(0)[a_.axis]);
    return Status::Ok();
  }
  void Compute() override {
    TopKRef(outer_, InShape(0)[a_.axis], inner_, a_.k, a_.largest, In(0), values_ ? Out() : nullptr,
            values_ ? nullptr : Out(), order_.data());
  }

 private:
  std::vector<int> order_;  // TopKRef's scratch, sized in Prepare
  bool values_ = false;
  ir::TopKAttrs a_;
  long long outer_ = 1, inner_ = 1;
};

template <class T>
std::unique_ptr<Execution> Make(const CpuArgs& args) {
  return std::make_unique<T>(args);
}

const bool kRegistered = [] {
  RegisterCpuOp(ir::BatchMatMulOp(), Make<BatchMatMulOp>);
  RegisterCpuOp(ir::AttentionOp(), Make<AttentionOp>);
  RegisterCpuOp(ir::GatherOp(), Make<GatherOp>);
  RegisterCpuOp(ir::ExpandOp(), Make<NaryOp>);
  RegisterCpuOp(ir::WhereOp(), Make<NaryOp>);
  for (int k = 0; k <= static_cast<int>(ir::CompareKind::kXor); ++k) {
    RegisterCpuOp(ir::CompareOp(static_cast<ir::CompareKind>(k)), Make<NaryOp>);
  }
  RegisterCpuOp(ir::NotOp(), Make<MapOp>);
  RegisterCpuOp(ir::CastOp(), Make<MapOp>);
  RegisterCpuOp(ir::TileOp(), Make<TileOp>);
  for (int k = 0; k <= static_cast<int>(ir::ReduceKind::kL2); ++k) {
    RegisterCpuOp(ir::ReduceOp(static_cast<ir::ReduceKind>(k)), Make<ReduceOp>);
  }
  RegisterCpuOp(ir::ArgMaxOp(), Make<ArgOp>);
  RegisterCpuOp(ir::ArgMinOp(), Make<ArgOp>);
  RegisterCpuOp(ir::TopKValuesOp(), Make<TopKOp>);
  RegisterCpuOp(ir::TopKIndicesOp(), Make<TopKOp>);
  return true;
}();

}  // namespace
}  // namespace rill::inference::cpu
