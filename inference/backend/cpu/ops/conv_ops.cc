// CONV_2D, DEPTHWISE_CONV_2D, transposed conv and FULLY_CONNECTED on the CPU.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/conv2d.h"
#include "inference/backend/cpu/kernels/ref/depthwise_conv2d.h"
#include "inference/backend/cpu/kernels/ref/fully_connected.h"
#include "inference/backend/cpu/kernels/ref/transpose_conv2d.h"
#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_conv2d_gemm_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_conv3x3s1_winograd_f23.h"
#include "inference/backend/cpu/kernels/x86/f32_dwconv2d_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x16_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/conv_geometry.h"

namespace rill::inference::cpu {
namespace {

class ConvOp : public CpuOp {
 public:
  enum class Kind { kConv, kDepthwise, kTranspose };
  ConvOp(const ExecutionArgs& args, Kind kind) : CpuOp(args), kind_(kind) {}

  std::string name() const override {
    switch (kind_) {
      case Kind::kConv:
        if (!use_avx2_) return "conv2d_ref";
        if (winograd_) return gemm_ == x86::GemmF32Avx512 ? "conv3x3s1_winograd_f23_avx512" : "conv3x3s1_winograd_f23_avx2";
        return gemm_ == x86::GemmF32Avx512 ? "conv2d_gemm_6x32_avx512" : "conv2d_gemm_6x16_avx2";
      case Kind::kDepthwise: return use_avx2_ ? "depthwise_conv2d_avx2" : "depthwise_conv2d_ref";
      case Kind::kTranspose: return "transpose_conv2d_ref";
    }
    return "conv_ref";
  }

  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(3));
    const Shape& x = InShape(0);
    const Shape& w = InShape(1);
    const Shape& y = OutShape();
    const ir::OpAttrs& a = attrs();
    p_ = ConvParams{};
    p_.batch = x[0];
    p_.in_h = x[1];
    p_.in_w = x[2];
    p_.in_c = x[3];
    p_.out_h = y[1];
    p_.out_w = y[2];
    p_.out_c = y[3];
    p_.kernel_h = w[1];
    p_.kernel_w = w[2];
    p_.stride_h = a.stride_h;
    p_.stride_w = a.stride_w;
    p_.dilation_h = kind_ == Kind::kTranspose ? 1 : a.dilation_h;
    p_.dilation_w = kind_ == Kind::kTranspose ? 1 : a.dilation_w;
    p_.activation = ToFused(a.activation);
    if (a.padding == ir::Padding::kExplicit) {
      p_.pad_top = a.pad_top;
      p_.pad_left = a.pad_left;
    } else if (kind_ == Kind::kTranspose) {
      // Padding of the forward conv that maps the output back to the input.
      p_.pad_top = ir::WindowPadBefore(p_.out_h, p_.in_h, p_.kernel_h, p_.stride_h, 1, a.padding);
      p_.pad_left = ir::WindowPadBefore(p_.out_w, p_.in_w, p_.kernel_w, p_.stride_w, 1, a.padding);
    } else {
      p_.pad_top = ir::WindowPadBefore(p_.in_h, p_.out_h, p_.kernel_h, p_.stride_h, p_.dilation_h, a.padding);
      p_.pad_left = ir::WindowPadBefore(p_.in_w, p_.out_w, p_.kernel_w, p_.stride_w, p_.dilation_w, a.padding);
    }
    p_.depth_multiplier = kind_ == Kind::kDepthwise ? p_.out_c / p_.in_c : 1;
    // Algorithm choice: the AVX2/FMA kernels when the CPU has them and the
    // policy allows; the reference kernels otherwise.
    const bool avx2 = args_.algorithm != AlgorithmPolicy::kReference && x86::HasAvx2Fma() && args_.inputs[1]->constant;
    use_avx2_ = avx2 && (kind_ == Kind::kConv || (kind_ == Kind::kDepthwise && p_.depth_multiplier == 1));
    scratch_floats_ = 0;
    if (use_avx2_ && kind_ == Kind::kConv) {
      const int k = p_.kernel_h * p_.kernel_w * p_.in_c;
      // AVX-512 when the CPU has it: twice the columns per FMA.
      const bool avx512 = x86::GetCpuFeatures().avx512f;
      gemm_ = avx512 ? x86::GemmF32Avx512 : x86::GemmF32Avx2;
      // Cost model: Winograd F(2,3) needs 16 instead of 36 multiplies per
      // 2x2 tile and channel pair but pays for its transforms (O(channels)
      // per tile) and runs 16 smaller GEMMs. Measured with kTune on resnet18
      // and resnet50 layers (AVX-512), it wins from 128 channels on; at 64 it
      // is a toss-up, so kAuto stays with GEMM there.
      winograd_ = x86::WinogradF23Applies(p_) && p_.in_c >= 128 && p_.out_c >= 128;
      if (args_.tuning && x86::WinogradF23Applies(p_)) winograd_ = TuneWinograd(avx512, k);
      if (winograd_) {
        if (winograd_weights_.packed.empty()) x86::TransformWeightsF23(p_, In(1), avx512, &winograd_weights_);
        tile_scratch_ = x86::WinogradF23ScratchFloats(p_);
        scratch_floats_ = tile_scratch_ * threads();
        return Status::Ok();
      }
      const size_t packed = avx512 ? x86::PackedWeightsFloats512(p_.out_c, k) : x86::PackedWeightsFloats(p_.out_c, k);
      if (packed_.size() != packed) {  // weights are constant: pack once
        packed_.assign(packed, 0.0f);
        if (avx512) {
          x86::PackWeightsNK512(In(1), p_.out_c, k, packed_.data());
        } else {
          x86::PackWeightsNK(In(1), p_.out_c, k, packed_.data());
        }
      }
      tile_scratch_ = x86::Conv2DGemmScratchFloats(p_);
      scratch_floats_ = tile_scratch_ * threads();
    }
    return Status::Ok();
  }

