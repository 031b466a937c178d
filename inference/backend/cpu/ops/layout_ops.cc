// Ops that move data without arithmetic: PAD, RESHAPE, CONCATENATION,
// DEPTH_TO_SPACE; and the resizes (RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR,
// RESIZE_BICUBIC), SOFTMAX, TRANSPOSE.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/concatenation.h"
#include "inference/backend/cpu/kernels/ref/depth_to_space.h"
#include "inference/backend/cpu/kernels/ref/pad.h"
#include "inference/backend/cpu/kernels/ref/reshape.h"
#include "inference/backend/cpu/kernels/ref/resize_bilinear.h"
#include "inference/backend/cpu/kernels/ref/resize_nearest.h"
#include "inference/backend/cpu/kernels/ref/resize_separable.h"
#include "inference/backend/cpu/kernels/ref/slice.h"
#include "inference/backend/cpu/kernels/ref/softmax.h"
#include "inference/backend/cpu/kernels/ref/transpose.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/slice_geometry.h"

namespace rill::inference::cpu {
namespace {

class PadOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return fast_ ? "pad_copy" : "pad_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    const Shape& x = InShape(0);
    if (x.size() > static_cast<size_t>(PadParams::kMaxRank)) return Error("rank > 6");
    std::vector<int> pads;
    RILL_INF_RETURN_IF_ERROR(ir::ReadConstInts(*args_.graph, *args_.node, 1, &pads));
    p_ = PadParams{};
    p_.rank = static_cast<int>(x.size());
    for (int d = 0; d < p_.rank; ++d) {
      p_.in_dims[d] = x[d];
      p_.before[d] = pads[2 * d];
      p_.after[d] = pads[2 * d + 1];
    }
    if (HasInput(2)) {
      const TensorBinding* v = args_.inputs[2];
      if (!v->constant || v->dtype != DataType::kFloat32 || NumElements(v->shape) != 1) {
        return Error("pad value must be a constant float scalar");
      }
      p_.value = *static_cast<const float*>(v->host());
    }
    fast_ = kernels().data.pad != nullptr;
    return Status::Ok();
  }
  void Compute() override {
    if (!fast_) {
      PadRef(p_, In(0), Out());
      return;
    }
    // The output's outermost axis longer than 1 in pieces over the threads:
    // each piece a PAD of its own (the input rows it covers, the padding
    // before and after them), so every value is copied as in one call.
    int a = 0;
    while (a + 1 < p_.rank && OutDim(a) == 1) ++a;
    long long in_stride = 1, out_stride = 1, total = 1;
    for (int d = 0; d < p_.rank; ++d) total *= OutDim(d);
    for (int d = a + 1; d < p_.rank; ++d) {
      in_stride *= p_.in_dims[d];
      out_stride *= OutDim(d);
    }
    const float* x = In(0);
    float* y = Out();
    if (p_.rank == 0) {
      kernels().data.pad(p_, x, y);
      return;
    }
    const long long before = p_.before[a], in = p_.in_dims[a];
    ParallelRange(OutDim(a), 1, total, [&](long long begin, long long end) {
      PadParams piece = p_;
      const long long lo = std::max(begin, before), hi = std::min(end, before + in);
      piece.in_dims[a] = static_cast<int>(std::max(0LL, hi - lo));
      piece.before[a] = static_cast<int>(std::max(0LL, std::min(end, before) - begin));
      piece.after[a] = static_cast<int>(end - begin - piece.before[a] - piece.in_dims[a]);
      kernels().data.pad(piece, x + (hi > lo ? (lo - before) * in_stride : 0), y + begin * out_stride);
    });
  }

 private:
  long long OutDim(int d) const { return static_cast<long long>(p_.before[d]) + p_.in_dims[d] + p_.after[d]; }

  PadParams p_;
  bool fast_ = false;
};

class ReshapeOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "reshape_ref"; }
  Status Prepare() override {
    bytes_ = static_cast<size_t>(NumElements(InShape(0))) * DataTypeSize(args_.inputs[0]->dtype);
    return Status::Ok();
  }
  void Compute() override { ReshapeRef(bytes_, args_.inputs[0]->host(), args_.outputs[0]->host()); }

 private:
  size_t bytes_ = 0;
};

class ConcatenationOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return fast_ ? "concatenation_copy" : "concatenation_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(args_.inputs.size()));
    const Shape& y = OutShape();
    const int rank = static_cast<int>(y.size());
    const int axis = (attrs().axis + rank) % rank;
    outer_ = 1;
    for (int d = 0; d < axis; ++d) outer_ *= y[d];
    chunks_.clear();
    for (size_t i = 0; i < args_.inputs.size(); ++i) {
      long long chunk = 1;
      for (int d = axis; d < rank; ++d) chunk *= InShape(i)[d];
      chunks_.push_back(chunk);
    }
    row_ = 0;
    for (long long c : chunks_) row_ += c;
    pointers_.assign(args_.inputs.size(), nullptr);
    fast_ = kernels().data.concatenation != nullptr && ToFused(attrs().activation) == FusedActivation::kNone;
    return Status::Ok();
  }
  void Compute() override {
    for (size_t i = 0; i < pointers_.size(); ++i) pointers_[i] = In(i);
    if (fast_ && outer_ < 2LL * threads()) {
      // Too few outer rows for the threads (a concatenation along H or W of
      // one image: Swin's shifted windows): pieces of the output's elements,
      // each copying its parts of the inputs' chunks.
      float* y = Out();
      const long long total = outer_ * row_;
      ParallelRange(total, 16, total, [&](long long begin, long long end) {
        for (long long o = begin / row_; o * row_ < end; ++o) {
          long long at = o * row_;  // where input i's chunk of row o starts
          for (size_t i = 0; i < pointers_.size(); at += chunks_[i], ++i) {
            const long long lo = std::max(begin, at), hi = std::min(end, at + chunks_[i]);
            if (lo >= hi) continue;
            std::memcpy(y + lo, pointers_[i] + o * chunks_[i] + (lo - at),
                        static_cast<size_t>(hi - lo) * sizeof(float));
          }
        }
      });
    } else if (fast_) {
      // Pieces of the outer dimension over the threads.
      float* y = Out();
      ParallelRange(outer_, 1, outer_ * row_, [&](long long begin, long long end) {
        const int n = static_cast<int>(pointers_.size());
        const float* piece[kMaxPieceInputs];
        if (n > kMaxPieceInputs) {
          if (begin == 0) kernels().data.concatenation(n, pointers_.data(), chunks_.data(), outer_, y);
          return;
        }
        for (int i = 0; i < n; ++i) piece[i] = pointers_[i] + begin * chunks_[i];
        kernels().data.concatenation(n, piece, chunks_.data(), end - begin, y + begin * row_);
      });
    } else {
      ConcatenationRef(static_cast<int>(pointers_.size()), pointers_.data(), chunks_.data(), outer_,
                       ToFused(attrs().activation), Out());
    }
  }

 private:
  // Inputs a piece's pointers fit on the stack for (runs allocate nothing);
  // more inputs than that copy on one thread.
  static constexpr int kMaxPieceInputs = 32;
  bool fast_ = false;
  long long outer_ = 1;
  long long row_ = 0;  // output floats per outer index: the chunks together
  std::vector<long long> chunks_;
  std::vector<const float*> pointers_;
};

class DepthToSpaceOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return Reference() ? "depth_to_space_ref" : "depth_to_space_rows"; }
  Status Prepare() override { return NeedFloatInputs(1); }
  void Compute() override {
    const Shape& x = InShape(0);
    const int block = attrs().block_size;
    if (Reference()) {
      DepthToSpaceRef(x[0], x[1], x[2], x[3], block, In(0), Out());
      return;
    }
    // Output rows over the threads, each pixel's channels one copy (the
    // reference's values: a permutation).
    const int in_h = x[1], in_w = x[2], in_c = x[3];
    const int out_c = in_c / (block * block), out_h = in_h * block, out_w = in_w * block;
    const long long rows = static_cast<long long>(x[0]) * out_h;
    const float* in = In(0);
    float* out = Out();
    const size_t bytes = static_cast<size_t>(out_c) * sizeof(float);
    ParallelRange(rows, 1, rows * out_w * out_c, [&](long long begin, long long end) {
      for (long long r = begin; r < end; ++r) {
        const long long n = r / out_h;
        const int oy = static_cast<int>(r % out_h), y = oy / block, dy = oy % block;
        const float* src_row = in + (n * in_h + y) * in_w * in_c + static_cast<long long>(dy) * block * out_c;
        float* dst = out + r * out_w * out_c;
        for (int ox = 0; ox < out_w; ++ox, dst += out_c) {
          std::memcpy(dst, src_row + static_cast<long long>(ox / block) * in_c + (ox % block) * out_c, bytes);
        }
      }
    });
  }

 private:
  bool Reference() const { return args_.algorithm == AlgorithmPolicy::kReference; }
};

// Base of the ops that run separable resampling (RESIZE_BICUBIC, an
// antialiased RESIZE_BILINEAR): taps at resize; output rows in pieces over
// the threads, each thread with its own cache of resampled rows (scratch).
class ResizeSeparableOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  size_t scratch_bytes() const override { return fast_ ? scratch_floats_ * threads() * sizeof(float) : 0; }

 protected:
  void PrepareSeparable(ResizeFilter filter) {
    const ir::OpAttrs& a = attrs();
    sp_ = ResizeSeparableParams{};
    SetNhwcSizes(&sp_);
    sp_.filter = filter;
    SetResizeCoordinates(a, InShape(0), &sp_);
    sp_.cubic_coeff_a = a.cubic_coeff_a;
    sp_.exclude_outside = a.exclude_outside;
    ComputeResizeSeparableTaps(sp_, true, &rows_);
    ComputeResizeSeparableTaps(sp_, false, &cols_);
    fast_ = kernels().data.separable_rows != nullptr;
    scratch_floats_ = fast_ ? kernels().data.separable_scratch_floats(sp_, rows_) : 0;
  }
  void RunSeparable() {
    const float* x = In(0);
    float* y = Out();
    if (!fast_) {
      ResizeSeparableRef(sp_, rows_, cols_, x, y);
      return;
    }
    const long long rows = static_cast<long long>(sp_.batch) * sp_.out_h;
    const long long work = rows * sp_.out_w * sp_.channels * rows_.taps;
    const int pieces = threads() <= 1 || work < kMinParallelElements
                           ? 1
                           : static_cast<int>(std::min<long long>(rows, 2LL * threads()));
    auto piece = [&](int i, int thread) {
      kernels().data.separable_rows(sp_, rows_, cols_, x, y, static_cast<int>(rows * i / pieces),
                                    static_cast<int>(rows * (i + 1) / pieces), Scratch() + scratch_floats_ * thread);
    };
    ParallelFor(pieces, piece);
  }

  ResizeSeparableParams sp_;
  ResizeTaps rows_, cols_;
  bool fast_ = false;
  size_t scratch_floats_ = 0;  // per thread
};

