// The Vulkan backend ("vulkan"): one device-local arena per session (tensors
// NHWC, fp32, or fp16 storage under Precision::kFp16 where the device has
// VK_KHR_16bit_storage), executions that describe their dispatches once
// memory is bound, and command buffers recorded at every resize (EndResize)
// that runs replay: Run of an execution only marks its step reached, a
// transfer to the host submits what is pending (one vkQueueSubmit), waits
// and reads the staging buffer. See vulkan_backend.h.
#include "inference/backend/vulkan/vulkan_backend.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inference/backend/backend.h"
#include "inference/backend/gpu/gpu_execution.h"
#include "inference/backend/gpu/op_geometry.h"
#include "inference/backend/gpu/weights.h"
#include "inference/backend/vulkan/shaders.h"
#include "inference/backend/vulkan/vulkan_runtime.h"

namespace rill::inference::vulkan {
namespace {

using gpu::Act;
using gpu::ConstFloats;
using gpu::FromHalf;
using gpu::PackConvFilter;
using gpu::PackGemmFilter;
using gpu::ToHalf;

class VkArena : public Buffer {
 public:
  VkArena(VkRuntime* rt, DeviceBuffer b) : rt_(rt), b_(b) {}
  ~VkArena() override { rt_->DestroyBuffer(&b_); }
  size_t size() const override { return b_.size; }
  VkBuffer buffer() const { return b_.buffer; }

 private:
  VkRuntime* rt_;
  DeviceBuffer b_;
};

// Bytes of a buffer that a dispatch or transfer reads or writes:
// [begin, end), or where `stride` > 0 only the rows of `width` bytes that
// start `stride` apart from `begin` (a channel slice of an NHWC tensor).
struct Span {
  VkBuffer buffer = VK_NULL_HANDLE;
  size_t begin = 0, end = 0;
  size_t stride = 0, width = 0;
};

// Whether two spans share a byte: disjoint ranges do not, nor do two
// channel slices of one tensor (the same stride) whose columns differ.
bool Overlap(const Span& a, const Span& b) {
  if (a.buffer != b.buffer || a.end <= b.begin || b.end <= a.begin || a.begin == a.end || b.begin == b.end) {
    return false;
  }
  if (a.stride > 0 && a.stride == b.stride) {
    const size_t ca = a.begin % a.stride, cb = b.begin % b.stride;
    if (ca + a.width <= a.stride && cb + b.width <= b.stride) return ca < cb + b.width && cb < ca + a.width;
  }
  return true;
}

// One compute dispatch as recorded: pipeline, buffers (binding order),
// push constants, work groups, and the arena bytes it reads and writes
// (`tracked`; else the backend assumes its execution's whole operands).
// Weights and other buffers no dispatch writes need not be listed.
struct Dispatch {
  const Pipeline* pipeline = nullptr;
  std::vector<VkBuffer> buffers;
  std::vector<int32_t> push;
  uint32_t groups[3] = {1, 1, 1};
  std::vector<Span> reads, writes;
  bool tracked = false;
};

// The accesses recorded since the last barrier: a dispatch or transfer
// that reads what one of them wrote (RAW), writes what one of them wrote
// (WAW) or writes what one of them read (WAR) needs a barrier first.
class Hazards {
 public:
  bool Conflicts(const std::vector<Span>& reads, const std::vector<Span>& writes) const {
    for (const Span& r : reads) {
      for (const Span& w : writes_) {
        if (Overlap(r, w)) return true;
      }
    }
    for (const Span& w : writes) {
      for (const Span& x : writes_) {
        if (Overlap(w, x)) return true;
      }
      for (const Span& x : reads_) {
        if (Overlap(w, x)) return true;
      }
    }
    return false;
  }
  void Add(const std::vector<Span>& reads, const std::vector<Span>& writes) {
    reads_.insert(reads_.end(), reads.begin(), reads.end());
    writes_.insert(writes_.end(), writes.begin(), writes.end());
  }
  void Clear() {
    reads_.clear();
    writes_.clear();
  }

 private:
  std::vector<Span> reads_, writes_;
};

// Push constants from ints and floats, in order.
inline void PushOne(std::vector<int32_t>* v, int x) { v->push_back(x); }
inline void PushOne(std::vector<int32_t>* v, float x) {
  int32_t i;
  std::memcpy(&i, &x, 4);
  v->push_back(i);
}
inline void PushOne(std::vector<int32_t>* v, const std::vector<int>& xs) {
  for (int x : xs) v->push_back(x);
}
template <class... A>
std::vector<int32_t> Push(const A&... a) {
  std::vector<int32_t> v;
  (PushOne(&v, a), ...);
  return v;
}

class VulkanBackend;

// One convolution with its own uploaded weights: CONV_2D, and the expand /
// project convs of DEPTHWISE_BLOCK. Without groups the tiled implicit GEMM
// (conv_gemm), else the direct shader (conv2d).
struct ConvLaunch : gpu::ConvPlan {
  GemmTile tile;
  const Pipeline* pipeline = nullptr;
  const Pipeline* reduce = nullptr;
  DeviceBuffer weights, bias;
  // The fused depthwise block's depthwise weights and bias (conv_gemm with
  // DW = 1; `p` is then the depthwise window with the project's out_c, and
  // `act` the project's activation | the depthwise's << 8).
  VkBuffer dw_weights = VK_NULL_HANDLE, dw_bias = VK_NULL_HANDLE;
};

// Where a tensor is: a buffer and an element offset into it.
struct Operand {
  VkBuffer buffer = VK_NULL_HANDLE;
  int offset = 0;
};

// A DEPTHWISE_CONV_2D as a 1x1 conv that reads its output can compute it
// (conv_gemm's DW = 1): its window, activation, weights and operands.
struct DepthwiseStage {
  cpu::ConvParams p;
  int act = 0;
  VkBuffer weights = VK_NULL_HANDLE, bias = VK_NULL_HANDLE;
  Operand x, y;
};

// Base of the executions: constant uploads and pipelines (the node, its
// operands, errors and refusals: gpu::GpuExecution); Record lists the
// dispatches once memory is bound.
class VkExecution : public gpu::GpuExecution {
 public:
  VkExecution(const ExecutionArgs& args, VulkanBackend* backend) : GpuExecution(args, "vulkan"), backend_(backend) {}
  ~VkExecution() override;
  std::string name() const override;
  Status Run() override;
  // The dispatches of one run, in order (a barrier goes between two).
  virtual Status Record(std::vector<Dispatch>* out) = 0;
  void set_step(int step) { step_ = step; }
  const std::string& node_name() const { return args_.node->name; }

 protected:
  VkRuntime* rt() const;
  bool half() const;
  Variant variant() const;
  size_t elem() const { return half() ? 2 : 4; }
  StatusOr<const Pipeline*> GetPipeline(const char* shader, const std::vector<int>& spec = {}) const;

  // Uploads floats as the storage type, kept with the execution.
  Status Upload(const std::vector<float>& values, DeviceBuffer* out);
  // Raw bytes (int and float tables), kept with the execution.
  Status UploadRaw(const void* data, size_t bytes, DeviceBuffer* out);
  void Release(DeviceBuffer* b);
  // Constant inputs read as tensors (a binary op's constant operand).
  Status UploadConstantInputs(std::initializer_list<size_t> which = {});
  Operand In(size_t i) const {
    const TensorBinding* b = args_.inputs[i];
    if (b->constant) return {constant_inputs_[i].buffer, 0};
    return Mem(b->memory);
  }
  Operand Out() const { return Mem(args_.outputs[0]->memory); }
  Operand Mem(const MemoryRef& m) const {
    return {static_cast<VkArena*>(m.buffer)->buffer(), static_cast<int>(m.offset / elem())};
  }
  // The bytes of `elements` from `o` (storage elements, or `element_bytes`
  // each: the float partial sums).
  Span Dense(Operand o, size_t elements, size_t element_bytes = 0) const {
    const size_t e = element_bytes ? element_bytes : elem(), begin = static_cast<size_t>(o.offset) * e;
    return {o.buffer, begin, begin + elements * e};
  }
  // `rows` rows of `width` elements, `stride` apart, from `o`.
  Span Rows(Operand o, size_t rows, size_t width, size_t stride) const {
    if (stride == width || rows <= 1) return Dense(o, rows * width);
    const size_t e = elem(), begin = static_cast<size_t>(o.offset) * e;
    return {o.buffer, begin, begin + ((rows - 1) * stride + width) * e, stride * e, width * e};
  }

 public:
  // The accesses of dispatches that list none: they read the execution's
  // inputs and write its outputs and scratch; where the execution records
  // several, each also reads those (one may read what another wrote).
  void DefaultAccesses(std::vector<Dispatch>* ds) const;

 protected:
  // An element-wise dispatch over `count` invocations (64 per group).
  Dispatch Elementwise(const Pipeline* p, std::vector<VkBuffer> buffers, std::vector<int32_t> push, size_t count) const;

  Status PrepareConv(const float* filter, const TensorBinding* bias, ConvLaunch* c, bool may_split = false);
  void RecordConv(const ConvLaunch& c, Operand x, Operand y, Operand res, int res_c, Operand partial, int y_stride,
                  std::vector<Dispatch>* out) const;

  // A fused PRELU (optimize::FusePRelu): its per-channel slope is input
  // `slope` (a constant, uploaded with the others); the binary shader's
  // PRELU runs in place over the dense output after the execution's own
  // dispatches. Nothing where the node has no such input.
  Status PrepareFusedPRelu(size_t slope);
  void RecordFusedPRelu(std::vector<Dispatch>* out) const;