  size_t scratch_bytes() const override { return scratch_floats_ * sizeof(float); }

  void Run() override {
    switch (kind_) {
      case Kind::kConv:
        if (use_avx2_ && winograd_) {
          auto block = [this](int b, int thread) {
            x86::WinogradF23Block(p_, In(0), winograd_weights_, In(2), gemm_,
                                  static_cast<float*>(scratch_) + tile_scratch_ * thread, Out(), b);
          };
          ParallelFor(x86::WinogradF23Blocks(p_), block);
        } else if (use_avx2_) {
          auto tile = [this](int t, int thread) {
            x86::Conv2DGemmAvx2Tile(p_, In(0), packed_.data(), In(2),
                                    static_cast<float*>(scratch_) + tile_scratch_ * thread, Out(), t, gemm_);
          };
          ParallelFor(x86::Conv2DGemmTiles(p_), tile);
        } else {
          Conv2DRef(p_, In(0), In(1), In(2), Out());
        }
        break;
      case Kind::kDepthwise:
        if (use_avx2_) {
          const int rows = p_.batch * p_.out_h;
          const int chunks = std::min(rows, threads() * 4);
          auto chunk = [this, rows, chunks](int c, int) {
            x86::DepthwiseConv2DAvx2Rows(p_, In(0), In(1), In(2), Out(), rows * c / chunks, rows * (c + 1) / chunks);
          };
          ParallelFor(chunks, chunk);
        } else {
          DepthwiseConv2DRef(p_, In(0), In(1), In(2), Out());
        }
        break;
      case Kind::kTranspose: TransposeConv2DRef(p_, In(0), In(1), In(2), Out()); break;
    }
  }