class ResizeBilinearOp : public ResizeSeparableOp {
 public:
  using ResizeSeparableOp::ResizeSeparableOp;
  std::string name() const override {
    if (attrs().antialias) return fast_ ? "resize_antialias_linear_simd" : "resize_antialias_linear_ref";
    return std::string("resize_bilinear_") + (fast_ ? kernels().data.resize_isa : "ref");
  }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    const ir::OpAttrs& a = attrs();
    if (a.antialias) {
      if (a.resize_coordinate == ir::ResizeCoordinate::kTflite) {
        return Error("antialias needs an ONNX coordinate transform");
      }
      PrepareSeparable(ResizeFilter::kAntialiasLinear);
      return Status::Ok();
    }
    fast_ = kernels().data.resize_bilinear != nullptr;
    scratch_floats_ = 0;
    p_ = ResizeParams{};
    SetNhwcSizes(&p_);
    SetResizeCoordinates(a, InShape(0), &p_);
    p_.align_corners = a.align_corners;
    p_.half_pixel_centers = a.half_pixel_centers;
    if (fast_) kernels().data.bilinear_taps(p_, &y_taps_, &x_taps_);
    return Status::Ok();
  }
  void Compute() override {
    if (attrs().antialias) RunSeparable();
    else if (fast_) Fast();
    else ResizeBilinearRef(p_, In(0), Out());
  }

  // Output rows (of all images) in pieces over the threads: the kernel runs
  // on one image's rows at a time, their taps and output offset, so every
  // output is computed as in one call.
  void Fast() const {
    const long long rows = static_cast<long long>(p_.batch) * p_.out_h;
    const long long row_floats = static_cast<long long>(p_.out_w) * p_.channels;
    const long long in_image = static_cast<long long>(p_.in_h) * p_.in_w * p_.channels;
    const float* x = In(0);
    float* y = Out();
    ParallelRange(rows, 1, rows * row_floats * 4, [&](long long begin, long long end) {
      while (begin < end) {
        const int n = static_cast<int>(begin / p_.out_h);
        const int r0 = static_cast<int>(begin % p_.out_h);
        const int r1 = static_cast<int>(std::min<long long>(end - static_cast<long long>(n) * p_.out_h, p_.out_h));
        ResizeParams part = p_;
        part.batch = 1;
        part.out_h = r1 - r0;
        kernels().data.resize_bilinear(part, y_taps_.data() + r0, x_taps_.data(), x + n * in_image,
                                       y + begin * row_floats);
        begin += r1 - r0;
      }
    });
  }

 private:
  ResizeParams p_;
  std::vector<BilinearTap> y_taps_, x_taps_;
};

class ResizeBicubicOp : public ResizeSeparableOp {
 public:
  using ResizeSeparableOp::ResizeSeparableOp;
  std::string name() const override {
    if (attrs().antialias) return fast_ ? "resize_antialias_cubic_simd" : "resize_antialias_cubic_ref";
    return fast_ ? "resize_bicubic_simd" : "resize_bicubic_ref";
  }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    if (attrs().resize_coordinate == ir::ResizeCoordinate::kTflite) return Error("needs an ONNX coordinate transform");
    PrepareSeparable(attrs().antialias ? ResizeFilter::kAntialiasCubic : ResizeFilter::kCubic);
    return Status::Ok();
  }
  void Compute() override { RunSeparable(); }
};

class ResizeNearestOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return fast_ ? "resize_nearest_copy" : "resize_nearest_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    const ir::OpAttrs& a = attrs();
    p_ = ResizeNearestParams{};
    SetNhwcSizes(&p_);
    SetResizeCoordinates(a, InShape(0), &p_);
    p_.rounding = a.nearest_rounding;
    p_.align_corners = a.align_corners;
    p_.half_pixel_centers = a.half_pixel_centers;
    fast_ = args_.algorithm != AlgorithmPolicy::kReference;
    // The source row and column of every output row and column, once (-1:
    // extrapolation_value).
    rows_.resize(p_.out_h);
    cols_.resize(p_.out_w);
    const ResizeAxis axis_h = ResizeAxisH(p_), axis_w = ResizeAxisW(p_);
    for (int i = 0; i < p_.out_h; ++i) rows_[i] = NearestSourceIndex(p_, axis_h, i);
    for (int i = 0; i < p_.out_w; ++i) cols_[i] = NearestSourceIndex(p_, axis_w, i);
    return Status::Ok();
  }
  void Compute() override {
    if (!fast_) {
      ResizeNearestRef(p_, In(0), Out());
      return;
    }
    // Output rows over the threads; each pixel one copy of its channels, and
    // a row that repeats the previous one's source row one copy of that row.
    const float* x = In(0);
    float* y = Out();
    const long long c = p_.channels;
    const long long out_row = p_.out_w * c;
    const float value = p_.extrapolation_value;
    ParallelRange(static_cast<long long>(p_.batch) * p_.out_h, 1, static_cast<long long>(p_.batch) * p_.out_h * out_row,
                  [&](long long begin, long long end) {
                    for (long long r = begin; r < end; ++r) {
                      const long long n = r / p_.out_h;
                      const int oy = static_cast<int>(r % p_.out_h);
                      float* dst = y + r * out_row;
                      if (r > begin && oy > 0 && rows_[oy] == rows_[oy - 1]) {
                        std::memcpy(dst, dst - out_row, static_cast<size_t>(out_row) * sizeof(float));
                        continue;
                      }
                      if (rows_[oy] < 0) {
                        std::fill(dst, dst + out_row, value);
                        continue;
                      }
                      const float* src = x + (n * p_.in_h + rows_[oy]) * p_.in_w * c;
                      for (int ox = 0; ox < p_.out_w; ++ox) {
                        if (cols_[ox] < 0) {
                          std::fill(dst + ox * c, dst + (ox + 1) * c, value);
                        } else {
                          std::memcpy(dst + ox * c, src + cols_[ox] * c, static_cast<size_t>(c) * sizeof(float));
                        }
                      }
                    }
                  });
  }

 private:
  ResizeNearestParams p_;
  bool fast_ = false;
  std::vector<int> rows_, cols_;
};

class SoftmaxOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override {
    return std::string("softmax_") + (fast_ ? kernels().transcendental.isa : "ref");
  }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    const Shape& x = InShape(0);
    const int rank = static_cast<int>(x.size());
    const int axis = (attrs().axis + rank) % rank;
    outer_ = inner_ = 1;
    for (int d = 0; d < axis; ++d) outer_ *= x[d];
    for (int d = axis + 1; d < rank; ++d) inner_ *= x[d];
    axis_size_ = x[axis];
    fast_ = kernels().transcendental.softmax != nullptr;
    return Status::Ok();
  }
  void Compute() override {
    if (!fast_) {
      SoftmaxRef(outer_, axis_size_, inner_, In(0), Out());
      return;
    }
    // Whole softmax vectors per piece (rows when the axis is the last one;
    // else runs of columns, 16 at a time): the same bits for any split.
    const float* x = In(0);
    float* y = Out();
    const long long vectors = outer_ * inner_;
    ParallelRange(vectors, inner_ == 1 ? 1 : 16, vectors * axis_size_, [&](long long begin, long long end) {
      kernels().transcendental.softmax(outer_, axis_size_, inner_, x, y, begin, end);
    });
  }

 private:
  long long outer_ = 1, inner_ = 1;
  int axis_size_ = 1;
  bool fast_ = false;
};

class TransposeOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override {
    return fast_ ? "transpose_blocked" : runs_ > 0 ? "transpose_runs" : "transpose_ref";
  }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    const Shape& x = InShape(0);
    p_ = TransposeParams{};
    p_.rank = static_cast<int>(x.size());
    for (int d = 0; d < p_.rank; ++d) {
      p_.in_dims[d] = x[d];
      p_.perm[d] = attrs().perm[d];
    }
    fast_ = kernels().data.plan_transpose != nullptr && kernels().data.plan_transpose(p_, &plan_);
    PlanRuns();
    return Status::Ok();
  }
  void Compute() override {
    if (!fast_ && runs_ > 0) {
      const float* x = In(0);
      float* y = Out();
      ParallelRange(runs_, 1, runs_ * run_, [&](long long begin, long long end) { CopyRuns(x, y, begin, end); });
      return;
    }
    if (!fast_) {
      TransposeRef(p_, In(0), Out());
      return;
    }
    const float* x = In(0);
    float* y = Out();
    if (plan_.batch >= 4LL * threads()) {
      // Many small transposes (ShuffleNet's per-pixel channel shuffle):
      // whole ones per thread; column pieces would have both threads write
      // every output cache line.
      const long long matrix = plan_.rows * plan_.cols;
      ParallelRange(plan_.batch, 1, plan_.total, [&](long long begin, long long end) {
        TransposePlan part = plan_;
        part.batch = end - begin;
        part.total = part.batch * matrix;
        kernels().data.transpose(part, x + begin * matrix, y + begin * matrix);
      });
      return;
    }
    // Output rows (input columns) in pieces over the threads.
    ParallelRange(plan_.cols, 16, plan_.total,
                  [&](long long begin, long long end) { kernels().data.transpose_columns(plan_, x, y, begin, end); });
  }

 private:
  // A permutation the table's plan does not take (rank 5 and 6, or its
  // dims not reducible to a batch of 2-D transposes: the head split of
  // ViT's and Swin's attention, [B, N, 3, heads, d] -> [3, B, heads, N, d])
  // but that keeps the innermost axes in place moves whole runs of them:
  // one copy per run, the runs over the threads, in place of the
  // reference's index arithmetic per element.
  void PlanRuns() {
    runs_ = 0;
    if (fast_ || args_.algorithm == AlgorithmPolicy::kReference || p_.rank < 2) return;
    int tail = 0;  // trailing axes the permutation keeps
    while (tail < p_.rank && p_.perm[p_.rank - 1 - tail] == p_.rank - 1 - tail) ++tail;
    if (tail == 0 || tail == p_.rank) return;
    long long in_stride[TransposeParams::kMaxRank];
    long long stride = 1;
    for (int d = p_.rank - 1; d >= 0; --d) {
      in_stride[d] = stride;
      stride *= p_.in_dims[d];
    }
    // The run: the kept axes, in_stride of the first outer one.
    run_ = in_stride[p_.rank - 1 - tail];
    if (run_ < 4) return;
    outer_rank_ = p_.rank - tail;
    for (int i = 0; i < outer_rank_; ++i) {
      outer_dims_[i] = p_.in_dims[p_.perm[i]];
      outer_stride_[i] = in_stride[p_.perm[i]];
    }
    runs_ = stride / run_;
  }
  // Output runs [begin, end): an odometer over the output's outer axes.
  void CopyRuns(const float* x, float* y, long long begin, long long end) const {
    long long idx[TransposeParams::kMaxRank] = {};
    long long rest = begin, offset = 0;
    for (int i = outer_rank_ - 1; i >= 0; --i) {
      idx[i] = rest % outer_dims_[i];
      rest /= outer_dims_[i];
      offset += idx[i] * outer_stride_[i];
    }
    const size_t bytes = static_cast<size_t>(run_) * sizeof(float);
    for (long long r = begin; r < end; ++r) {
      std::memcpy(y + r * run_, x + offset, bytes);
      for (int i = outer_rank_ - 1; i >= 0; --i) {
        offset += outer_stride_[i];
        if (++idx[i] < outer_dims_[i]) break;
        offset -= idx[i] * outer_stride_[i];
        idx[i] = 0;
      }
    }
  }

  TransposeParams p_;
  TransposePlan plan_;
  bool fast_ = false;
  long long runs_ = 0, run_ = 1;
  int outer_rank_ = 0;
  long long outer_dims_[TransposeParams::kMaxRank] = {};
  long long outer_stride_[TransposeParams::kMaxRank] = {};
};