  VulkanBackend* backend_;
  std::string kernel_name_;
  int step_ = -1;
  std::vector<DeviceBuffer> owned_;
  std::vector<DeviceBuffer> constant_inputs_;
  bool constants_uploaded_ = false;
  int prelu_slope_ = -1;  // the fused PRELU's slope input (-1: none)
  int prelu_count_ = 0;
  std::vector<int> prelu_shape_;
  const Pipeline* prelu_pipeline_ = nullptr;
};

struct Step {
  RunStep::Kind kind = RunStep::Kind::kExecution;
  VkExecution* exec = nullptr;
  const TensorBinding* device = nullptr;
  DeviceBuffer staging;  // transfers
  size_t bytes = 0;      // transfers: storage bytes
  bool convert = false;  // fp16 storage of a float tensor
  std::string name;
  // Profile: GPU time summed over runs.
  double gpu_us = 0;
  long runs = 0;
};

class VulkanBackend : public Backend {
 public:
  VulkanBackend(std::unique_ptr<VkRuntime> rt, bool half, std::string profile_path, bool fuse_depthwise)
      : rt_(std::move(rt)), half_(half), fuse_depthwise_(fuse_depthwise), profile_path_(std::move(profile_path)) {}
  ~VulkanBackend() override {
    if (!profile_path_.empty()) WriteProfile();
    vk().vkDeviceWaitIdle(rt_->device());
    FreeRecording();
    for (Step& s : steps_) rt_->DestroyBuffer(&s.staging);
    if (fence_) vk().vkDestroyFence(rt_->device(), fence_, nullptr);
  }
  std::string name() const override { return "vulkan"; }

  TensorLayout StorageFor(const TensorDesc& desc) const override {
    TensorLayout layout;
    layout.bytes = StorageBytes(desc.dtype, desc.shape);
    return layout;
  }

  std::unique_ptr<Buffer> AllocateBuffer(size_t bytes, const TensorLayout*) override {
    DeviceBuffer b;
    if (!rt_->CreateBuffer(bytes, false, &b).ok()) return nullptr;
    return std::make_unique<VkArena>(rt_.get(), b);
  }

  Status CopyFromHost(const void* host, const TensorBinding& device) override {
    RILL_INF_ASSIGN_OR_RETURN(Step * s, StepOf(device, RunStep::Kind::kCopyFromHost));
    if (s->convert) {
      const float* f = static_cast<const float*>(host);
      uint16_t* h = static_cast<uint16_t*>(s->staging.mapped);
      const size_t n = s->bytes / 2;
      for (size_t i = 0; i < n; ++i) h[i] = ToHalf(f[i]);
    } else {
      std::memcpy(s->staging.mapped, host, s->bytes);
    }
    return Status::Ok();
  }

  Status CopyToHost(const TensorBinding& device, void* host) override {
    RILL_INF_ASSIGN_OR_RETURN(Step * s, StepOf(device, RunStep::Kind::kCopyToHost));
    RILL_INF_RETURN_IF_ERROR(Flush(/*to_segment_end=*/true));
    if (s->convert) {
      const uint16_t* h = static_cast<const uint16_t*>(s->staging.mapped);
      float* f = static_cast<float*>(host);
      const size_t n = s->bytes / 2;
      for (size_t i = 0; i < n; ++i) f[i] = FromHalf(h[i]);
    } else {
      std::memcpy(host, s->staging.mapped, s->bytes);
    }
    return Status::Ok();
  }

  Status PlanRun(const std::vector<RunStep>& steps) override;
  Status EndResize() override { return Record(); }
  Status EndRun() override { return Flush(/*to_segment_end=*/false); }

  StatusOr<std::unique_ptr<Execution>> CreateExecution(const ExecutionArgs& args) override;

  // An execution's step has run: its dispatches are due.
  Status Reached(int step) {
    if (step < 0 || step >= static_cast<int>(steps_.size())) {
      return FailedPreconditionError("vulkan: an execution ran outside the session's recorded plan");
    }
    if (step < cursor_) next_ = cursor_ = 0;  // a new run
    if (step == 0) ++runs_;
    cursor_ = step + 1;
    return Status::Ok();
  }

  VkRuntime* runtime() const { return rt_.get(); }
  bool half() const { return half_; }
  // DEPTHWISE_BLOCK's depthwise fused into its project GEMM (option
  // fuse_depthwise, default false: on the H200 the fused form, which
  // recomputes the depthwise once per column of work groups, ran
  // MobileNetV2 in 1.40 ms against 1.00 ms unfused; README).
  bool fuse_depthwise() const { return fuse_depthwise_; }
  Variant variant() const {
    return !half_ ? Variant::kFp32 : rt_->fp16_arithmetic() ? Variant::kFp16Arith : Variant::kFp16Storage;
  }
  // The GEMM tile for layers of many output tiles (`large`: at least two
  // 64x64 tiles per compute unit) or of few.
  StatusOr<GemmTile> Tile(bool large);

 private:
  size_t StorageBytes(DataType dtype, const Shape& shape) const {
    if (dtype != DataType::kFloat32) return DenseBytes(dtype, shape);
    return static_cast<size_t>(NumElements(shape)) * (half_ ? 2 : 4);
  }
  StatusOr<Step*> StepOf(const TensorBinding& device, RunStep::Kind kind) {
    auto it = transfer_steps_.find(&device);
    if (it == transfer_steps_.end() || steps_[it->second].kind != kind) {
      return FailedPreconditionError("vulkan: a transfer outside the session's recorded plan");
    }
    RILL_INF_RETURN_IF_ERROR(Reached(it->second));
    return &steps_[it->second];
  }
  Status Record();
  // A DEPTHWISE_CONV_2D step followed by a 1x1 conv step that alone reads
  // its output: the conv's dispatches compute the depthwise too (conv_gemm's
  // DW = 1) and the depthwise step records none (option fuse_depthwise).
  Status FuseDepthwiseIntoPointwise();
  void FreeRecording();
  // Records a step's dispatches or transfer into `cb`, with a barrier first
  // wherever one conflicts with the accesses in *hazards (counted in
  // *barriers; dispatches in *dispatches). True for a transfer to the host
  // (the command buffer ends with HostBarrier).
  bool RecordStep(VkCommandBuffer cb, int step, bool timestamps, Hazards* hazards, long* barriers, long* dispatches);
  Status Flush(bool to_segment_end);
  StatusOr<GemmTile> MeasureTile(bool large);
  void WriteProfile();