 private:
  // Measures GEMM against Winograd on this layer's shapes (random data,
  // best of 3 runs each), or reuses a cached measurement.
  bool TuneWinograd(bool avx512, int k) {
    const std::string key = "conv3x3s1:n" + std::to_string(p_.batch) + ":h" + std::to_string(p_.in_h) + ":w" +
                            std::to_string(p_.in_w) + ":ic" + std::to_string(p_.in_c) + ":oc" +
                            std::to_string(p_.out_c) + ":pt" + std::to_string(p_.pad_top) + ":oh" +
                            std::to_string(p_.out_h) + (avx512 ? ":avx512" : ":avx2");
    auto cached = args_.tuning->choices.find(key);
    if (cached != args_.tuning->choices.end()) return cached->second == "winograd_f23";
    std::vector<float> x(static_cast<size_t>(p_.batch) * p_.in_h * p_.in_w * p_.in_c, 0.5f);
    std::vector<float> y(static_cast<size_t>(p_.batch) * p_.out_h * p_.out_w * p_.out_c);
    const x86::GemmFn gemm = avx512 ? x86::GemmF32Avx512 : x86::GemmF32Avx2;
    std::vector<float> packed(avx512 ? x86::PackedWeightsFloats512(p_.out_c, k) : x86::PackedWeightsFloats(p_.out_c, k));
    if (avx512) x86::PackWeightsNK512(In(1), p_.out_c, k, packed.data());
    else x86::PackWeightsNK(In(1), p_.out_c, k, packed.data());
    x86::WinogradF23Weights uw;
    x86::TransformWeightsF23(p_, In(1), avx512, &uw);
    std::vector<float> scratch(std::max(x86::Conv2DGemmScratchFloats(p_), x86::WinogradF23ScratchFloats(p_)) + 1);
    auto best_ms = [](auto&& run) {
      double best = 1e30;
      for (int i = 0; i < 3; ++i) {
        const auto start = std::chrono::steady_clock::now();
        run();
        best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      }
      return best;
    };
    const double gemm_ms = best_ms([&] {
      for (int t = 0; t < x86::Conv2DGemmTiles(p_); ++t) {
        x86::Conv2DGemmAvx2Tile(p_, x.data(), packed.data(), nullptr, scratch.data(), y.data(), t, gemm);
      }
    });
    const double winograd_ms = best_ms([&] {
      for (int b = 0; b < x86::WinogradF23Blocks(p_); ++b) {
        x86::WinogradF23Block(p_, x.data(), uw, nullptr, gemm, scratch.data(), y.data(), b);
      }
    });
    const bool winograd = winograd_ms < gemm_ms;
    args_.tuning->choices[key] = winograd ? "winograd_f23" : "gemm";
    args_.tuning->dirty = true;
    return winograd;
  }

  Kind kind_;
  ConvParams p_;
  bool use_avx2_ = false;
  std::vector<float> packed_;
  x86::GemmFn gemm_ = nullptr;
  bool winograd_ = false;
  x86::WinogradF23Weights winograd_weights_;
  size_t tile_scratch_ = 0;
  size_t scratch_floats_ = 0;
};

class FullyConnectedOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return use_avx2_ ? "fully_connected_gemm_avx2" : "fully_connected_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(3));
    in_dim_ = InShape(1)[1];
    out_dim_ = InShape(1)[0];
    batch_ = static_cast<int>(NumElements(InShape(0)) / in_dim_);
    use_avx2_ = args_.algorithm != AlgorithmPolicy::kReference && x86::HasAvx2Fma() && args_.inputs[1]->constant;
    if (use_avx2_) {
      const size_t packed = x86::PackedWeightsFloats(out_dim_, in_dim_);
      if (packed_.size() != packed) {
        packed_.assign(packed, 0.0f);
        x86::PackWeightsNK(In(1), out_dim_, in_dim_, packed_.data());
      }
    }
    return Status::Ok();
  }
  void Run() override {
    if (use_avx2_) {
      x86::GemmF32Avx2(batch_, out_dim_, in_dim_, In(0), in_dim_, packed_.data(), In(2), ToFused(attrs().activation),
                       Out(), out_dim_);
    } else {
      FullyConnectedRef(batch_, in_dim_, out_dim_, ToFused(attrs().activation), In(0), In(1), In(2), Out());
    }
  }

 private:
  int batch_ = 0, in_dim_ = 0, out_dim_ = 0;
  bool use_avx2_ = false;
  std::vector<float> packed_;
};

}  // namespace

std::unique_ptr<Execution> MakeConv2D(const ExecutionArgs& args) {
  return std::make_unique<ConvOp>(args, ConvOp::Kind::kConv);
}
std::unique_ptr<Execution> MakeDepthwiseConv2D(const ExecutionArgs& args) {
  return std::make_unique<ConvOp>(args, ConvOp::Kind::kDepthwise);
}
std::unique_ptr<Execution> MakeTransposeConv2D(const ExecutionArgs& args) {
  return std::make_unique<ConvOp>(args, ConvOp::Kind::kTranspose);
}
std::unique_ptr<Execution> MakeFullyConnected(const ExecutionArgs& args) {
  return std::make_unique<FullyConnectedOp>(args);
}

}  // namespace rill::inference::cpu