// SLICE: strided runs copied row by row, the rows split over the threads.
class SliceOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "slice_rows"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(3));
    const Shape& x = InShape(0);
    const ir::OpAttrs& a = attrs();
    // Run-time starts / ends (inputs 1, 2): read here, which the dynamic
    // region calls at every run.
    std::vector<long long> values[2];
    for (int k = 0; k < 2; ++k) {
      if (!HasInput(1 + k)) continue;
      const float* v = In(1 + k);
      for (long long i = 0; i < NumElements(InShape(1 + k)); ++i) values[k].push_back(std::llround(v[i]));
    }
    std::vector<long long> start, end;
    if (!ir::SliceBounds(a.slice_start, a.slice_end, a.slice_runtime_axes, HasInput(1) ? &values[0] : nullptr,
                         HasInput(2) ? &values[1] : nullptr, &start, &end)) {
      return Error("run-time starts / ends do not match the sliced axes");
    }
    p_ = SliceParams{};
    p_.rank = static_cast<int>(x.size());
    for (int d = 0; d < p_.rank; ++d) {
      p_.in_dims[d] = x[d];
      p_.step[d] = a.slice_step[d];
      ir::SliceAxis(x[d], start[d], end[d], a.slice_step[d], &p_.begin[d], &p_.out_dims[d]);
    }
    return Status::Ok();
  }
  void Compute() override {
    const long long rows = SliceRows(p_);
    const long long width = p_.rank > 0 ? p_.out_dims[p_.rank - 1] : 1;
    ParallelRange(rows, 1, rows * width,
                  [&](long long begin, long long end) { SliceRef(p_, In(0), Out(), begin, end); });
  }

 private:
  SliceParams p_;
};

}  // namespace

std::unique_ptr<Execution> MakeSlice(const CpuArgs& args) { return std::make_unique<SliceOp>(args); }
std::unique_ptr<Execution> MakeSoftmax(const CpuArgs& args) { return std::make_unique<SoftmaxOp>(args); }
std::unique_ptr<Execution> MakeTranspose(const CpuArgs& args) { return std::make_unique<TransposeOp>(args); }

std::unique_ptr<Execution> MakePad(const CpuArgs& args) { return std::make_unique<PadOp>(args); }
std::unique_ptr<Execution> MakeReshape(const CpuArgs& args) { return std::make_unique<ReshapeOp>(args); }
std::unique_ptr<Execution> MakeConcatenation(const CpuArgs& args) {
  return std::make_unique<ConcatenationOp>(args);
}
std::unique_ptr<Execution> MakeDepthToSpace(const CpuArgs& args) {
  return std::make_unique<DepthToSpaceOp>(args);
}
std::unique_ptr<Execution> MakeResizeBilinear(const CpuArgs& args) {
  return std::make_unique<ResizeBilinearOp>(args);
}
std::unique_ptr<Execution> MakeResizeNearest(const CpuArgs& args) {
  return std::make_unique<ResizeNearestOp>(args);
}
std::unique_ptr<Execution> MakeResizeBicubic(const CpuArgs& args) {
  return std::make_unique<ResizeBicubicOp>(args);
}

namespace {

const bool kRegistered = RegisterCpuOp(ir::OpType::kPad, MakePad) &&
                         RegisterCpuOp(ir::OpType::kReshape, MakeReshape) &&
                         RegisterCpuOp(ir::OpType::kConcatenation, MakeConcatenation) &&
                         RegisterCpuOp(ir::OpType::kDepthToSpace, MakeDepthToSpace) &&
                         RegisterCpuOp(ir::OpType::kResizeBilinear, MakeResizeBilinear) &&
                         RegisterCpuOp(ir::OpType::kResizeNearest, MakeResizeNearest) &&
                         RegisterCpuOp(ir::OpType::kResizeBicubic, MakeResizeBicubic) &&
                         RegisterCpuOp(ir::OpType::kSoftmax, MakeSoftmax) &&
                         RegisterCpuOp(ir::OpType::kTranspose, MakeTranspose) &&
                         RegisterCpuOp(ir::OpType::kSlice, MakeSlice);

}  // namespace

}  // namespace rill::inference::cpu