  std::unique_ptr<VkRuntime> rt_;
  bool half_;
  bool fuse_depthwise_;
  std::string profile_path_;
  std::vector<Step> steps_;
  std::map<const TensorBinding*, int> transfer_steps_;
  // Recording: every dispatch with its descriptor set, per step.
  std::vector<std::vector<Dispatch>> dispatches_;
  std::vector<std::vector<VkDescriptorSet>> sets_;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  std::vector<VkCommandBuffer> step_cbs_;     // one per step (partial flushes: profiled runs)
  std::vector<VkCommandBuffer> segment_cbs_;  // one per segment (what a run submits)
  std::vector<int> segment_of_;               // per step
  std::vector<int> segment_begin_;            // per segment, plus the end
  VkQueryPool queries_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  std::vector<uint64_t> stamps_;
  int next_ = 0, cursor_ = 0;  // the first step not submitted; the step after the last reached
  long runs_ = 0, submits_ = 0;  // for the profile: submits per run
  // For the profile: what the segments (one run) record.
  long recorded_dispatches_ = 0, recorded_barriers_ = 0, every_access_barriers_ = 0;
  bool have_tile_[2] = {false, false};
  GemmTile tile_[2];
};

VkExecution::~VkExecution() {
  for (DeviceBuffer& b : owned_) backend_->runtime()->DestroyBuffer(&b);
  for (DeviceBuffer& b : constant_inputs_) backend_->runtime()->DestroyBuffer(&b);
}
VkRuntime* VkExecution::rt() const { return backend_->runtime(); }
bool VkExecution::half() const { return backend_->half(); }
Variant VkExecution::variant() const { return backend_->variant(); }
std::string VkExecution::name() const {
  return kernel_name_ + (variant() == Variant::kFp32 ? "_vk" : variant() == Variant::kFp16Storage ? "_vk_f16" : "_vk_f16a");
}
Status VkExecution::Run() { return backend_->Reached(step_); }

void VkExecution::DefaultAccesses(std::vector<Dispatch>* ds) const {
  auto whole = [](const MemoryRef& m, size_t bytes) {
    return Span{static_cast<VkArena*>(m.buffer)->buffer(), m.offset, m.offset + bytes};
  };
  std::vector<Span> reads, writes;
  for (const TensorBinding* b : args_.inputs) {
    if (b && !b->constant && b->memory.buffer) reads.push_back(whole(b->memory, b->layout.bytes));
  }
  for (const TensorBinding* b : args_.outputs) {
    if (b && b->memory.buffer) writes.push_back(whole(b->memory, b->layout.bytes));
  }
  if (scratch_bytes() > 0 && scratch_.buffer) writes.push_back(whole(scratch_, scratch_bytes()));
  for (Dispatch& d : *ds) {
    if (d.tracked) continue;
    d.reads = reads;
    if (ds->size() > 1) d.reads.insert(d.reads.end(), writes.begin(), writes.end());
    d.writes = writes;
    d.tracked = true;
  }
}

StatusOr<const Pipeline*> VkExecution::GetPipeline(const char* shader, const std::vector<int>& spec) const {
  return rt()->GetPipeline(shader, variant(), spec);
}

Status VkExecution::UploadRaw(const void* data, size_t bytes, DeviceBuffer* out) {
  RILL_INF_RETURN_IF_ERROR(rt()->Upload(data, bytes, out));
  owned_.push_back(*out);
  return Status::Ok();
}

void VkExecution::Release(DeviceBuffer* b) {
  if (!b->buffer) return;
  for (size_t i = 0; i < owned_.size(); ++i) {
    if (owned_[i].buffer == b->buffer) {
      owned_.erase(owned_.begin() + static_cast<long>(i));
      break;
    }
  }
  rt()->DestroyBuffer(b);
}

Status VkExecution::Upload(const std::vector<float>& values, DeviceBuffer* out) {
  std::vector<float> padded = values;
  if (padded.empty()) padded.push_back(0.0f);
  if (!half()) return UploadRaw(padded.data(), padded.size() * sizeof(float), out);
  const std::vector<uint16_t> h = gpu::ToHalves(padded);
  return UploadRaw(h.data(), h.size() * sizeof(uint16_t), out);
}

Status VkExecution::UploadConstantInputs(std::initializer_list<size_t> which) {
  if (constants_uploaded_) return Status::Ok();  // constants do not change across resizes
  constant_inputs_.assign(args_.inputs.size(), DeviceBuffer{});
  for (size_t i = 0; i < args_.inputs.size(); ++i) {
    const TensorBinding* b = args_.inputs[i];
    if (!b || !b->constant || b->dtype != DataType::kFloat32) continue;
    if (which.size() > 0 && std::find(which.begin(), which.end(), i) == which.end()) continue;
    const float* f = static_cast<const float*>(b->host());
    std::vector<float> v(f, f + NumElements(b->shape));
    if (v.empty()) v.push_back(0.0f);
    if (!half()) {
      RILL_INF_RETURN_IF_ERROR(rt()->Upload(v.data(), v.size() * sizeof(float), &constant_inputs_[i]));
    } else {
      const std::vector<uint16_t> h = gpu::ToHalves(v);
      RILL_INF_RETURN_IF_ERROR(rt()->Upload(h.data(), h.size() * 2, &constant_inputs_[i]));
    }
  }
  constants_uploaded_ = true;
  return Status::Ok();
}

Dispatch VkExecution::Elementwise(const Pipeline* p, std::vector<VkBuffer> buffers, std::vector<int32_t> push,
                                  size_t count) const {
  Dispatch d;
  d.pipeline = p;
  d.buffers = std::move(buffers);
  d.push = std::move(push);
  const size_t groups = (count + 63) / 64;
  const size_t gx = std::min<size_t>(std::max<size_t>(groups, 1), rt()->max_group_count_x());
  d.groups[0] = static_cast<uint32_t>(gx);
  d.groups[1] = static_cast<uint32_t>((groups + gx - 1) / gx);
  if (count == 0) d.groups[0] = d.groups[1] = 0;
  return d;
}

Status VkExecution::PrepareConv(const float* filter, const TensorBinding* bias, ConvLaunch* c, bool may_split) {
  const cpu::ConvParams& p = c->p;
  if (p.groups == 1) {
    // The tile of the layer's class (many 64x64 output tiles or few).
    RILL_INF_ASSIGN_OR_RETURN(c->tile, backend_->Tile(gpu::GemmTiles(p, 64, 64) >= 2L * rt()->compute_units()));
  }
  // Fewer output tiles than twice the compute units: split K so that every
  // unit has work.
  gpu::PlanConv(c->tile.m, c->tile.n, rt()->compute_units(), may_split, c);
  if (!c->weights.buffer) {
    const int icg = p.in_c / p.groups;
    RILL_INF_RETURN_IF_ERROR(Upload(c->tiled ? PackGemmFilter(filter, p.out_c, p.kernel_h * p.kernel_w * icg)
                                             : PackConvFilter(filter, p.out_c, p.kernel_h, p.kernel_w, icg),
                                    &c->weights));
    RILL_INF_RETURN_IF_ERROR(Upload(gpu::BiasOrZeros(bias, p.out_c), &c->bias));
  }
  if (c->splits > 1) {
    RILL_INF_ASSIGN_OR_RETURN(c->reduce, GetPipeline("conv_splitk_reduce"));
  }
  if (c->tiled) {
    RILL_INF_ASSIGN_OR_RETURN(c->pipeline, GetPipeline("conv_gemm", {c->tile.m, c->tile.n}));
  } else {
    RILL_INF_ASSIGN_OR_RETURN(c->pipeline, GetPipeline("conv2d"));
  }
  return Status::Ok();
}

void VkExecution::RecordConv(const ConvLaunch& c, Operand x, Operand y, Operand res, int res_c, Operand partial,
                             int y_stride, std::vector<Dispatch>* out) const {
  const cpu::ConvParams& p = c.p;
  if (y_stride == 0) y_stride = p.out_c;
  const int m = p.batch * p.out_h * p.out_w;
  std::vector<Span> reads = {Dense(x, static_cast<size_t>(p.batch) * p.in_h * p.in_w * p.in_c)};
  if (res.buffer != VK_NULL_HANDLE) reads.push_back(Dense(res, static_cast<size_t>(m) * res_c));
  const Span written = Rows(y, m, p.out_c, y_stride);
  if (res.buffer == VK_NULL_HANDLE) res = y;  // an unused binding still needs a buffer
  if (c.tiled) {
    const Span partial_sums = Dense(partial, c.partial_floats(), sizeof(float));
    Dispatch d;
    d.pipeline = c.pipeline;
    d.buffers = {x.buffer,
                 c.weights.buffer,
                 c.bias.buffer,
                 res.buffer,
                 y.buffer,
                 c.splits > 1 ? partial.buffer : y.buffer,
                 c.dw_weights ? c.dw_weights : c.weights.buffer,
                 c.dw_bias ? c.dw_bias : c.bias.buffer};
    d.push = Push(x.offset, res.offset, res_c, y.offset, p.batch, p.in_h, p.in_w, p.in_c, p.out_h, p.out_w, p.out_c,
                  p.kernel_h, p.kernel_w, p.stride_h, p.stride_w, p.dilation_h, p.dilation_w, p.pad_top, p.pad_left,
                  c.act, c.k_chunk, c.splits, partial.offset, y_stride);
    d.groups[0] = static_cast<uint32_t>((p.out_c + c.tile.n - 1) / c.tile.n);
    d.groups[1] = static_cast<uint32_t>((m + c.tile.m - 1) / c.tile.m);
    d.groups[2] = static_cast<uint32_t>(c.splits);
    d.reads = reads;
    d.writes = {c.splits > 1 ? partial_sums : written};
    d.tracked = true;
    out->push_back(std::move(d));
    if (c.splits > 1) {
      out->push_back(Elementwise(c.reduce, {partial.buffer, c.bias.buffer, res.buffer, y.buffer},
                                 Push(partial.offset, c.splits, res.offset, res_c, y.offset, p.out_c, m, c.act & 255,
                                      y_stride),
                                 static_cast<size_t>(p.out_c) * m));
      out->back().reads = {partial_sums};
      if (reads.size() > 1) out->back().reads.push_back(reads[1]);
      out->back().writes = {written};
      out->back().tracked = true;
    }
    return;
  }
  out->push_back(Elementwise(
      c.pipeline, {x.buffer, c.weights.buffer, c.bias.buffer, res.buffer, y.buffer},
      Push(x.offset, res.offset, res_c, y.offset, p.in_h, p.in_w, p.in_c, p.out_h, p.out_w, p.out_c, p.kernel_h,
           p.kernel_w, p.stride_h, p.stride_w, p.dilation_h, p.dilation_w, p.pad_top, p.pad_left, p.groups, c.act,
           y_stride, p.batch),
      static_cast<size_t>((p.out_c + 3) / 4) * p.out_w * p.batch * p.out_h));
  out->back().reads = std::move(reads);
  out->back().writes = {written};
  out->back().tracked = true;
}

// CONV_2D; also writes its output as a channel slice of a concatenation.
class ConvExecution : public VkExecution, public StridedOutput {
 public:
  using VkExecution::VkExecution;
  bool SetOutputPixelStride(int elements) override {
    if (elements != 0 && HasInput(4)) return false;  // the fused PRELU's pass reads a dense output
    y_stride_ = elements;
    return true;
  }
  Status Prepare() override {
    kernel_name_ = "conv2d";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(NeedConstantWeights());
    c_.p = gpu::Conv2DGeometry(attrs(), InShape(0), InShape(1), OutShape());
    c_.act = Act(attrs().activation);
    res_c_ = HasInput(3) ? InShape(3)[3] : 0;
    y_stride_ = 0;
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 3, 4}));
    RILL_INF_RETURN_IF_ERROR(PrepareFusedPRelu(4));
    RILL_INF_RETURN_IF_ERROR(PrepareConv(static_cast<const float*>(args_.inputs[1]->host()),
                                         OptionalInput(2), &c_, /*may_split=*/true));
    kernel_name_ = c_.tiled ? "conv2d_gemm" + c_.tile.ToString() : "conv2d";
    return Status::Ok();
  }
  size_t scratch_bytes() const override { return c_.partial_floats() * sizeof(float); }
  Status Record(std::vector<Dispatch>* out) override {
    Operand partial;
    if (c_.splits > 1) {
      partial = {static_cast<VkArena*>(scratch_.buffer)->buffer(), static_cast<int>(scratch_.offset / sizeof(float))};
    }
    RecordConv(c_, In(0), Out(), res_c_ ? In(3) : Operand{}, res_c_, partial, y_stride_, out);
    RecordFusedPRelu(out);
    return Status::Ok();
  }
  // The dispatches with `dw`, whose output is this conv's input and read by
  // no other, computed while loading it; false (nothing recorded) unless
  // this is a 1x1 GEMM conv of stride 1 without a fused PRELU.
  StatusOr<bool> RecordAfterDepthwise(const DepthwiseStage& dw, std::vector<Dispatch>* out) {
    const cpu::ConvParams& p = c_.p;
    const Operand x = In(0);
    if (!c_.tiled || p.kernel_h != 1 || p.kernel_w != 1 || p.stride_h != 1 || p.stride_w != 1 || p.pad_top != 0 ||
        p.pad_left != 0 || p.groups != 1 || prelu_slope_ >= 0 || x.buffer != dw.y.buffer || x.offset != dw.y.offset ||
        p.batch != dw.p.batch || p.in_h != dw.p.out_h || p.in_w != dw.p.out_w || p.in_c != dw.p.out_c ||
        dw.p.depth_multiplier != 1 || dw.p.in_c != dw.p.out_c) {
      return false;
    }
    ConvLaunch fused = c_;
    fused.p = dw.p;
    fused.p.out_c = p.out_c;
    fused.p.groups = 1;
    fused.act = c_.act | (dw.act << 8);
    fused.dw_weights = dw.weights;
    fused.dw_bias = dw.bias;
    RILL_INF_ASSIGN_OR_RETURN(fused.pipeline, GetPipeline("conv_gemm", {c_.tile.m, c_.tile.n, 1}));
    Operand partial;
    if (c_.splits > 1) {
      partial = {static_cast<VkArena*>(scratch_.buffer)->buffer(), static_cast<int>(scratch_.offset / sizeof(float))};
    }
    RecordConv(fused, dw.x, Out(), res_c_ ? In(3) : Operand{}, res_c_, partial, y_stride_, out);
    return true;
  }

 private:
  ConvLaunch c_;
  int res_c_ = 0;
  int y_stride_ = 0;
};

class DepthwiseExecution : public VkExecution {
 public:
  using VkExecution::VkExecution;
  Status Prepare() override {
    kernel_name_ = "depthwise_conv2d";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 4}));
    RILL_INF_RETURN_IF_ERROR(PrepareFusedPRelu(4));
    RILL_INF_RETURN_IF_ERROR(NeedConstantWeights());
    p_ = gpu::DepthwiseGeometry(attrs(), InShape(0), InShape(1), OutShape());
    if (!weights_.buffer) {
      RILL_INF_RETURN_IF_ERROR(Upload(ConstFloats(args_.inputs[1]), &weights_));
      RILL_INF_RETURN_IF_ERROR(Upload(gpu::BiasOrZeros(OptionalInput(2), p_.out_c), &bias_));
    }
    RILL_INF_ASSIGN_OR_RETURN(pipeline_, GetPipeline("depthwise_conv2d"));
    return Status::Ok();
  }
  // As a stage a pointwise conv may compute (false with a fused PRELU).
  bool Stage(DepthwiseStage* stage) const {
    if (prelu_slope_ >= 0) return false;
    stage->p = p_;
    stage->act = Act(attrs().activation);
    stage->weights = weights_.buffer;
    stage->bias = bias_.buffer;
    stage->x = In(0);
    stage->y = Out();
    return true;
  }
  // The bytes of its input and of its output.
  Span InputBytes() const { return Dense(In(0), static_cast<size_t>(p_.batch) * p_.in_h * p_.in_w * p_.in_c); }
  Span OutputBytes() const { return Dense(Out(), static_cast<size_t>(p_.batch) * p_.out_h * p_.out_w * p_.out_c); }
  Status Record(std::vector<Dispatch>* out) override {
    const Operand x = In(0), y = Out();
    out->push_back(Elementwise(pipeline_, {x.buffer, weights_.buffer, bias_.buffer, y.buffer},
                               Push(x.offset, y.offset, p_.in_h, p_.in_w, p_.in_c, p_.out_h, p_.out_w, p_.out_c,
                                    p_.kernel_h, p_.kernel_w, p_.stride_h, p_.stride_w, p_.dilation_h, p_.dilation_w,
                                    p_.pad_top, p_.pad_left, p_.depth_multiplier, Act(attrs().activation), p_.batch),
                               static_cast<size_t>(p_.out_c) * p_.out_w * p_.batch * p_.out_h));
    RecordFusedPRelu(out);
    return Status::Ok();
  }

 private:
  cpu::ConvParams p_;
  DeviceBuffer weights_, bias_;
  const Pipeline* pipeline_ = nullptr;
};

class TransposeConvExecution : public VkExecution {
 public:
  using VkExecution::VkExecution;
  Status Prepare() override {
    kernel_name_ = "transpose_conv2d";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7}));
    RILL_INF_RETURN_IF_ERROR(NeedConstantWeights());
    p_ = gpu::TransposeConvGeometry(attrs(), InShape(0), InShape(1), OutShape());
    if (!weights_.buffer) {
      RILL_INF_RETURN_IF_ERROR(Upload(ConstFloats(args_.inputs[1]), &weights_));
      RILL_INF_RETURN_IF_ERROR(Upload(gpu::BiasOrZeros(OptionalInput(2), p_.out_c), &bias_));
    }
    RILL_INF_ASSIGN_OR_RETURN(pipeline_, GetPipeline("transpose_conv2d"));
    return Status::Ok();
  }
  Status Record(std::vector<Dispatch>* out) override {
    const Operand x = In(0), y = Out();
    out->push_back(Elementwise(pipeline_, {x.buffer, weights_.buffer, bias_.buffer, y.buffer},
                               Push(x.offset, y.offset, p_.in_h, p_.in_w, p_.in_c, p_.out_h, p_.out_w, p_.out_c,
                                    p_.kernel_h, p_.kernel_w, p_.stride_h, p_.stride_w, p_.pad_top, p_.pad_left,
                                    p_.groups, Act(attrs().activation), p_.batch),
                               static_cast<size_t>(p_.out_c) * p_.out_w * p_.batch * p_.out_h));
    return Status::Ok();
  }

 private:
  cpu::ConvParams p_;
  DeviceBuffer weights_, bias_;
  const Pipeline* pipeline_ = nullptr;
};

// FULLY_CONNECTED as the GEMM (a 1x1 conv over rows x 1 x 1 x in_dim),
// split over K where the units give few tiles (a classifier's 1000 x 1280).
class FullyConnectedExecution : public VkExecution {
 public:
  using VkExecution::VkExecution;
  Status Prepare() override {
    kernel_name_ = "fully_connected";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7}));
    RILL_INF_RETURN_IF_ERROR(NeedConstantWeights("non-constant weights"));
    c_.p = gpu::MakeFullyConnectedGeometry(InShape(0), InShape(1)).AsConv();
    c_.act = Act(attrs().activation);
    RILL_INF_RETURN_IF_ERROR(PrepareConv(static_cast<const float*>(args_.inputs[1]->host()),
                                         OptionalInput(2), &c_, /*may_split=*/true));
    kernel_name_ = "fully_connected_gemm" + c_.tile.ToString();
    return Status::Ok();
  }
  size_t scratch_bytes() const override { return c_.partial_floats() * sizeof(float); }
  Status Record(std::vector<Dispatch>* out) override {
    Operand partial;
    if (c_.splits > 1) {
      partial = {static_cast<VkArena*>(scratch_.buffer)->buffer(), static_cast<int>(scratch_.offset / sizeof(float))};
    }
    RecordConv(c_, In(0), Out(), Operand{}, 0, partial, 0, out);
    return Status::Ok();
  }

 private:
  ConvLaunch c_;
};

Status VkExecution::PrepareFusedPRelu(size_t slope) {
  gpu::BroadcastGeometry b;
  RILL_INF_RETURN_IF_ERROR(FusedPRelu(slope, &prelu_slope_, &b));
  if (prelu_slope_ < 0) return Status::Ok();
  prelu_count_ = b.count;
  prelu_shape_ = b.shape;
  RILL_INF_ASSIGN_OR_RETURN(prelu_pipeline_, GetPipeline("binary"));
  return Status::Ok();
}

void VkExecution::RecordFusedPRelu(std::vector<Dispatch>* out) const {
  if (prelu_slope_ < 0) return;
  const Operand y = Out(), slope = In(prelu_slope_);
  out->push_back(Elementwise(prelu_pipeline_, {y.buffer, slope.buffer, y.buffer},
                             Push(y.offset, slope.offset, y.offset, static_cast<int>(gpu::kBinaryPRelu), 0, prelu_count_, prelu_shape_),
                             static_cast<size_t>(prelu_count_)));
  out->back().reads = out->back().writes = {Dense(y, static_cast<size_t>(prelu_count_))};
  out->back().tracked = true;
}

class BinaryExecution : public VkExecution {
 public:
  using VkExecution::VkExecution;
  Status Prepare() override {
    kernel_name_ = "binary";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs());
    gpu::BroadcastGeometry b;
    RILL_INF_RETURN_IF_ERROR(MakeBinary(&b));
    count_ = b.count;
    shape_ = std::move(b.shape);
    op_ = gpu::BinaryOpCode(args_.node->type);
    RILL_INF_ASSIGN_OR_RETURN(pipeline_, GetPipeline("binary"));
    return Status::Ok();
  }
  Status Record(std::vector<Dispatch>* out) override {
    const Operand a = In(0), b = In(1), y = Out();
    out->push_back(Elementwise(pipeline_, {a.buffer, b.buffer, y.buffer},
                               Push(a.offset, b.offset, y.offset, op_, Act(attrs().activation), count_, shape_),
                               static_cast<size_t>(count_)));
    return Status::Ok();
  }

 private:
  int count_ = 0, op_ = 0;
  std::vector<int> shape_;
  const Pipeline* pipeline_ = nullptr;
};

class UnaryExecution : public VkExecution {
 public:
  using VkExecution::VkExecution;
  Status Prepare() override {
    kernel_name_ = "unary";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs());
    g_ = gpu::MakeUnaryGeometry(args_.node->type, attrs(), OutShape());
    RILL_INF_ASSIGN_OR_RETURN(pipeline_, GetPipeline("unary"));
    return Status::Ok();
  }
  Status Record(std::vector<Dispatch>* out) override {
    const Operand x = In(0), y = Out();
    out->push_back(Elementwise(pipeline_, {x.buffer, y.buffer},
                               Push(x.offset, y.offset, g_.op, g_.alpha, g_.beta, g_.count),
                               static_cast<size_t>(g_.count)));
    return Status::Ok();
  }

 private:
  gpu::UnaryGeometry g_;
  const Pipeline* pipeline_ = nullptr;
};

class PoolExecution : public VkExecution {
 public:
  using VkExecution::VkExecution;
  Status Prepare() override {
    kernel_name_ = "pool2d";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7}));
    p_ = gpu::PoolGeometry(attrs(), InShape(0), OutShape());
    RILL_INF_ASSIGN_OR_RETURN(pipeline_, GetPipeline("pool2d"));
    return Status::Ok();
  }
  Status Record(std::vector<Dispatch>* out) override {
    const Operand x = In(0), y = Out();
    out->push_back(Elementwise(pipeline_, {x.buffer, y.buffer},
                               Push(x.offset, y.offset, p_.in_h, p_.in_w, p_.in_c, p_.out_h, p_.out_w, p_.kernel_h,
                                    p_.kernel_w, p_.stride_h, p_.stride_w, p_.pad_top, p_.pad_left,
                                    gpu::PoolKind(args_.node->type), Act(attrs().activation),
                                    p_.batch),
                               static_cast<size_t>(p_.out_c) * p_.out_w * p_.batch * p_.out_h));
    return Status::Ok();
  }

 private:
  cpu::ConvParams p_;
  const Pipeline* pipeline_ = nullptr;
};

class MeanExecution : public VkExecution {
 public:
  using VkExecution::VkExecution;
  Status Prepare() override {
    kernel_name_ = "mean";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7}));
    gpu::MeanGeometry g;
    RILL_INF_RETURN_IF_ERROR(MakeMean(&g));
    shape_ = std::move(g.shape);
    reduced_ = g.reduced;
    count_ = g.count;
    // Many elements per output (a global average pool): a work group per
    // output sums them in parallel; else an invocation per output.
    reduce_ = reduced_ >= 64;
    kernel_name_ = reduce_ ? "mean_reduce" : "mean";
    RILL_INF_ASSIGN_OR_RETURN(pipeline_, GetPipeline(reduce_ ? "mean_reduce" : "mean"));
    return Status::Ok();
  }
  Status Record(std::vector<Dispatch>* out) override {
    const Operand x = In(0), y = Out();
    // mean_reduce: a group per output, i.e. 64 invocations per output.
    out->push_back(Elementwise(pipeline_, {x.buffer, y.buffer}, Push(x.offset, y.offset, reduced_, count_, shape_),
                               static_cast<size_t>(count_) * (reduce_ ? 64 : 1)));
    return Status::Ok();
  }

 private:
  int count_ = 0, reduced_ = 1;
  bool reduce_ = false;
  std::vector<int> shape_;
  const Pipeline* pipeline_ = nullptr;
};

// TRANSPOSE, SLICE, PAD and RESHAPE as one strided gather.
class ViewExecution : public VkExecution {
 public:
  using VkExecution::VkExecution;
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs());
    gpu::ViewGeometry v;
    RILL_INF_RETURN_IF_ERROR(MakeView(&v));
    kernel_name_ = v.name;
    start_ = v.start;
    pad_ = v.pad;
    value_ = v.value;
    count_ = v.count;
    shape_ = std::move(v.shape);
    RILL_INF_ASSIGN_OR_RETURN(pipeline_, GetPipeline("gather_view"));
    return Status::Ok();
  }
  Status Record(std::vector<Dispatch>* out) override {
    const Operand x = In(0), y = Out();
    out->push_back(Elementwise(pipeline_, {x.buffer, y.buffer},
                               Push(x.offset, y.offset, start_, pad_, value_, count_, shape_),
                               static_cast<size_t>(count_)));
    return Status::Ok();
  }

 private:
  int count_ = 0, start_ = 0, pad_ = 0;
  float value_ = 0.0f;
  std::vector<int> shape_;
  const Pipeline* pipeline_ = nullptr;
};

class ConcatExecution : public VkExecution {
 public:
  using VkExecution::VkExecution;
  Status Prepare() override {
    kernel_name_ = "concatenation";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs());
    g_ = MakeConcat();
    RILL_INF_ASSIGN_OR_RETURN(pipeline_, GetPipeline("concat_slice"));
    return Status::Ok();
  }
  Status Record(std::vector<Dispatch>* out) override {
    const Operand y = Out();
    for (size_t i = 0; i < g_.chunks.size(); ++i) {
      const Operand x = In(i);
      out->push_back(Elementwise(pipeline_, {x.buffer, y.buffer},
                                 Push(x.offset, y.offset, g_.chunks[i], g_.stride, g_.offsets[i],
                                      Act(attrs().activation), g_.outer * g_.chunks[i]),
                                 static_cast<size_t>(g_.outer) * g_.chunks[i]));
      // Each input into its own columns: no barrier between the slices.
      out->back().reads = {Dense(x, static_cast<size_t>(g_.outer) * g_.chunks[i])};
      out->back().writes = {Rows({y.buffer, y.offset + g_.offsets[i]}, g_.outer, g_.chunks[i], g_.stride)};
      out->back().tracked = true;
    }
    return Status::Ok();
  }

 private:
  gpu::ConcatGeometry g_;
  const Pipeline* pipeline_ = nullptr;
};

class SoftmaxExecution : public VkExecution {
 public:
  using VkExecution::VkExecution;
  Status Prepare() override {
    kernel_name_ = "softmax";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7}));
    g_ = gpu::MakeSoftmaxGeometry(attrs().axis, InShape(0));
    RILL_INF_ASSIGN_OR_RETURN(pipeline_, GetPipeline("softmax"));
    return Status::Ok();
  }
  Status Record(std::vector<Dispatch>* out) override {
    const Operand x = In(0), y = Out();
    out->push_back(Elementwise(pipeline_, {x.buffer, y.buffer},
                               Push(x.offset, y.offset, g_.axis_size, g_.inner, g_.count),
                               static_cast<size_t>(g_.count)));
    return Status::Ok();
  }

 private:
  gpu::SoftmaxGeometry g_;
  const Pipeline* pipeline_ = nullptr;
};

class ResizeExecution : public VkExecution {
 public:
  using VkExecution::VkExecution;
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7}));
    const ir::OpAttrs& a = attrs();
    if (a.antialias) return Refuse("antialiased resize");
    t_ = gpu::MakeResizeTaps(args_.node->type, a, InShape(0), OutShape());
    kernel_name_ = t_.name;
    // Tables change with the input's size: new ones at every plan.
    for (DeviceBuffer* b : {&rows_, &cols_, &rw_, &cw_}) Release(b);
    RILL_INF_RETURN_IF_ERROR(UploadRaw(t_.rows.data(), t_.rows.size() * sizeof(int), &rows_));
    RILL_INF_RETURN_IF_ERROR(UploadRaw(t_.cols.data(), t_.cols.size() * sizeof(int), &cols_));
    RILL_INF_RETURN_IF_ERROR(UploadRaw(t_.row_weights.data(), t_.row_weights.size() * sizeof(float), &rw_));
    RILL_INF_RETURN_IF_ERROR(UploadRaw(t_.col_weights.data(), t_.col_weights.size() * sizeof(float), &cw_));
    RILL_INF_ASSIGN_OR_RETURN(pipeline_, GetPipeline("resize_taps"));
    return Status::Ok();
  }
  Status Record(std::vector<Dispatch>* out) override {
    const Operand x = In(0), y = Out();
    const gpu::ResizeTables& t = t_;
    out->push_back(Elementwise(pipeline_, {x.buffer, y.buffer, rows_.buffer, rw_.buffer, cols_.buffer, cw_.buffer},
                               Push(x.offset, y.offset, t.taps, t.in_h, t.in_w, t.channels, t.out_h, t.out_w,
                                    t.outside, t.batch),
                               static_cast<size_t>(t.channels) * t.out_w * t.batch * t.out_h));
    return Status::Ok();
  }

 private:
  gpu::ResizeTables t_;
  DeviceBuffer rows_, cols_, rw_, cw_;
  const Pipeline* pipeline_ = nullptr;
};

class DepthToSpaceExecution : public VkExecution {
 public:
  using VkExecution::VkExecution;
  Status Prepare() override {
    kernel_name_ = "depth_to_space";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7}));
    RILL_INF_ASSIGN_OR_RETURN(pipeline_, GetPipeline("depth_to_space"));
    return Status::Ok();
  }
  Status Record(std::vector<Dispatch>* out) override {
    const Shape& x = InShape(0);
    const int count = static_cast<int>(NumElements(OutShape()));
    const Operand in = In(0), y = Out();
    out->push_back(Elementwise(pipeline_, {in.buffer, y.buffer},
                               Push(in.offset, y.offset, x[1], x[2], x[3], attrs().block_size, count),
                               static_cast<size_t>(count)));
    return Status::Ok();
  }

 private:
  const Pipeline* pipeline_ = nullptr;
};

// DEPTHWISE_BLOCK (the optimizer's [1x1 expand ->] depthwise -> 1x1 project
// [+ residual]): the expand GEMM into scratch, then the project GEMM
// computing the depthwise conv as it loads its input (conv_gemm's DW = 1;
// the residual in its epilogue), each with its split-K sum where it splits;
// or (fuse_depthwise=false) the depthwise as a dispatch of its own into
// scratch between the two.
class DepthwiseBlockExecution : public VkExecution {
 public:
  using VkExecution::VkExecution;
  size_t scratch_bytes() const override { return PartialOffsetBytes() + PartialFloats() * sizeof(float); }
  Status Prepare() override {
    kernel_name_ = "depthwise_block";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7, 8}));
    RILL_INF_RETURN_IF_ERROR(PrepareFusedPRelu(8));
    RILL_INF_RETURN_IF_ERROR(NeedConstantInputs({1, 2, 3, 4, 5, 6}, "non-constant filter"));
    has_expand_ = HasInput(1);
    g_ = gpu::MakeDepthwiseBlockGeometry(attrs(), InShape(0), InShape(3), InShape(5), OutShape(), has_expand_);
    static_cast<gpu::ConvPlan&>(expand_) = g_.expand;
    static_cast<gpu::ConvPlan&>(project_) = g_.project;
    const int mid_c = g_.depthwise.out_c;
    res_c_ = HasInput(7) ? InShape(7)[3] : 0;
    if (has_expand_) {
      RILL_INF_RETURN_IF_ERROR(PrepareConv(static_cast<const float*>(args_.inputs[1]->host()),
                                           OptionalInput(2), &expand_, /*may_split=*/true));
    }
    RILL_INF_RETURN_IF_ERROR(PrepareConv(static_cast<const float*>(args_.inputs[5]->host()),
                                         OptionalInput(6), &project_, /*may_split=*/true));
    if (!dw_weights_.buffer) {
      RILL_INF_RETURN_IF_ERROR(Upload(ConstFloats(args_.inputs[3]), &dw_weights_));
      RILL_INF_RETURN_IF_ERROR(Upload(gpu::BiasOrZeros(OptionalInput(4), mid_c), &dw_bias_));
    }
    fused_ = backend_->fuse_depthwise();
    if (fused_) {
      // The project GEMM (its tile, split and weights) over the depthwise's
      // window.
      fused_project_ = project_;
      fused_project_.p = g_.depthwise;
      fused_project_.p.out_c = project_.p.out_c;
      fused_project_.p.groups = 1;
      fused_project_.p.depth_multiplier = 1;
      fused_project_.act = project_.act | (g_.depthwise_act << 8);
      fused_project_.dw_weights = dw_weights_.buffer;
      fused_project_.dw_bias = dw_bias_.buffer;
      RILL_INF_ASSIGN_OR_RETURN(fused_project_.pipeline,
                                GetPipeline("conv_gemm", {project_.tile.m, project_.tile.n, 1}));
      kernel_name_ = "depthwise_block_fused";
    } else {
      RILL_INF_ASSIGN_OR_RETURN(dw_pipeline_, GetPipeline("depthwise_conv2d"));
    }
    return Status::Ok();
  }
  Status Record(std::vector<Dispatch>* out) override {
    const VkBuffer scratch = static_cast<VkArena*>(scratch_.buffer)->buffer();
    const int mid_off = static_cast<int>(scratch_.offset / elem());
    const int expanded_off = mid_off + static_cast<int>(g_.mid_elements);
    const Operand partial{scratch, static_cast<int>((scratch_.offset + PartialOffsetBytes()) / sizeof(float))};
    Operand src = In(0);
    if (has_expand_) {
      RecordConv(expand_, src, {scratch, expanded_off}, Operand{}, 0, partial, 0, out);
      src = {scratch, expanded_off};
    }
    if (fused_) {
      RecordConv(fused_project_, src, Out(), res_c_ ? In(7) : Operand{}, res_c_, partial, 0, out);
      RecordFusedPRelu(out);
      return Status::Ok();
    }
    const cpu::ConvParams& d = g_.depthwise;
    out->push_back(Elementwise(dw_pipeline_, {src.buffer, dw_weights_.buffer, dw_bias_.buffer, scratch},
                               Push(src.offset, mid_off, d.in_h, d.in_w, d.in_c, d.out_h, d.out_w, d.out_c, d.kernel_h,
                                    d.kernel_w, d.stride_h, d.stride_w, d.dilation_h, d.dilation_w, d.pad_top,
                                    d.pad_left, d.depth_multiplier, g_.depthwise_act, d.batch),
                               static_cast<size_t>(d.out_c) * d.out_w * d.batch * d.out_h));
    out->back().reads = {Dense(src, static_cast<size_t>(d.batch) * d.in_h * d.in_w * d.in_c)};
    out->back().writes = {Dense({scratch, mid_off}, g_.mid_elements)};
    out->back().tracked = true;
    RecordConv(project_, {scratch, mid_off}, Out(), res_c_ ? In(7) : Operand{}, res_c_, partial, 0, out);
    RecordFusedPRelu(out);
    return Status::Ok();
  }

 private:
  size_t PartialOffsetBytes() const { return g_.partial_offset_bytes(elem()); }
  size_t PartialFloats() const { return std::max(expand_.partial_floats(), project_.partial_floats()); }

  bool has_expand_ = false;
  gpu::DepthwiseBlockGeometry g_;
  ConvLaunch expand_, project_, fused_project_;
  DeviceBuffer dw_weights_, dw_bias_;
  const Pipeline* dw_pipeline_ = nullptr;
  int res_c_ = 0;
  bool fused_ = false;
};

// --- The backend: plan, record, replay -----------------------------------

Status VulkanBackend::PlanRun(const std::vector<RunStep>& steps) {
  // Staging buffers of transfers are kept across plans where big enough.
  std::vector<DeviceBuffer> spare;
  std::vector<bool> spare_upload;
  for (Step& s : steps_) {
    if (s.staging.buffer) {
      spare.push_back(s.staging);
      spare_upload.push_back(s.kind == RunStep::Kind::kCopyFromHost);
    }
  }
  steps_.clear();
  transfer_steps_.clear();
  for (size_t i = 0; i < steps.size(); ++i) {
    const RunStep& r = steps[i];
    Step s;
    s.kind = r.kind;
    if (r.kind == RunStep::Kind::kExecution) {
      s.exec = dynamic_cast<VkExecution*>(r.execution);
      if (!s.exec) return InternalError("vulkan: a task of another backend in the vulkan plan");
      s.exec->set_step(static_cast<int>(i));
      s.name = s.exec->node_name() + " (" + s.exec->name() + ")";
    } else {
      s.device = r.device;
      s.bytes = StorageBytes(r.device->dtype, r.device->shape);
      s.convert = half_ && r.device->dtype == DataType::kFloat32;
      s.name = r.kind == RunStep::Kind::kCopyFromHost ? "copy_from_host" : "copy_to_host";
      const bool upload = r.kind == RunStep::Kind::kCopyFromHost;
      for (size_t k = 0; k < spare.size(); ++k) {
        if (spare[k].size >= s.bytes && spare_upload[k] == upload) {
          s.staging = spare[k];
          spare.erase(spare.begin() + static_cast<long>(k));
          spare_upload.erase(spare_upload.begin() + static_cast<long>(k));
          break;
        }
      }
      if (!s.staging.buffer) RILL_INF_RETURN_IF_ERROR(rt_->CreateBuffer(s.bytes, true, &s.staging, upload));
      transfer_steps_[r.device] = static_cast<int>(i);
    }
    steps_.push_back(std::move(s));
  }
  for (DeviceBuffer& b : spare) rt_->DestroyBuffer(&b);
  next_ = cursor_ = 0;
  return Status::Ok();
}

Status VulkanBackend::FuseDepthwiseIntoPointwise() {
  const int n = static_cast<int>(steps_.size());
  for (int i = 0; i + 1 < n; ++i) {
    auto* dw = dynamic_cast<DepthwiseExecution*>(steps_[i].exec);
    auto* conv = dynamic_cast<ConvExecution*>(steps_[i + 1].exec);
    DepthwiseStage stage;
    if (!dw || !conv || dispatches_[i].size() != 1 || !dw->Stage(&stage)) continue;
    // No other reader of the depthwise output: none in the conv's step but
    // its input, none later until something writes over those bytes (the
    // planner reuses them only once the tensor is dead).
    const Span y = dw->OutputBytes();
    bool other_reader = false;
    for (const Dispatch& d : dispatches_[i + 1]) {
      for (size_t r = 1; r < d.reads.size(); ++r) other_reader = other_reader || Overlap(d.reads[r], y);
    }
    for (int j = i + 2; j < n && !other_reader; ++j) {
      bool overwritten = false;
      if (steps_[j].kind == RunStep::Kind::kExecution) {
        for (const Dispatch& d : dispatches_[j]) {
          for (const Span& r : d.reads) other_reader = other_reader || Overlap(r, y);
          for (const Span& w : d.writes) overwritten = overwritten || Overlap(w, y);
        }
      } else {
        const MemoryRef& m = steps_[j].device->memory;
        const Span bytes{static_cast<VkArena*>(m.buffer)->buffer(), m.offset, m.offset + steps_[j].bytes};
        if (Overlap(bytes, y)) {
          other_reader = other_reader || steps_[j].kind == RunStep::Kind::kCopyToHost;
          overwritten = true;
        }
      }
      if (overwritten) break;
    }
    if (other_reader) continue;
    std::vector<Dispatch> fused;
    RILL_INF_ASSIGN_OR_RETURN(const bool done, conv->RecordAfterDepthwise(stage, &fused));
    if (!done) continue;
    // The planner may have put the conv's output (or scratch) over the
    // depthwise input, dead after the depthwise step: then it cannot read it.
    const Span x = dw->InputBytes();
    bool overwrites_input = false;
    for (const Dispatch& d : fused) {
      for (const Span& w : d.writes) overwrites_input = overwrites_input || Overlap(w, x);
    }
    if (overwrites_input) continue;
    dispatches_[i].clear();
    dispatches_[i + 1] = std::move(fused);
    ++i;
  }
  return Status::Ok();
}

void VulkanBackend::FreeRecording() {
  const VkDevice dev = rt_->device();
  if (!step_cbs_.empty()) {
    vk().vkFreeCommandBuffers(dev, rt_->command_pool(), static_cast<uint32_t>(step_cbs_.size()), step_cbs_.data());
  }
  if (!segment_cbs_.empty()) {
    vk().vkFreeCommandBuffers(dev, rt_->command_pool(), static_cast<uint32_t>(segment_cbs_.size()),
                              segment_cbs_.data());
  }
  step_cbs_.clear();
  segment_cbs_.clear();
  if (pool_) vk().vkDestroyDescriptorPool(dev, pool_, nullptr);
  pool_ = VK_NULL_HANDLE;
  if (queries_) vk().vkDestroyQueryPool(dev, queries_, nullptr);
  queries_ = VK_NULL_HANDLE;
}

// A full barrier between steps and between the dispatches of a step: every
// earlier shader or transfer write is visible to every later read or write.
void FullBarrier(VkCommandBuffer cb) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                    VK_ACCESS_TRANSFER_WRITE_BIT;
  const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vk().vkCmdPipelineBarrier(cb, stages, stages, 0, 1, &b, 0, nullptr, 0, nullptr);
}

// Makes the transfers to staging buffers visible to the host (once, at the
// end of a command buffer that has any).
void HostBarrier(VkCommandBuffer cb) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vk().vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b, 0, nullptr, 0,
                            nullptr);
}

bool VulkanBackend::RecordStep(VkCommandBuffer cb, int i, bool timestamps, Hazards* hazards, long* barriers,
                               long* dispatches) {
  Step& s = steps_[i];
  // A barrier only before an access that conflicts with one since the last.
  auto access = [&](const std::vector<Span>& reads, const std::vector<Span>& writes) {
    if (hazards->Conflicts(reads, writes)) {
      FullBarrier(cb);
      hazards->Clear();
      ++*barriers;
    }
    hazards->Add(reads, writes);
  };
  if (timestamps) vk().vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 2 * i);
  bool to_host = false;
  if (s.kind == RunStep::Kind::kExecution) {
    const std::vector<Dispatch>& ds = dispatches_[i];
    for (size_t k = 0; k < ds.size(); ++k) {
      const Dispatch& d = ds[k];
      if (d.groups[0] == 0 || d.groups[1] == 0 || d.groups[2] == 0) continue;
      access(d.reads, d.writes);
      vk().vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d.pipeline->pipeline);
      vk().vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d.pipeline->layout, 0, 1, &sets_[i][k], 0,
                                   nullptr);
      vk().vkCmdPushConstants(cb, d.pipeline->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                              static_cast<uint32_t>(d.push.size() * sizeof(int32_t)), d.push.data());
      vk().vkCmdDispatch(cb, d.groups[0], d.groups[1], d.groups[2]);
      ++*dispatches;
    }
  } else if (s.bytes > 0) {
    const MemoryRef& m = s.device->memory;
    const VkBuffer arena = static_cast<VkArena*>(m.buffer)->buffer();
    const std::vector<Span> bytes = {Span{arena, m.offset, m.offset + s.bytes}};
    VkBufferCopy region{};
    region.size = s.bytes;
    if (s.kind == RunStep::Kind::kCopyFromHost) {
      access({}, bytes);
      region.dstOffset = m.offset;
      vk().vkCmdCopyBuffer(cb, s.staging.buffer, arena, 1, &region);
    } else {
      access(bytes, {});
      region.srcOffset = m.offset;
      vk().vkCmdCopyBuffer(cb, arena, s.staging.buffer, 1, &region);
      to_host = true;
    }
  }
  if (timestamps) vk().vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 2 * i + 1);
  return to_host;
}

Status VulkanBackend::Record() {
  const VkDevice dev = rt_->device();
  vk().vkDeviceWaitIdle(dev);
  FreeRecording();
  if (!fence_) {
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    const VkResult r = vk().vkCreateFence(dev, &fci, nullptr, &fence_);
    if (r != VK_SUCCESS) return VkError(r, "vkCreateFence");
  }
  const int n = static_cast<int>(steps_.size());
  if (n == 0) return Status::Ok();
  // The dispatches, and one descriptor set each.
  dispatches_.assign(n, {});
  sets_.assign(n, {});
  uint32_t set_count = 0, descriptor_count = 0;
  for (int i = 0; i < n; ++i) {
    if (steps_[i].kind != RunStep::Kind::kExecution) continue;
    RILL_INF_RETURN_IF_ERROR(steps_[i].exec->Record(&dispatches_[i]));
    steps_[i].exec->DefaultAccesses(&dispatches_[i]);
  }
  if (fuse_depthwise_) RILL_INF_RETURN_IF_ERROR(FuseDepthwiseIntoPointwise());
  for (int i = 0; i < n; ++i) {
    for (const Dispatch& d : dispatches_[i]) {
      ++set_count;
      descriptor_count += static_cast<uint32_t>(d.buffers.size());
    }
  }
  if (set_count > 0) {
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max<uint32_t>(descriptor_count, 1)};
    VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.maxSets = set_count;
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = &size;
    VkResult r = vk().vkCreateDescriptorPool(dev, &dpi, nullptr, &pool_);
    if (r != VK_SUCCESS) return VkError(r, "vkCreateDescriptorPool");
    std::vector<VkDescriptorBufferInfo> infos;
    std::vector<VkWriteDescriptorSet> writes;
    infos.reserve(descriptor_count);
    for (int i = 0; i < n; ++i) {
      for (const Dispatch& d : dispatches_[i]) {
        VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        ai.descriptorPool = pool_;
        ai.descriptorSetCount = 1;
        ai.pSetLayouts = &d.pipeline->set_layout;
        VkDescriptorSet set = VK_NULL_HANDLE;
        r = vk().vkAllocateDescriptorSets(dev, &ai, &set);
        if (r != VK_SUCCESS) return VkError(r, "vkAllocateDescriptorSets");
        sets_[i].push_back(set);
        if (static_cast<int>(d.buffers.size()) != d.pipeline->bindings) {
          return InternalError("vulkan: " + steps_[i].name + " binds " + std::to_string(d.buffers.size()) +
                               " buffers to a shader of " + std::to_string(d.pipeline->bindings));
        }
        for (size_t b = 0; b < d.buffers.size(); ++b) {
          infos.push_back(VkDescriptorBufferInfo{d.buffers[b], 0, VK_WHOLE_SIZE});
          VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
          w.dstSet = set;
          w.dstBinding = static_cast<uint32_t>(b);
          w.descriptorCount = 1;
          w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
          w.pBufferInfo = &infos.back();
          writes.push_back(w);
        }
      }
    }
    vk().vkUpdateDescriptorSets(dev, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  }
  // Segments: a new one after each stretch of transfers to the host (what
  // follows may need the host's answer first).
  segment_of_.assign(n, 0);
  segment_begin_ = {0};
  for (int i = 1; i < n; ++i) {
    const bool after_read = steps_[i - 1].kind == RunStep::Kind::kCopyToHost;
    if (after_read && steps_[i].kind != RunStep::Kind::kCopyToHost) segment_begin_.push_back(i);
    segment_of_[i] = static_cast<int>(segment_begin_.size()) - 1;
  }
  segment_begin_.push_back(n);
  const bool timestamps = !profile_path_.empty() && rt_->timestamps();
  if (timestamps) {
    VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = static_cast<uint32_t>(2 * n);
    const VkResult r = vk().vkCreateQueryPool(dev, &qi, nullptr, &queries_);
    if (r != VK_SUCCESS) return VkError(r, "vkCreateQueryPool");
    stamps_.assign(2 * n, 0);
  }
  const int segments = static_cast<int>(segment_begin_.size()) - 1;
  step_cbs_.assign(n, VK_NULL_HANDLE);
  segment_cbs_.assign(segments, VK_NULL_HANDLE);
  recorded_barriers_ = recorded_dispatches_ = every_access_barriers_ = 0;
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = rt_->command_pool();
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = static_cast<uint32_t>(n);
  VkResult r = vk().vkAllocateCommandBuffers(dev, &ai, step_cbs_.data());
  if (r != VK_SUCCESS) return VkError(r, "vkAllocateCommandBuffers");
  ai.commandBufferCount = static_cast<uint32_t>(segments);
  r = vk().vkAllocateCommandBuffers(dev, &ai, segment_cbs_.data());
  if (r != VK_SUCCESS) return VkError(r, "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  // Each command buffer starts with a full barrier (after what earlier
  // submits wrote), then records barriers only where an access conflicts.
  for (int i = 0; i < n; ++i) {
    vk().vkBeginCommandBuffer(step_cbs_[i], &bi);
    Hazards hazards;
    long barriers = 0, dispatches = 0;
    FullBarrier(step_cbs_[i]);
    if (RecordStep(step_cbs_[i], i, false, &hazards, &barriers, &dispatches)) HostBarrier(step_cbs_[i]);
    r = vk().vkEndCommandBuffer(step_cbs_[i]);
    if (r != VK_SUCCESS) return VkError(r, "vkEndCommandBuffer (" + steps_[i].name + ")");
  }
  for (int g = 0; g < segments; ++g) {
    VkCommandBuffer cb = segment_cbs_[g];
    vk().vkBeginCommandBuffer(cb, &bi);
    const int begin = segment_begin_[g], end = segment_begin_[g + 1];
    if (timestamps) vk().vkCmdResetQueryPool(cb, queries_, 2 * begin, 2 * (end - begin));
    Hazards hazards;
    FullBarrier(cb);
    ++recorded_barriers_;
    bool to_host = false;
    for (int i = begin; i < end; ++i) {
      to_host |= RecordStep(cb, i, timestamps, &hazards, &recorded_barriers_, &recorded_dispatches_);
      // A barrier before every step and between its dispatches, and one
      // after every transfer to the host, as before the tracking.
      const bool exec = steps_[i].kind == RunStep::Kind::kExecution;
      every_access_barriers_ += std::max<long>(1, exec ? static_cast<long>(dispatches_[i].size()) : 1) +
                                (steps_[i].kind == RunStep::Kind::kCopyToHost);
    }
    if (to_host) {
      HostBarrier(cb);
      ++recorded_barriers_;
    }
    r = vk().vkEndCommandBuffer(cb);
    if (r != VK_SUCCESS) return VkError(r, "vkEndCommandBuffer (segment " + std::to_string(g) + ")");
  }
  next_ = cursor_ = 0;
  rt_->SavePipelineCache();
  return Status::Ok();
}

Status VulkanBackend::Flush(bool to_segment_end) {
  if (next_ >= cursor_) return Status::Ok();
  int end = cursor_;
  // At a transfer to the host the segment's remaining steps are transfers
  // to the host too (a segment ends with them): submit them along.
  if (to_segment_end) end = segment_begin_[segment_of_[cursor_ - 1] + 1];
  const int g = segment_of_[next_];
  const bool whole = next_ == segment_begin_[g] && end == segment_begin_[g + 1];
  ++submits_;
  if (whole) {
    RILL_INF_RETURN_IF_ERROR(rt_->Submit(&segment_cbs_[g], 1, fence_));
  } else {
    RILL_INF_RETURN_IF_ERROR(rt_->Submit(&step_cbs_[next_], static_cast<uint32_t>(end - next_), fence_));
  }
  VkResult r = vk().vkWaitForFences(rt_->device(), 1, &fence_, VK_TRUE, UINT64_MAX);
  vk().vkResetFences(rt_->device(), 1, &fence_);
  if (r != VK_SUCCESS) return VkError(r, "vkWaitForFences");
  if (whole && queries_) {
    const int begin = segment_begin_[g];
    r = vk().vkGetQueryPoolResults(rt_->device(), queries_, 2 * begin, 2 * (end - begin),
                                   2 * (end - begin) * sizeof(uint64_t), &stamps_[2 * begin], sizeof(uint64_t),
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r == VK_SUCCESS) {
      for (int i = begin; i < end; ++i) {
        steps_[i].gpu_us += static_cast<double>(stamps_[2 * i + 1] - stamps_[2 * i]) * rt_->timestamp_period_ns() / 1e3;
        ++steps_[i].runs;
      }
    }
  }
  next_ = end;
  return Status::Ok();
}

void VulkanBackend::WriteProfile() {
  std::ofstream out(profile_path_, std::ios::trunc);
  if (!out) return;
  out << "# vulkan GPU time per recorded step (VkQueryPool timestamps), " << rt_->description() << "\n";
  out << "# runs " << runs_ << " submits " << submits_ << " segments " << segment_cbs_.size() << "\n";
  out << "# recorded dispatches " << recorded_dispatches_ << " barriers " << recorded_barriers_
      << " (with one before every step and dispatch: " << every_access_barriers_ << ")\n";
  if (!rt_->timestamps()) {
    out << "# this device's queue has no timestamps\n";
    return;
  }
  double total = 0;
  for (const Step& s : steps_) total += s.runs ? s.gpu_us / s.runs : 0;
  out << "# step\tmean_us\tshare\tname\n";
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step& s = steps_[i];
    const double mean = s.runs ? s.gpu_us / s.runs : 0;
    char line[64];
    std::snprintf(line, sizeof(line), "%zu\t%.2f\t%.1f%%\t", i, mean, total > 0 ? 100.0 * mean / total : 0.0);
    out << line << s.name << "\n";
  }
  char line[64];
  std::snprintf(line, sizeof(line), "# total_us\t%.2f\n", total);
  out << line;
}

// The GEMM tile: the option, or the cached tuning, or measured now.
StatusOr<GemmTile> VulkanBackend::Tile(bool large) {
  if (have_tile_[large]) return tile_[large];
  const std::string& option = rt_->tile_option();
  GemmTile t;
  if (option == "default") {
    // 64x64
  } else if (option != "tune") {
    int m = 0, n = 0;
    if (std::sscanf(option.c_str(), "%dx%d", &m, &n) != 2 || (m != 32 && m != 64) || (n != 32 && n != 64)) {
      return InvalidArgumentError("vulkan: option tile=" + option + " is not tune, default or MxN with M, N in {32, 64}");
    }
    t.m = m;
    t.n = n;
  } else {
    const std::string what =
        "gemm_tile_" + std::to_string(static_cast<int>(variant())) + (large ? "_large" : "_small");
    const std::string cached = rt_->CachedTuning(what);
    if (std::sscanf(cached.c_str(), "%dx%d", &t.m, &t.n) != 2) {
      RILL_INF_ASSIGN_OR_RETURN(t, MeasureTile(large));
      rt_->SaveTuning(what, t.ToString());
    }
  }
  tile_[large] = t;
  have_tile_[large] = true;
  return t;
}

// Times the four tiles on one 3x3 conv of the class (on a GPU: 56x56x128
// -> 128 for many output tiles, 14x14x256 -> 256 for few; a small one on a
// CPU device) and keeps the fastest.
StatusOr<GemmTile> VulkanBackend::MeasureTile(bool large) {
  const bool big = !rt_->cpu_device();
  const int hw = !big ? 10 : large ? 56 : 14, c = !big ? 32 : large ? 128 : 256;
  const size_t e = half_ ? 2 : 4;
  DeviceBuffer x, w, b, y, partial;
  const size_t xs = static_cast<size_t>(hw) * hw * c * e, ws = static_cast<size_t>(9) * c * c * e;
  Status status = rt_->CreateBuffer(xs, false, &x);
  if (status.ok()) status = rt_->CreateBuffer(ws, false, &w);
  if (status.ok()) status = rt_->CreateBuffer(c * e, false, &b);
  if (status.ok()) status = rt_->CreateBuffer(xs, false, &y);
  // Each candidate splits K as PrepareConv would for it (few tiles: more
  // splits), into float partial sums.
  if (status.ok()) status = rt_->CreateBuffer(static_cast<size_t>(32) * hw * hw * c * sizeof(float), false, &partial);
  GemmTile best;
  double best_ms = 1e30;
  for (int m : {32, 64}) {
    for (int n : {32, 64}) {
      if (!status.ok()) break;
      StatusOr<const Pipeline*> p = rt_->GetPipeline("conv_gemm", variant(), {m, n});
      if (!p.ok()) {
        status = p.status();
        break;
      }
      const int k = 9 * c;
      const long tiles = static_cast<long>((c + n - 1) / n) * ((hw * hw + m - 1) / m);
      const long want = 2L * rt_->compute_units();
      int splits = 1, k_chunk = k;
      if (tiles < want && k >= 256) {
        splits = static_cast<int>(std::min<long>({(want + tiles - 1) / tiles, k / 128, 32}));
        k_chunk = ((k + splits - 1) / splits + 15) / 16 * 16;
        splits = (k + k_chunk - 1) / k_chunk;
      }
      const std::vector<int32_t> push =
          Push(0, 0, 0, 0, 1, hw, hw, c, hw, hw, c, 3, 3, 1, 1, 1, 1, 1, 1, 0, k_chunk, splits, 0, c);
      // A descriptor pool of its own for the one set.
      VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 8};
      VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
      dpi.maxSets = 1;
      dpi.poolSizeCount = 1;
      dpi.pPoolSizes = &size;
      VkDescriptorPool pool = VK_NULL_HANDLE;
      vk().vkCreateDescriptorPool(rt_->device(), &dpi, nullptr, &pool);
      VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      ai.descriptorPool = pool;
      ai.descriptorSetCount = 1;
      ai.pSetLayouts = &(*p)->set_layout;
      VkDescriptorSet set = VK_NULL_HANDLE;
      vk().vkAllocateDescriptorSets(rt_->device(), &ai, &set);
      const VkBuffer bufs[8] = {x.buffer, w.buffer, b.buffer, y.buffer, y.buffer, partial.buffer, w.buffer, b.buffer};
      VkDescriptorBufferInfo infos[8];
      VkWriteDescriptorSet writes[8];
      for (int i = 0; i < 8; ++i) {
        infos[i] = VkDescriptorBufferInfo{bufs[i], 0, VK_WHOLE_SIZE};
        writes[i] = VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[i].dstSet = set;
        writes[i].dstBinding = static_cast<uint32_t>(i);
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &infos[i];
      }
      vk().vkUpdateDescriptorSets(rt_->device(), 8, writes, 0, nullptr);
      const int reps = big ? 20 : 2;
      auto record = [&](VkCommandBuffer cb) {
        for (VkBuffer buf : {x.buffer, w.buffer, b.buffer}) vk().vkCmdFillBuffer(cb, buf, 0, VK_WHOLE_SIZE, 0);
        FullBarrier(cb);
        vk().vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, (*p)->pipeline);
        vk().vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, (*p)->layout, 0, 1, &set, 0, nullptr);
        vk().vkCmdPushConstants(cb, (*p)->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                static_cast<uint32_t>(push.size() * 4), push.data());
        for (int k = 0; k < reps; ++k) {
          vk().vkCmdDispatch(cb, static_cast<uint32_t>((c + n - 1) / n), static_cast<uint32_t>((hw * hw + m - 1) / m),
                             static_cast<uint32_t>(splits));
          FullBarrier(cb);
        }
      };
      double ms = 1e30;
      for (int trial = 0; trial < 3 && status.ok(); ++trial) {
        const auto start = std::chrono::steady_clock::now();
        status = rt_->RunOnce(record);
        const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (trial > 0) ms = std::min(ms, t);  // the first one warms up
      }
      vk().vkDestroyDescriptorPool(rt_->device(), pool, nullptr);
      if (ms < best_ms) {
        best_ms = ms;
        best.m = m;
        best.n = n;
      }
    }
  }
  for (DeviceBuffer* d : {&x, &w, &b, &y, &partial}) rt_->DestroyBuffer(d);
  RILL_INF_RETURN_IF_ERROR(status);
  return best;
}

StatusOr<std::unique_ptr<Execution>> VulkanBackend::CreateExecution(const ExecutionArgs& args) {
  using gpu::GpuOp;
  const GpuOp op = args.node->type == ir::OpType::kResizeBicubic ? GpuOp::kNone  // no bicubic shader
                                                                  : gpu::GpuOpOf(args.node->type);
  std::unique_ptr<Execution> e;
  switch (op) {
    case GpuOp::kConv2D: e = std::make_unique<ConvExecution>(args, this); break;
    case GpuOp::kDepthwiseConv2D: e = std::make_unique<DepthwiseExecution>(args, this); break;
    case GpuOp::kTransposeConv2D: e = std::make_unique<TransposeConvExecution>(args, this); break;
    case GpuOp::kFullyConnected: e = std::make_unique<FullyConnectedExecution>(args, this); break;
    case GpuOp::kDepthwiseBlock: e = std::make_unique<DepthwiseBlockExecution>(args, this); break;
    case GpuOp::kBinary: e = std::make_unique<BinaryExecution>(args, this); break;
    case GpuOp::kUnary: e = std::make_unique<UnaryExecution>(args, this); break;
    case GpuOp::kPool: e = std::make_unique<PoolExecution>(args, this); break;
    case GpuOp::kMean: e = std::make_unique<MeanExecution>(args, this); break;
    case GpuOp::kView: e = std::make_unique<ViewExecution>(args, this); break;
    case GpuOp::kConcatenation: e = std::make_unique<ConcatExecution>(args, this); break;
    case GpuOp::kSoftmax: e = std::make_unique<SoftmaxExecution>(args, this); break;
    case GpuOp::kResize: e = std::make_unique<ResizeExecution>(args, this); break;
    case GpuOp::kDepthToSpace: e = std::make_unique<DepthToSpaceExecution>(args, this); break;
    case GpuOp::kNone:
      return UnimplementedError(args.graph->NodeContext(*args.node) + "vulkan has no shader for " +
                                ir::OpTypeName(args.node->type));
  }
  return e;
}

StatusOr<std::unique_ptr<Backend>> CreateVulkan(const BackendContext& context) {
  RILL_INF_ASSIGN_OR_RETURN(std::unique_ptr<VkRuntime> runtime, VkRuntime::Create(context.options));
  bool half = context.config->precision == Precision::kFp16;
  if (half && !runtime->fp16_storage()) {
    std::fprintf(stderr, "rill: vulkan: %s has no VK_KHR_16bit_storage: Precision::kFp16 runs in fp32\n",
                 runtime->description().c_str());
    half = false;
  }
  std::string profile;
  if (auto it = context.options.find("gpu_profile"); it != context.options.end()) profile = it->second;
  bool fuse_depthwise = false;
  if (auto it = context.options.find("fuse_depthwise"); it != context.options.end()) {
    if (it->second != "true" && it->second != "false") {
      return InvalidArgumentError("vulkan: option fuse_depthwise=" + it->second + " is not true or false");
    }
    fuse_depthwise = it->second == "true";
  }
  // The pipelines every model uses, created now: a device whose driver
  // rejects the shaders is a clear error at Session::Create.
  const Variant v = !half ? Variant::kFp32 : runtime->fp16_arithmetic() ? Variant::kFp16Arith : Variant::kFp16Storage;
  RILL_INF_RETURN_IF_ERROR(runtime->GetPipeline("unary", v).status());
  return std::unique_ptr<Backend>(new VulkanBackend(std::move(runtime), half, profile, fuse_depthwise));
}

const bool kRegistered = RegisterBackend("vulkan", CreateVulkan);

}  // namespace

bool VulkanBackendLinked() { return kRegistered; }

}  // namespace rill::inference::vulkan
