// The OpenCL backend ("opencl"): device buffers (one arena per session,
// tensors NHWC, or NC4HW4 between the channel-blocked kernels of 1x1 and
// depthwise convs on large maps; fp32, or half storage with fp32 arithmetic
// under Precision::kFp16), executions that enqueue kernels from kernels/nn.cl on one
// in-order queue, transfers through that queue, and a clFinish at the end of
// each run. Nodes it has no kernel for are refused (Unimplemented) and run on
// the CPU.
#include <CL/cl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "inference/backend/backend.h"
#include "inference/backend/gpu/gpu_execution.h"
#include "inference/backend/gpu/op_geometry.h"
#include "inference/backend/gpu/weights.h"
#include "inference/backend/opencl/opencl_runtime.h"

namespace rill::inference::opencl {
namespace {

using gpu::Act;
using gpu::ConstFloats;
using gpu::PackConvFilter;
using gpu::PackGemmFilter;

class ClBuffer : public Buffer {
 public:
  ClBuffer(cl_mem mem, size_t size) : mem_(mem), size_(size) {}
  ~ClBuffer() override { cl().clReleaseMemObject(mem_); }
  size_t size() const override { return size_; }
  cl_mem mem() const { return mem_; }

 private:
  cl_mem mem_;
  size_t size_;
};

class OpenClBackend;

// One convolution with its own uploaded weights: CONV_2D, and the expand /
// project convs of DEPTHWISE_BLOCK. Without groups it runs the tiled
// implicit GEMM (conv2d_tiled), else the direct kernel (conv2d).
// Split over K (tiled only): `splits` work groups per output tile, each
// summing `k_chunk` of K into scratch floats, then one reduce.
// `narrow_n` > 0: a 1x1 conv paired into this launch (its narrow_n output
// channels first; conv2d_tiled sums only the centre tap's K for them).
struct ConvLaunch : gpu::ConvPlan {
  cl_mem weights = nullptr, bias = nullptr;
  int narrow_n = 0;
};

// Base of the executions: kernel objects, argument setting and constant
// uploads (the node, its operands, errors and refusals: gpu::GpuExecution).
class ClExecution : public gpu::GpuExecution {
 public:
  ClExecution(const ExecutionArgs& args, OpenClBackend* backend);
  ~ClExecution() override;
  bool tuned() const { return args_.tuning != nullptr; }
  std::string name() const override;
  const ExecutionArgs& exec_args() const { return args_; }

  // Channel-blocked storage (OpenClBackend::StorageFor): whether this
  // execution, as prepared, reads input i / writes its output with an
  // NC4HW4 kernel and gains from it. A tensor is stored NC4HW4 where its
  // producer says so for its output and every reader for that input.
  virtual bool Nc4Input(size_t i) const {
    (void)i;
    return false;
  }
  virtual bool Nc4Output() const { return false; }

 protected:
  cl_context context() const;
  cl_command_queue queue() const;
  bool half() const;
  size_t elem() const { return half() ? 2 : 4; }
  // The output map size from which NC4HW4 kernels are used (option
  // opencl.nc4_min_pixels; gpu::kNc4MinPixels by default).
  int nc4_min_pixels() const;
  // 1 where the tensor is stored NC4HW4 (the kernels' layout flag).
  static int Nc4(const TensorBinding* b) { return b != nullptr && b->layout.channel_block == 4 ? 1 : 0; }

  // The kernel `name` (created once; index into kernels_).
  StatusOr<cl_kernel> Kernel(size_t index, const char* kernel_name);
  // Uploads floats as the storage type, once (kept across resizes when the
  // same slot is asked again with `keep`).
  StatusOr<cl_mem> Upload(const std::vector<float>& values);
  StatusOr<cl_mem> UploadInts(const std::vector<int>& values);
  // `keep`: released with the execution (else the caller releases it).
  StatusOr<cl_mem> UploadRaw(const void* data, size_t bytes, bool keep = true);
  // An input's buffer and element offset: a constant input is uploaded in
  // Prepare (UploadConstantInputs), an activation is the arena.
  Status UploadConstantInputs(std::initializer_list<size_t> which = {});
  cl_mem InMem(size_t i) const {
    return args_.inputs[i]->constant ? constant_inputs_[i] : Mem(args_.inputs[i]->memory);
  }
  int InOff(size_t i) const { return args_.inputs[i]->constant ? 0 : Off(args_.inputs[i]->memory); }
  cl_mem OutMem() const { return Mem(args_.outputs[0]->memory); }
  int OutOff() const { return Off(args_.outputs[0]->memory); }
  static cl_mem Mem(const MemoryRef& m) { return static_cast<ClBuffer*>(m.buffer)->mem(); }
  int Off(const MemoryRef& m) const { return static_cast<int>(m.offset / elem()); }

  // Sets the arguments in order and enqueues over `global`, with the
  // work-group size tuned for this launch (TuneLaunches) or the driver's.
  template <class... A>
  Status Launch(cl_kernel k, std::initializer_list<size_t> global, const A&... a) {
    cl_uint i = 0;
    cl_int err = CL_SUCCESS;
    ((err = err == CL_SUCCESS ? SetArg(k, i++, a) : err), ...);
    if (err != CL_SUCCESS) return ClError(err, name() + ": clSetKernelArg " + std::to_string(i - 1));
    LaunchSite site;
    site.kernel = k;
    for (size_t v : global) site.global[site.dims++] = std::max<size_t>(v, 1);
    const size_t* local = LocalFor(site);
    err = cl().clEnqueueNDRangeKernel(queue(), k, static_cast<cl_uint>(site.dims), nullptr, site.global, local, 0,
                                      nullptr, ProfileEvent());
    if (err != CL_SUCCESS) return ClError(err, name() + ": clEnqueueNDRangeKernel");
    RecordLaunch(k);
    return AfterLaunch();
  }
  // The same with a work-group size (the global size rounded up to it).
  template <class... A>
  Status LaunchLocal(cl_kernel k, std::initializer_list<size_t> global, std::initializer_list<size_t> local,
                     const A&... a) {
    cl_uint i = 0;
    cl_int err = CL_SUCCESS;
    ((err = err == CL_SUCCESS ? SetArg(k, i++, a) : err), ...);
    if (err != CL_SUCCESS) return ClError(err, name() + ": clSetKernelArg " + std::to_string(i - 1));
    size_t g[3] = {1, 1, 1}, l[3] = {1, 1, 1};
    size_t dims = 0;
    for (size_t v : local) l[dims++] = v;
    dims = 0;
    for (size_t v : global) {
      g[dims] = (std::max<size_t>(v, 1) + l[dims] - 1) / l[dims] * l[dims];
      ++dims;
    }
    err = cl().clEnqueueNDRangeKernel(queue(), k, static_cast<cl_uint>(dims), nullptr, g, l, 0, nullptr,
                                      ProfileEvent());
    if (err != CL_SUCCESS) return ClError(err, name() + ": clEnqueueNDRangeKernel");
    RecordLaunch(k);
    return AfterLaunch();
  }
  // opencl.gpu_profile: an event for the launch being enqueued (null when
  // not profiling), handed to the backend after it (RecordLaunch).
  cl_event* ProfileEvent();
  void RecordLaunch(cl_kernel k);
  // opencl.flush_every=N: a clFlush of the lane's queue after every N-th
  // launch, so that the GPU starts on the first kernels while the host
  // still enqueues the rest (else a driver may hold them until clFinish).
  Status AfterLaunch();
  cl_event profile_event_ = nullptr;
  static cl_int SetArg(cl_kernel k, cl_uint i, cl_mem m) { return cl().clSetKernelArg(k, i, sizeof(cl_mem), &m); }
  static cl_int SetArg(cl_kernel k, cl_uint i, int v) { return cl().clSetKernelArg(k, i, sizeof(int), &v); }
  static cl_int SetArg(cl_kernel k, cl_uint i, float v) { return cl().clSetKernelArg(k, i, sizeof(float), &v); }

  // Uploads a conv's filter ([out_c][kh][kw][in_c/groups]) and bias for the
  // kernel its shape takes; creates that kernel.
  // `may_split`: the execution gives scratch for split sums.
  Status PrepareConv(const float* filter, const TensorBinding* bias, ConvLaunch* c, bool may_split = false);
  // `partial`: scratch for a split conv's sums (c.partial_floats() floats).
  Status RunConv(const ConvLaunch& c, cl_mem x, int x_off, cl_mem y, int y_off, cl_mem res, int res_off, int res_c,
                 cl_mem partial = nullptr, int partial_off = 0, int y_stride = 0);

  // The NC4HW4 kernels (kernels/nn.cl, "NC4HW4"): a 1x1 conv with its
  // packed filter, and a depthwise conv (multiplier 1). Each reads and
  // writes either layout (the `*_nc4` flags: 1 blocked, 0 NHWC).
  struct Nc4Pointwise {
    int batch = 0, hw = 0, in_c = 0, out_c = 0, act = 0;
    cl_mem weights = nullptr, bias = nullptr;
  };
  Status PrepareNc4Pointwise(const float* filter, const TensorBinding* bias, const cpu::ConvParams& p, int act,
                             Nc4Pointwise* c);
  Status RunNc4Pointwise(const Nc4Pointwise& c, cl_mem x, int x_off, int x_nc4, cl_mem res, int res_off,
                         int res_nc4, int res_c, cl_mem y, int y_off, int y_nc4, int y_stride = 0);
  struct Nc4Depthwise {
    cpu::ConvParams p;
    int act = 0;
    cl_mem weights = nullptr, bias = nullptr;
  };
  Status PrepareNc4Depthwise(const float* filter, const TensorBinding* bias, const cpu::ConvParams& p, int act,
                             Nc4Depthwise* d);
  Status RunNc4Depthwise(const Nc4Depthwise& d, cl_mem x, int x_off, int x_nc4, cl_mem y, int y_off, int y_nc4);
  static constexpr size_t kNc4PointwiseKernel = 13, kNc4DepthwiseKernel = 14;  // slots in kernels_

  // A fused PRELU (optimize::FusePRelu): its per-channel slope is input
  // `slope` (a constant, uploaded with the others); the binary kernel's
  // PRELU runs in place over the dense output after the execution's own
  // kernels. Nothing where the node has no such input.
  Status PrepareFusedPRelu(size_t slope);
  Status RunFusedPRelu();
  static constexpr size_t kFusedPReluKernel = 15;  // its slot in kernels_
  int prelu_slope_ = -1;                           // the slope input (-1: none)
  int prelu_count_ = 0;
  cl_mem prelu_shape_ = nullptr;

  // A Launch: its kernel and global size, and the work-group size chosen
  // for it (local[0] == 0: the driver's).
  struct LaunchSite {
    cl_kernel kernel = nullptr;
    size_t dims = 0;
    size_t global[3] = {1, 1, 1};
    size_t local[3] = {0, 0, 0};
    bool Same(const LaunchSite& o) const {
      return kernel == o.kernel && dims == o.dims && global[0] == o.global[0] && global[1] == o.global[1] &&
             global[2] == o.global[2];
    }
  };
  const size_t* LocalFor(const LaunchSite& site) {
    if (recording_) {
      bool seen = false;
      for (const LaunchSite& s : recorded_) seen |= s.Same(site);
      if (!seen) recorded_.push_back(site);
    }
    for (const LaunchSite& s : sites_) {
      if (s.Same(site)) return s.local[0] != 0 ? s.local : nullptr;
    }
    return nullptr;
  }

 public:
  TuningCache* args_tuning() const { return args_.tuning; }
  // Work-group sizes per launch, measured (AlgorithmPolicy::kTune) or taken
  // from the tuning cache: runs the execution once to find its launches,
  // then, for each launch the cache does not know, times the driver's choice
  // and sizes that divide the global size, keeping the fastest (the
  // driver's unless another is 3% faster). Called by the backend's
  // EndResize, with memory bound; the result is cached like kTune's.
  Status TuneLaunches(TuningCache* cache, const std::string& device);

 protected:
  std::vector<LaunchSite> sites_, recorded_;
  bool recording_ = false;

  OpenClBackend* backend_;
  std::string kernel_name_;
  std::vector<cl_kernel> kernels_;
  std::vector<cl_mem> uploads_;
  std::vector<cl_mem> constant_inputs_;
};

class OpenClBackend : public Backend {
 public:
  OpenClBackend(std::unique_ptr<ClRuntime> runtime, bool half) : rt_(std::move(runtime)), half_(half) {}
  ~OpenClBackend() override {
    if (!profile_path_.empty()) WriteProfile();
    for (auto& [lane, events] : pending_) {
      for (auto& e : events) cl().clReleaseEvent(e.first);
    }
    for (Lane& l : lanes_) {
      if (l.to_real) cl().clReleaseKernel(l.to_real);
      if (l.to_float) cl().clReleaseKernel(l.to_float);
    }
  }
  std::string name() const override { return "opencl"; }

  // Dense NHWC, or NC4HW4 (channels padded to a multiple of 4) where the
  // tensor's producer and every reader run NC4HW4 kernels (ChannelBlocked).
  TensorLayout StorageFor(const TensorDesc& desc) const override {
    TensorLayout layout;
    size_t elements = static_cast<size_t>(NumElements(desc.shape));
    if (desc.dtype == DataType::kFloat32 && ChannelBlocked(desc)) {
      const Shape& s = desc.shape;
      layout.channel_block = 4;
      elements = static_cast<size_t>(s[0]) * s[1] * s[2] * ((s[3] + 3) / 4 * 4);
    }
    layout.bytes = elements * (half_ ? 2 : 4);
    if (desc.dtype != DataType::kFloat32) layout.bytes = desc.dense_bytes();
    max_floats_ = std::max<size_t>(max_floats_, elements);
    return layout;
  }

  std::unique_ptr<Buffer> AllocateBuffer(size_t bytes, const TensorLayout*) override {
    cl_int err = CL_SUCCESS;
    cl_mem mem = cl().clCreateBuffer(rt_->context(), CL_MEM_READ_WRITE, std::max<size_t>(bytes, 64), nullptr, &err);
    if (err != CL_SUCCESS) return nullptr;
    return std::make_unique<ClBuffer>(mem, bytes);
  }

  // Transfers move dense tensors only: ChannelBlocked never blocks a tensor
  // that another backend or the caller reads.
  Status CopyToHost(const TensorBinding& device, void* host) override {
    if (!device.layout.dense()) return InternalError("opencl: a channel-blocked tensor reached a transfer");
    const cl_mem mem = static_cast<ClBuffer*>(device.memory.buffer)->mem();
    if (!half_ || device.dtype != DataType::kFloat32) {
      cl_event event = nullptr;
      const cl_int err = cl().clEnqueueReadBuffer(rt_->queue(), mem, CL_TRUE, device.memory.offset, device.dense_bytes(),
                                             host, 0, nullptr, profiling() ? &event : nullptr);
      if (event) Record(event, "copy_to_host");
      return err == CL_SUCCESS ? Status::Ok() : ClError(err, "clEnqueueReadBuffer");
    }
    const int count = static_cast<int>(NumElements(device.shape));
    Lane& lane = CurrentLane();
    RILL_INF_RETURN_IF_ERROR(Convert(lane, true, mem, static_cast<int>(device.memory.offset / 2), count));
    const cl_int err = cl().clEnqueueReadBuffer(rt_->queue(), lane.staging, CL_TRUE, 0, count * sizeof(float), host, 0,
                                           nullptr, nullptr);
    return err == CL_SUCCESS ? Status::Ok() : ClError(err, "clEnqueueReadBuffer");
  }

  // Blocking: the host arena may give these bytes to the next task as soon
  // as the transfer's step is over (backend.h).
  Status CopyFromHost(const void* host, const TensorBinding& device) override {
    if (!device.layout.dense()) return InternalError("opencl: a channel-blocked tensor reached a transfer");
    const cl_mem mem = static_cast<ClBuffer*>(device.memory.buffer)->mem();
    if (!half_ || device.dtype != DataType::kFloat32) {
      cl_event event = nullptr;
      const cl_int err = cl().clEnqueueWriteBuffer(rt_->queue(), mem, CL_TRUE, device.memory.offset, device.dense_bytes(),
                                              host, 0, nullptr, profiling() ? &event : nullptr);
      if (event) Record(event, "copy_from_host");
      return err == CL_SUCCESS ? Status::Ok() : ClError(err, "clEnqueueWriteBuffer");
    }
    const int count = static_cast<int>(NumElements(device.shape));
    Lane& lane = CurrentLane();
    cl_int err = cl().clEnqueueWriteBuffer(rt_->queue(), lane.staging, CL_TRUE, 0, count * sizeof(float), host, 0,
                                           nullptr, nullptr);
    if (err != CL_SUCCESS) return ClError(err, "clEnqueueWriteBuffer");
    return Convert(lane, false, mem, static_cast<int>(device.memory.offset / 2), count);
  }

  // The executions alive (for EndResize's launch tuning).
  void Register(ClExecution* e) {
    std::lock_guard<std::mutex> lock(executions_mu_);
    executions_.insert(e);
  }
  void Unregister(ClExecution* e) {
    std::lock_guard<std::mutex> lock(executions_mu_);
    executions_.erase(e);
  }

  // With kTune: each execution's work-group sizes (ClExecution::
  // TuneLaunches), then the fp16 staging.
  Status EndResize() override {
    std::vector<ClExecution*> tuned;
    {
      std::lock_guard<std::mutex> lock(executions_mu_);
      for (ClExecution* e : executions_) {
        if (e->tuned()) tuned.push_back(e);
      }
    }
    if (!tuned.empty()) {
      RILL_INF_RETURN_IF_ERROR(PrepareStaging());
      std::string device = rt_->description();
      for (char& c : device) {
        if (c == ' ' || c == '\t' || c == '\n') c = '_';
      }
      for (ClExecution* e : tuned) RILL_INF_RETURN_IF_ERROR(e->TuneLaunches(e->args_tuning(), device));
    }
    return PrepareStaging();
  }

  // The fp16 mode's float staging buffers (one per lane: lanes transfer at
  // the same time), sized for the largest tensor, and their conversion
  // kernels (a kernel's arguments are not to be set from two threads).
  Status PrepareStaging() {
    if (!half_) return Status::Ok();
    if (lanes_.empty()) lanes_.resize(static_cast<size_t>(rt_->num_queues()));
    StatusOr<cl_program> program = rt_->Program(true);
    RILL_INF_RETURN_IF_ERROR(program.status());
    for (Lane& lane : lanes_) {
      if (max_floats_ > lane.staging_floats) {
        lane.holder.reset();
        lane.holder = AllocateBuffer(max_floats_ * sizeof(float), nullptr);
        if (!lane.holder) return InternalError("opencl: cannot allocate the fp16 staging buffer");
        lane.staging = static_cast<ClBuffer*>(lane.holder.get())->mem();
        lane.staging_floats = max_floats_;
      }
      cl_int err = CL_SUCCESS;
      if (!lane.to_real) lane.to_real = cl().clCreateKernel(*program, "to_real", &err);
      if (err == CL_SUCCESS && !lane.to_float) lane.to_float = cl().clCreateKernel(*program, "to_float", &err);
      if (err != CL_SUCCESS) return ClError(err, "clCreateKernel");
    }
    return Status::Ok();
  }

  Status EndRun() override {
    const cl_int err = cl().clFinish(rt_->queue());
    if (err != CL_SUCCESS) return ClError(err, "clFinish");
    if (rt_->profiling()) CollectProfile();
    return Status::Ok();
  }

  // opencl.gpu_profile=FILE: each command's GPU time (profiling events),
  // per launch of a run in the order the lane enqueued them, written when
  // the session ends: the mean per launch, and per run the kernels' sum
  // and the span from the first command's start to the last one's end (the
  // difference: the GPU idle between commands).
  bool profiling() const { return rt_->profiling(); }
  void Record(cl_event event, std::string name) {
    std::lock_guard<std::mutex> lock(profile_mu_);
    pending_[ClRuntime::CurrentLane()].push_back({event, std::move(name)});
  }
  void CollectProfile() {
    std::vector<std::pair<cl_event, std::string>> events;
    {
      std::lock_guard<std::mutex> lock(profile_mu_);
      events.swap(pending_[ClRuntime::CurrentLane()]);
    }
    if (events.empty()) return;
    cl_ulong first = ~cl_ulong{0}, last = 0;
    double sum = 0;
    std::lock_guard<std::mutex> lock(profile_mu_);
    for (size_t i = 0; i < events.size(); ++i) {
      cl_ulong start = 0, end = 0;
      cl().clGetEventProfilingInfo(events[i].first, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr);
      cl().clGetEventProfilingInfo(events[i].first, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
      cl().clReleaseEvent(events[i].first);
      const double us = end > start ? (end - start) / 1000.0 : 0.0;
      if (profile_steps_.size() <= i) profile_steps_.push_back({events[i].second, 0.0, 0});
      profile_steps_[i].us += us;
      ++profile_steps_[i].runs;
      sum += us;
      first = std::min(first, start);
      last = std::max(last, end);
    }
    ++profile_runs_;
    profile_sum_us_ += sum;
    profile_span_us_ += last > first ? (last - first) / 1000.0 : 0.0;
  }
  void WriteProfile() const {
    std::ofstream out(profile_path_, std::ios::trunc);
    if (!out) return;
    const double runs = std::max(1, profile_runs_);
    out << "# opencl GPU time per command (profiling events), " << rt_->description() << "\n";
    char line[160];
    std::snprintf(line, sizeof(line), "# runs %d commands per run %zu kernels' sum %.2f us span %.2f us\n",
                  profile_runs_, profile_steps_.size(), profile_sum_us_ / runs, profile_span_us_ / runs);
    out << line << "# step\tmean_us\tshare\tname\n";
    double total = 0;
    for (const ProfileStep& s : profile_steps_) total += s.runs ? s.us / s.runs : 0;
    for (size_t i = 0; i < profile_steps_.size(); ++i) {
      const ProfileStep& s = profile_steps_[i];
      const double mean = s.runs ? s.us / s.runs : 0;
      std::snprintf(line, sizeof(line), "%zu\t%.2f\t%.1f%%\t", i, mean, total > 0 ? 100.0 * mean / total : 0.0);
      out << line << s.name << "\n";
    }
    std::snprintf(line, sizeof(line), "# total_us\t%.2f\n", total);
    out << line;
  }
  void set_profile_path(const std::string& path) { profile_path_ = path; }

  // The least K a GEMM splits over work groups (option split_min_k).
  int split_min_k() const { return split_min_k_; }
  void set_split_min_k(int k) { split_min_k_ = k; }
  int flush_every() const { return flush_every_; }
  void set_flush_every(int n) { flush_every_ = n; }
  // Counts a launch on the calling thread's lane; true when it is time to
  // flush. (A lane's tasks run on one thread at a time.)
  bool CountLaunch() {
    if (flush_every_ <= 0) return false;
    const int lane = std::max(0, std::min(ClRuntime::CurrentLane(), kMaxLanes - 1));
    return ++launches_[lane] % flush_every_ == 0;
  }

  // One in-order command queue per lane (option "queues").
  int MaxLanes() const override { return rt_->num_queues(); }
  void UseLane(int lane) override { ClRuntime::SelectLane(lane); }
  Status SyncLane() override {
    const cl_int err = cl().clFinish(rt_->queue());
    return err == CL_SUCCESS ? Status::Ok() : ClError(err, "clFinish (lane)");
  }

  StatusOr<std::unique_ptr<Execution>> CreateExecution(const ExecutionArgs& args) override;

  ClRuntime* runtime() const { return rt_.get(); }
  bool half() const { return half_; }
  int nc4_min_pixels() const { return nc4_min_pixels_; }
  void set_nc4_min_pixels(int pixels) { nc4_min_pixels_ = pixels; }
  bool pair_convs() const { return pair_convs_; }
  void set_pair_convs(bool on) { pair_convs_ = on; }
  // Option winograd: auto (gpu::WinogradPays), all (every eligible 3x3
  // conv) or off.
  enum class WinogradMode { kAuto, kAll, kOff };
  WinogradMode winograd() const { return winograd_; }
  void set_winograd(WinogradMode mode) { winograd_ = mode; }

  // Pairs adjacent convs of one input into one launch (ConvExecution).
  Status PlanRun(const std::vector<RunStep>& steps) override;

 private:
  // NC4HW4 for a 4-D tensor of the plan that one execution here writes
  // with an NC4HW4 kernel (Nc4Output) and that every node of the graph
  // reading it reads here with one (Nc4Input): not a graph output, not read
  // by another backend (its readers there read a transferred copy, not
  // this binding). Called at every plan, after the executions' Prepare.
  bool ChannelBlocked(const TensorDesc& desc) const {
    if (desc.binding == nullptr || desc.shape.size() != 4) return false;
    std::lock_guard<std::mutex> lock(executions_mu_);
    const ClExecution* producer = nullptr;
    for (const ClExecution* e : executions_) {
      const ExecutionArgs& a = e->exec_args();
      if (a.outputs.size() == 1 && a.outputs[0] == desc.binding) producer = e;
    }
    if (producer == nullptr || !producer->Nc4Output()) return false;
    const ExecutionArgs& pa = producer->exec_args();
    const int id = pa.node->outputs[0];
    if (std::find(pa.graph->outputs.begin(), pa.graph->outputs.end(), id) != pa.graph->outputs.end()) return false;
    size_t readers = 0, here = 0;
    for (const ir::Node& n : pa.graph->nodes) readers += static_cast<size_t>(std::count(n.inputs.begin(), n.inputs.end(), id));
    for (const ClExecution* e : executions_) {
      const ExecutionArgs& a = e->exec_args();
      for (size_t i = 0; i < a.inputs.size(); ++i) {
        if (a.inputs[i] != desc.binding) continue;
        if (!e->Nc4Input(i)) return false;
        ++here;
      }
    }
    return readers > 0 && here == readers;
  }

  struct Lane {
    std::unique_ptr<Buffer> holder;
    cl_mem staging = nullptr;
    size_t staging_floats = 0;
    cl_kernel to_real = nullptr, to_float = nullptr;
  };
  Lane& CurrentLane() {
    const int lane = ClRuntime::CurrentLane();
    return lanes_[lane >= 0 && lane < static_cast<int>(lanes_.size()) ? lane : 0];
  }

  // to_float (mem -> staging, `down`) or to_real (staging -> mem).
  Status Convert(Lane& lane, bool down, cl_mem mem, int offset, int count) {
    cl_kernel k = down ? lane.to_float : lane.to_real;
    cl_int err = cl().clSetKernelArg(k, 0, sizeof(cl_mem), down ? &mem : &lane.staging);
    err |= down ? cl().clSetKernelArg(k, 1, sizeof(int), &offset) : cl().clSetKernelArg(k, 1, sizeof(cl_mem), &mem);
    err |= down ? cl().clSetKernelArg(k, 2, sizeof(cl_mem), &lane.staging)
                : cl().clSetKernelArg(k, 2, sizeof(int), &offset);
    err |= cl().clSetKernelArg(k, 3, sizeof(int), &count);
    if (err != CL_SUCCESS) return ClError(err, "clSetKernelArg (conversion)");
    const size_t global = static_cast<size_t>(std::max(count, 1));
    err = cl().clEnqueueNDRangeKernel(rt_->queue(), k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr);
    return err == CL_SUCCESS ? Status::Ok() : ClError(err, "clEnqueueNDRangeKernel (conversion)");
  }

  std::unique_ptr<ClRuntime> rt_;
  bool half_;
  mutable size_t max_floats_ = 0;
  std::vector<Lane> lanes_;
  struct ProfileStep {
    std::string name;
    double us = 0;
    int runs = 0;
  };
  std::mutex profile_mu_;
  std::map<int, std::vector<std::pair<cl_event, std::string>>> pending_;  // per lane, this run's
  std::vector<ProfileStep> profile_steps_;
  int profile_runs_ = 0;
  double profile_sum_us_ = 0, profile_span_us_ = 0;
  std::string profile_path_;
  static constexpr int kMaxLanes = 16;  // ClRuntime's most queues
  int flush_every_ = 0;
  int split_min_k_ = gpu::kSplitMinK;
  std::array<int, kMaxLanes> launches_{};
  int nc4_min_pixels_ = gpu::kNc4MinPixels;
  bool pair_convs_ = true;
  WinogradMode winograd_ = WinogradMode::kAuto;
  mutable std::mutex executions_mu_;
  std::set<ClExecution*> executions_;
};

cl_event* ClExecution::ProfileEvent() { return backend_->profiling() ? &profile_event_ : nullptr; }

void ClExecution::RecordLaunch(cl_kernel k) {
  if (profile_event_ == nullptr) return;
  char fn[128] = {0};
  cl().clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof(fn) - 1, fn, nullptr);
  backend_->Record(profile_event_, name() + " " + fn);
  profile_event_ = nullptr;
}

Status ClExecution::AfterLaunch() {
  if (!backend_->CountLaunch()) return Status::Ok();
  const cl_int err = cl().clFlush(queue());
  return err == CL_SUCCESS ? Status::Ok() : ClError(err, name() + ": clFlush");
}

ClExecution::ClExecution(const ExecutionArgs& args, OpenClBackend* backend)
    : GpuExecution(args, "opencl"), backend_(backend) {
  backend_->Register(this);
}

ClExecution::~ClExecution() {
  backend_->Unregister(this);
  for (cl_kernel k : kernels_) cl().clReleaseKernel(k);
  for (cl_mem m : uploads_) cl().clReleaseMemObject(m);
}

Status ClExecution::TuneLaunches(TuningCache* cache, const std::string& device) {
  // Find the launches.
  recording_ = true;
  recorded_.clear();
  Status first = Run();
  recording_ = false;
  if (!first.ok()) return first;
  cl_int err = cl().clFinish(queue());
  if (err != CL_SUCCESS) return ClError(err, name() + ": clFinish (tuning)");
  size_t device_max = 256;
  cl().clGetDeviceInfo(backend_->runtime()->device(), CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(device_max), &device_max,
                       nullptr);
  auto time_run = [&](double* us) -> Status {
    double best = 1e30;
    for (int rep = 0; rep < 5; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      RILL_INF_RETURN_IF_ERROR(Run());
      const cl_int e = cl().clFinish(queue());
      if (e != CL_SUCCESS) return ClError(e, name() + ": clFinish (tuning)");
      best = std::min(best, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    *us = best;
    return Status::Ok();
  };
  for (const LaunchSite& site : recorded_) {
    char fn[128] = {0};
    cl().clGetKernelInfo(site.kernel, CL_KERNEL_FUNCTION_NAME, sizeof(fn) - 1, fn, nullptr);
    std::string key = "opencl_local|" + device + "|" + fn + (half() ? "|f16|" : "|f32|");
    for (size_t d = 0; d < site.dims; ++d) key += (d ? "x" : "") + std::to_string(site.global[d]);
    size_t kernel_max = device_max;
    cl().clGetKernelWorkGroupInfo(site.kernel, backend_->runtime()->device(), CL_KERNEL_WORK_GROUP_SIZE,
                                  sizeof(kernel_max), &kernel_max, nullptr);
    sites_.erase(std::remove_if(sites_.begin(), sites_.end(), [&](const LaunchSite& s) { return s.Same(site); }),
                 sites_.end());
    LaunchSite chosen = site;
    auto known = cache->choices.find(key);
    if (known != cache->choices.end()) {
      if (known->second != "driver") {
        size_t l[3] = {1, 1, 1};
        if (std::sscanf(known->second.c_str(), "%zux%zux%zu", &l[0], &l[1], &l[2]) == 3) {
          for (size_t d = 0; d < 3; ++d) chosen.local[d] = l[d];
        }
      }
      sites_.push_back(chosen);
      continue;
    }
    // Candidates: sizes that divide the global size (the kernels do not
    // guard against a rounded-up range), within the kernel's limit.
    std::vector<std::array<size_t, 3>> candidates;
    const size_t shapes[][3] = {{16, 1, 1}, {32, 1, 1}, {64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {8, 8, 1},
                                {16, 4, 1}, {4, 16, 1}, {16, 16, 1}, {32, 4, 1}, {32, 8, 1}, {64, 4, 1}};
    for (const auto& c : shapes) {
      if (site.dims < 2 && c[1] > 1) continue;
      bool fits = c[0] * c[1] * c[2] <= kernel_max;
      for (size_t d = 0; d < 3 && fits; ++d) fits = site.global[d] % c[d] == 0;
      if (fits) candidates.push_back({c[0], c[1], c[2]});
    }
    sites_.push_back(site);  // the driver's choice first
    double driver_us = 0;
    RILL_INF_RETURN_IF_ERROR(time_run(&driver_us));
    double best_us = driver_us;
    LaunchSite best = site;
    for (const auto& c : candidates) {
      LaunchSite trial = site;
      for (size_t d = 0; d < 3; ++d) trial.local[d] = c[d];
      sites_.back() = trial;
      double us = 0;
      if (!time_run(&us).ok()) continue;  // e.g. too many resources for this size
      if (us < best_us) best_us = us, best = trial;
    }
    if (best_us > driver_us * 0.97) best = site;
    sites_.back() = best;
    cache->choices[key] = best.local[0] == 0 ? "driver"
                                               : std::to_string(best.local[0]) + "x" + std::to_string(best.local[1]) +
                                                     "x" + std::to_string(best.local[2]);
    cache->dirty = true;
  }
  return Status::Ok();
}

cl_context ClExecution::context() const { return backend_->runtime()->context(); }
cl_command_queue ClExecution::queue() const { return backend_->runtime()->queue(); }
bool ClExecution::half() const { return backend_->half(); }
int ClExecution::nc4_min_pixels() const { return backend_->nc4_min_pixels(); }
std::string ClExecution::name() const { return kernel_name_ + (half() ? "_cl_f16" : "_cl"); }

StatusOr<cl_kernel> ClExecution::Kernel(size_t index, const char* kernel_name) {
  if (index < kernels_.size() && kernels_[index] != nullptr) return kernels_[index];
  StatusOr<cl_program> program = backend_->runtime()->Program(half());
  RILL_INF_RETURN_IF_ERROR(program.status());
  cl_int err = CL_SUCCESS;
  cl_kernel k = cl().clCreateKernel(*program, kernel_name, &err);
  if (err != CL_SUCCESS) return ClError(err, std::string("clCreateKernel ") + kernel_name);
  if (kernels_.size() <= index) kernels_.resize(index + 1, nullptr);
  kernels_[index] = k;
  return k;
}

StatusOr<cl_mem> ClExecution::UploadRaw(const void* data, size_t bytes, bool keep) {
  // Buffers of at least 4 bytes (OpenCL refuses empty ones): smaller data
  // (one half) is copied out of a zeroed word, never read past its end.
  uint8_t word[4] = {0, 0, 0, 0};
  if (bytes < sizeof(word)) {
    std::memcpy(word, data, bytes);
    data = word;
    bytes = sizeof(word);
  }
  cl_int err = CL_SUCCESS;
  cl_mem mem = cl().clCreateBuffer(context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<void*>(data),
                                   &err);
  if (err != CL_SUCCESS) return ClError(err, name() + ": uploading " + std::to_string(bytes) + " bytes");
  if (keep) uploads_.push_back(mem);
  return mem;
}

StatusOr<cl_mem> ClExecution::Upload(const std::vector<float>& values) {
  std::vector<float> padded = values;
  if (padded.empty()) padded.push_back(0.0f);
  if (!half()) return UploadRaw(padded.data(), padded.size() * sizeof(float));
  const std::vector<uint16_t> h = gpu::ToHalves(padded);
  return UploadRaw(h.data(), h.size() * sizeof(uint16_t));
}

StatusOr<cl_mem> ClExecution::UploadInts(const std::vector<int>& values) {
  std::vector<int> v = values;
  if (v.empty()) v.push_back(0);
  return UploadRaw(v.data(), v.size() * sizeof(int));
}

// `which`: the inputs read through InMem (all when empty; weights that an
// execution packs itself are not uploaded twice).
Status ClExecution::UploadConstantInputs(std::initializer_list<size_t> which) {
  if (!constant_inputs_.empty()) return Status::Ok();  // constants do not change across resizes
  constant_inputs_.assign(args_.inputs.size(), nullptr);
  for (size_t i = 0; i < args_.inputs.size(); ++i) {
    const TensorBinding* b = args_.inputs[i];
    if (!b || !b->constant || b->dtype != DataType::kFloat32) continue;
    if (which.size() > 0 && std::find(which.begin(), which.end(), i) == which.end()) continue;
    const float* f = static_cast<const float*>(b->host());
    RILL_INF_ASSIGN_OR_RETURN(constant_inputs_[i], Upload(std::vector<float>(f, f + NumElements(b->shape))));
  }
  return Status::Ok();
}

// Kernel slots of the two conv kernels in an execution.
constexpr size_t kConvDirect = 10, kConvTiled = 11, kConvReduce = 12;

Status ClExecution::PrepareConv(const float* filter, const TensorBinding* bias, ConvLaunch* c, bool may_split) {
  const cpu::ConvParams& p = c->p;
  // Fewer 64x64 output tiles than twice the compute units: split K so that
  // every unit has work.
  gpu::PlanConv(64, 64, backend_->runtime()->compute_units(), may_split, c, backend_->split_min_k());
  if (!c->weights) {
    const int icg = p.in_c / p.groups;
    RILL_INF_ASSIGN_OR_RETURN(c->weights,
                              Upload(c->tiled ? PackGemmFilter(filter, p.out_c, p.kernel_h * p.kernel_w * icg)
                                              : PackConvFilter(filter, p.out_c, p.kernel_h, p.kernel_w, icg)));
    RILL_INF_ASSIGN_OR_RETURN(c->bias, Upload(gpu::BiasOrZeros(bias, p.out_c)));
  }
  if (c->splits > 1) RILL_INF_RETURN_IF_ERROR(Kernel(kConvReduce, "conv_splitk_reduce").status());
  return c->tiled ? Kernel(kConvTiled, "conv2d_tiled").status() : Kernel(kConvDirect, "conv2d").status();
}

Status ClExecution::RunConv(const ConvLaunch& c, cl_mem x, int x_off, cl_mem y, int y_off, cl_mem res, int res_off,
                            int res_c, cl_mem partial, int partial_off, int y_stride) {
  const cpu::ConvParams& p = c.p;
  if (y_stride == 0) y_stride = p.out_c;
  if (c.tiled) {
    const size_t m = static_cast<size_t>(p.batch) * p.out_h * p.out_w;
    const cl_mem sums = c.splits > 1 ? partial : y;  // an unused argument still needs a buffer
    RILL_INF_RETURN_IF_ERROR(LaunchLocal(
        kernels_[kConvTiled], {static_cast<size_t>((p.out_c + 63) / 64 * 16), (m + 63) / 64 * 16, static_cast<size_t>(c.splits)},
        {16, 16, 1}, x, x_off, c.weights, c.bias, res, res_off, res_c, y, y_off, p.batch, p.in_h, p.in_w, p.in_c, p.out_h,
        p.out_w, p.out_c, p.kernel_h, p.kernel_w, p.stride_h, p.stride_w, p.dilation_h, p.dilation_w, p.pad_top,
        p.pad_left, c.act, c.k_chunk, c.splits, sums, partial_off, y_stride, c.narrow_n));
    if (c.splits == 1) return Status::Ok();
    return Launch(kernels_[kConvReduce], {static_cast<size_t>(p.out_c), m}, partial, partial_off, c.splits, c.bias, res,
                  res_off, res_c, y, y_off, p.out_c, static_cast<int>(m), c.act, y_stride);
  }
  return Launch(kernels_[kConvDirect], {static_cast<size_t>((p.out_c + 3) / 4), static_cast<size_t>(p.out_w),
                                        static_cast<size_t>(p.batch) * p.out_h},
                x, x_off, c.weights, c.bias, res, res_off, res_c, y, y_off, p.in_h, p.in_w, p.in_c, p.out_h, p.out_w,
                p.out_c, p.kernel_h, p.kernel_w, p.stride_h, p.stride_w, p.dilation_h, p.dilation_w, p.pad_top,
                p.pad_left, p.groups, c.act, y_stride);
}

Status ClExecution::PrepareNc4Pointwise(const float* filter, const TensorBinding* bias, const cpu::ConvParams& p,
                                        int act, Nc4Pointwise* c) {
  c->batch = p.batch;
  c->hw = p.out_h * p.out_w;
  c->in_c = p.in_c;
  c->out_c = p.out_c;
  c->act = act;
  if (!c->weights) {
    RILL_INF_ASSIGN_OR_RETURN(c->weights, Upload(gpu::PackPointwiseFilterNc4(filter, p.out_c, p.in_c)));
    RILL_INF_ASSIGN_OR_RETURN(c->bias, Upload(gpu::PadToBlocks(gpu::BiasOrZeros(bias, p.out_c))));
  }
  return Kernel(kNc4PointwiseKernel, "pointwise_nc4").status();
}

Status ClExecution::RunNc4Pointwise(const Nc4Pointwise& c, cl_mem x, int x_off, int x_nc4, cl_mem res, int res_off,
                                    int res_nc4, int res_c, cl_mem y, int y_off, int y_nc4, int y_stride) {
  return Launch(kernels_[kNc4PointwiseKernel],
                {static_cast<size_t>((c.hw + 1) / 2), static_cast<size_t>((c.out_c + 3) / 4),
                 static_cast<size_t>(c.batch)},
                x, x_off, x_nc4, c.weights, c.bias, res, res_off, res_nc4, res_c, y, y_off, y_nc4, c.hw, c.in_c,
                c.out_c, c.act, y_stride == 0 ? c.out_c : y_stride);
}

Status ClExecution::PrepareNc4Depthwise(const float* filter, const TensorBinding* bias, const cpu::ConvParams& p,
                                        int act, Nc4Depthwise* d) {
  d->p = p;
  d->act = act;
  if (!d->weights) {
    RILL_INF_ASSIGN_OR_RETURN(d->weights, Upload(gpu::PackDepthwiseFilterNc4(filter, p.kernel_h, p.kernel_w, p.out_c)));
    RILL_INF_ASSIGN_OR_RETURN(d->bias, Upload(gpu::PadToBlocks(gpu::BiasOrZeros(bias, p.out_c))));
  }
  return Kernel(kNc4DepthwiseKernel, "depthwise_nc4").status();
}

Status ClExecution::RunNc4Depthwise(const Nc4Depthwise& d, cl_mem x, int x_off, int x_nc4, cl_mem y, int y_off,
                                    int y_nc4) {
  const cpu::ConvParams& p = d.p;
  return Launch(kernels_[kNc4DepthwiseKernel],
                {static_cast<size_t>(p.out_w), static_cast<size_t>(p.batch) * p.out_h,
                 static_cast<size_t>((p.out_c + 3) / 4)},
                x, x_off, x_nc4, d.weights, d.bias, y, y_off, y_nc4, p.in_h, p.in_w, p.in_c, p.out_h, p.out_w,
                p.kernel_h, p.kernel_w, p.stride_h, p.stride_w, p.dilation_h, p.dilation_w, p.pad_top, p.pad_left,
                d.act);
}

// CONV_2D; also writes its output as a channel slice of a concatenation.
// Two convs of one input writing neighbouring slices of one concatenation
// (a SqueezeNet fire module's 1x1 and 3x3 expands) run as one launch: the
// 1x1 conv (the first, its out_c a multiple of the GEMM tile) launches the
// kxk conv's GEMM widened by its channels, the 1x1 filter as the centre
// tap (conv2d_tiled's narrow_n: no more MACs), and the kxk conv's own Run
// does nothing. Prepare builds that launch from the graph; PlanRun pairs
// them once memory is bound (the two steps adjacent, the slices
// neighbours). Option opencl.pair_convs=0 turns it off.
class ConvExecution : public ClExecution, public StridedOutput {
 public:
  using ClExecution::ClExecution;
  // Pairs this 1x1 conv with `next`, the step after it, where Prepare found
  // it as the partner and memory puts their outputs side by side.
  bool PairWith(ConvExecution* next) {
    if (partner_node_ == nullptr || next->args_.node != partner_node_ || y_stride_ == 0 ||
        next->y_stride_ != y_stride_ || OutMem() != next->OutMem() || next->OutOff() != OutOff() + c_.p.out_c) {
      return false;
    }
    paired_ = true;
    next->launched_by_pair_ = true;
    return true;
  }
  void Unpair() { paired_ = launched_by_pair_ = false; }
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
    Unpair();
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 3, 4}));
    RILL_INF_RETURN_IF_ERROR(PrepareFusedPRelu(4));
    RILL_INF_RETURN_IF_ERROR(PrepareConv(static_cast<const float*>(args_.inputs[1]->host()),
                                         OptionalInput(2), &c_, /*may_split=*/true));
    kernel_name_ = c_.tiled ? "conv2d_tiled" : "conv2d";
    // A 1x1 conv on a large map: the NC4HW4 kernel where a tensor of it is
    // stored so (StorageFor decides, after this).
    nc4_ = gpu::Nc4Pointwise(c_.p) && prelu_slope_ < 0 && c_.p.out_h * c_.p.out_w >= nc4_min_pixels() &&
           !args_.inputs[0]->constant && !(res_c_ && args_.inputs[3]->constant);
    if (nc4_) {
      RILL_INF_RETURN_IF_ERROR(PrepareNc4Pointwise(static_cast<const float*>(args_.inputs[1]->host()),
                                                   OptionalInput(2), c_.p, c_.act, &pw_));
    }
    RILL_INF_RETURN_IF_ERROR(PrepareWinograd());
    return PreparePair();
  }
  bool Nc4Input(size_t i) const override { return nc4_ && (i == 0 || i == 3); }
  bool Nc4Output() const override { return nc4_; }
  std::string name() const override {
    const std::string f16 = half() ? "_cl_f16" : "_cl";
    if (paired_) return "conv2d_tiled_pair" + f16;
    if (launched_by_pair_) return "conv2d_in_pair" + f16;
    if (Blocked()) return "pointwise_nc4" + f16;
    return wino_ ? "conv2d_winograd" + f16 : ClExecution::name();
  }
  // Split convs keep their sums in float whatever the storage type (a
  // pair's wider GEMM's too); Winograd its transformed tiles and products.
  size_t scratch_bytes() const override {
    const size_t wino = wino_ ? static_cast<size_t>(16) * wino_tiles_ * (c_.p.in_c + c_.p.out_c) : 0;
    return std::max({c_.partial_floats(), partner_node_ ? pair_.partial_floats() : 0, wino}) * sizeof(float);
  }
  Status Run() override {
    if (launched_by_pair_) return Status::Ok();
    if (paired_) {
      return RunConv(pair_, InMem(0), InOff(0), OutMem(), OutOff(), OutMem(), 0, 0,
                     pair_.splits > 1 ? Mem(scratch_) : nullptr, static_cast<int>(scratch_.offset / sizeof(float)),
                     y_stride_);
    }
    if (Blocked()) {
      return RunNc4Pointwise(pw_, InMem(0), InOff(0), Nc4(args_.inputs[0]), res_c_ ? InMem(3) : OutMem(),
                             res_c_ ? InOff(3) : 0, res_c_ ? Nc4(args_.inputs[3]) : 0, res_c_, OutMem(), OutOff(),
                             Nc4(args_.outputs[0]), y_stride_);
    }
    if (wino_) {
      RILL_INF_RETURN_IF_ERROR(RunWinograd());
      return RunFusedPRelu();
    }
    RILL_INF_RETURN_IF_ERROR(RunConv(c_, InMem(0), InOff(0), OutMem(), OutOff(), res_c_ ? InMem(3) : OutMem(),
                                     res_c_ ? InOff(3) : 0, res_c_, c_.splits > 1 ? Mem(scratch_) : nullptr,
                                     static_cast<int>(scratch_.offset / sizeof(float)), y_stride_));
    return RunFusedPRelu();
  }

 private:
  // The NC4HW4 kernel runs where a tensor it touches is stored NC4HW4.
  bool Blocked() const {
    return nc4_ && (Nc4(args_.inputs[0]) || Nc4(args_.outputs[0]) || (res_c_ && Nc4(args_.inputs[3])));
  }
  // The partner of a 1x1 conv (see the class comment): the next node of
  // the graph reads the same input with a kxk conv (odd k, stride 1, the
  // padding that keeps the map, no dilation, groups, residual or PRELU, the
  // same activation) and the two outputs are neighbouring inputs of one
  // concatenation; this conv's out_c is a multiple of the GEMM tile. Builds
  // the widened launch (pair_).
  Status PreparePair() {
    partner_node_ = nullptr;
    const ir::Graph& g = *args_.graph;
    const ir::Node& a = *args_.node;
    if (!backend_->pair_convs() || HasInput(3) || prelu_slope_ >= 0 || !gpu::Pointwise(c_.p) ||
        c_.p.out_c % 64 != 0) {
      return Status::Ok();
    }
    const ir::Node* b = &a + 1;
    if (b >= g.nodes.data() + g.nodes.size() || b->type != ir::OpType::kConv2D || b->inputs.size() < 2 ||
        b->inputs[0] != a.inputs[0] || (b->inputs.size() > 3 && b->inputs[3] >= 0) ||
        (b->inputs.size() > 4 && b->inputs[4] >= 0) || b->attrs.activation != attrs().activation ||
        !g.tensors[b->inputs[1]].is_constant() || g.tensors[b->inputs[1]].dtype != DataType::kFloat32) {
      return Status::Ok();
    }
    bool neighbours = false;
    for (const ir::Node& n : g.nodes) {
      if (n.type != ir::OpType::kConcatenation) continue;
      for (size_t i = 0; i + 1 < n.inputs.size(); ++i) {
        neighbours |= n.inputs[i] == a.outputs[0] && n.inputs[i + 1] == b->outputs[0];
      }
    }
    const Shape& wb = g.tensors[b->inputs[1]].shape;  // [out_c][kh][kw][in_c]
    if (!neighbours || wb.size() != 4) return Status::Ok();
    const Shape& y = OutShape();
    const cpu::ConvParams q = gpu::Conv2DGeometry(b->attrs, InShape(0), wb, {y[0], y[1], y[2], wb[0]});
    if (q.groups != 1 || q.kernel_h % 2 == 0 || q.kernel_w % 2 == 0 || q.stride_h != 1 || q.stride_w != 1 ||
        q.dilation_h != 1 || q.dilation_w != 1 || q.out_h != y[1] || q.out_w != y[2] ||
        q.pad_top != q.kernel_h / 2 || q.pad_left != q.kernel_w / 2 || q.in_c != c_.p.in_c) {
      return Status::Ok();
    }
    // The widened filter [e1 + e3][kh][kw][in_c]: the 1x1 filter at the
    // centre tap of the first e1 channels, then the kxk filter.
    const int e1 = c_.p.out_c, e3 = q.out_c, taps = q.kernel_h * q.kernel_w, in_c = q.in_c;
    const int centre = (q.kernel_h / 2) * q.kernel_w + q.kernel_w / 2;
    std::vector<float> filter(static_cast<size_t>(e1 + e3) * taps * in_c, 0.0f);
    const float* fa = static_cast<const float*>(args_.inputs[1]->host());
    const float* fb = reinterpret_cast<const float*>(g.tensors[b->inputs[1]].data);
    for (int o = 0; o < e1; ++o) {
      std::memcpy(&filter[(static_cast<size_t>(o) * taps + centre) * in_c], fa + static_cast<size_t>(o) * in_c,
                  in_c * sizeof(float));
    }
    std::memcpy(&filter[static_cast<size_t>(e1) * taps * in_c], fb, static_cast<size_t>(e3) * taps * in_c * sizeof(float));
    std::vector<float> bias = gpu::BiasOrZeros(OptionalInput(2), e1);
    const int bias_b = b->inputs.size() > 2 ? b->inputs[2] : -1;
    for (int o = 0; o < e3; ++o) {
      bias.push_back(bias_b >= 0 ? reinterpret_cast<const float*>(g.tensors[bias_b].data)[o] : 0.0f);
    }
    pair_.p = q;
    pair_.p.out_c = e1 + e3;
    pair_.act = c_.act;
    pair_.narrow_n = e1;
    gpu::PlanConv(64, 64, backend_->runtime()->compute_units(), /*may_split=*/true, &pair_,
                  backend_->split_min_k());
    if (!pair_.weights) {
      RILL_INF_ASSIGN_OR_RETURN(pair_.weights, Upload(PackGemmFilter(filter.data(), e1 + e3, taps * in_c)));
      RILL_INF_ASSIGN_OR_RETURN(pair_.bias, Upload(bias));
    }
    RILL_INF_RETURN_IF_ERROR(Kernel(kConvTiled, "conv2d_tiled").status());
    if (pair_.splits > 1) RILL_INF_RETURN_IF_ERROR(Kernel(kConvReduce, "conv_splitk_reduce").status());
    partner_node_ = b;
    return Status::Ok();
  }

  // Winograd F(2x2, 3x3) (option opencl.winograd): a 3x3 stride-1 conv
  // without groups as three kernels (winograd_input, winograd_gemm,
  // winograd_output) through float scratch: the transformed input
  // [16][tiles][in_c], then the products [16][tiles][out_c].
  static constexpr size_t kWinogradInput = 16, kWinogradGemm = 17, kWinogradOutput = 18;
  Status PrepareWinograd() {
    const cpu::ConvParams& p = c_.p;
    switch (backend_->winograd()) {
      case OpenClBackend::WinogradMode::kAuto:
        wino_ = gpu::WinogradPays(p);
        break;
      case OpenClBackend::WinogradMode::kAll:
        wino_ = gpu::Winograd23(p);
        break;
      case OpenClBackend::WinogradMode::kOff:
        wino_ = false;
        break;
    }
    if (!wino_) return Status::Ok();
    wino_tiles_ = p.batch * ((p.out_h + 1) / 2) * ((p.out_w + 1) / 2);
    if (!wino_filter_) {
      RILL_INF_ASSIGN_OR_RETURN(wino_filter_, Upload(gpu::WinogradFilter23(static_cast<const float*>(
                                                                                args_.inputs[1]->host()),
                                                                            p.out_c, p.in_c)));
    }
    RILL_INF_RETURN_IF_ERROR(Kernel(kWinogradInput, "winograd_input").status());
    RILL_INF_RETURN_IF_ERROR(Kernel(kWinogradGemm, "winograd_gemm").status());
    return Kernel(kWinogradOutput, "winograd_output").status();
  }
  Status RunWinograd() {
    const cpu::ConvParams& p = c_.p;
    const int th = (p.out_h + 1) / 2, tw = (p.out_w + 1) / 2, tiles = wino_tiles_;
    const cl_mem scratch = Mem(scratch_);
    const int v_off = static_cast<int>(scratch_.offset / sizeof(float));
    const int m_off = v_off + 16 * tiles * p.in_c;
    RILL_INF_RETURN_IF_ERROR(Launch(kernels_[kWinogradInput], {static_cast<size_t>(p.in_c), static_cast<size_t>(tiles)},
                                    InMem(0), InOff(0), scratch, v_off, p.in_h, p.in_w, p.in_c, th, tw, p.pad_top,
                                    p.pad_left));
    RILL_INF_RETURN_IF_ERROR(LaunchLocal(kernels_[kWinogradGemm],
                                         {static_cast<size_t>((p.out_c + 63) / 64 * 16),
                                          static_cast<size_t>((tiles + 63) / 64 * 16), 16},
                                         {16, 16, 1}, scratch, v_off, wino_filter_, scratch, m_off, tiles, p.in_c,
                                         p.out_c));
    return Launch(kernels_[kWinogradOutput], {static_cast<size_t>(p.out_c), static_cast<size_t>(tiles)}, scratch,
                  m_off, c_.bias, res_c_ ? InMem(3) : OutMem(), res_c_ ? InOff(3) : 0, res_c_, OutMem(), OutOff(),
                  p.out_h, p.out_w, p.out_c, th, tw, c_.act, y_stride_ == 0 ? p.out_c : y_stride_);
  }

  ConvLaunch c_;
  int res_c_ = 0;
  int y_stride_ = 0;  // 0: dense
  bool nc4_ = false;
  Nc4Pointwise pw_;
  bool wino_ = false;
  int wino_tiles_ = 0;
  cl_mem wino_filter_ = nullptr;
  const ir::Node* partner_node_ = nullptr;  // the kxk conv this 1x1 conv may launch
  ConvLaunch pair_;                          // the two as one GEMM
  bool paired_ = false;                      // this launches pair_
  bool launched_by_pair_ = false;            // the conv before launches this one
};

class DepthwiseExecution : public ClExecution {
 public:
  using ClExecution::ClExecution;
  Status Prepare() override {
    kernel_name_ = "depthwise_conv2d";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 4}));
    RILL_INF_RETURN_IF_ERROR(PrepareFusedPRelu(4));
    RILL_INF_RETURN_IF_ERROR(NeedConstantWeights());
    p_ = gpu::DepthwiseGeometry(attrs(), InShape(0), InShape(1), OutShape());
    if (!weights_) {
      RILL_INF_ASSIGN_OR_RETURN(weights_, Upload(ConstFloats(args_.inputs[1])));  // [1][kh][kw][out_c] as is
      RILL_INF_ASSIGN_OR_RETURN(bias_, Upload(gpu::BiasOrZeros(OptionalInput(2), p_.out_c)));
    }
    // Multiplier 1 on a large map: the NC4HW4 kernel where its input or
    // output is stored so.
    nc4_ = gpu::Nc4Depthwise(p_) && prelu_slope_ < 0 && p_.out_h * p_.out_w >= nc4_min_pixels() &&
           !args_.inputs[0]->constant;
    if (nc4_) {
      RILL_INF_RETURN_IF_ERROR(PrepareNc4Depthwise(static_cast<const float*>(args_.inputs[1]->host()),
                                                   OptionalInput(2), p_, Act(attrs().activation), &dw_));
    }
    return Kernel(0, "depthwise_conv2d").status();
  }
  bool Nc4Input(size_t i) const override { return nc4_ && i == 0; }
  bool Nc4Output() const override { return nc4_; }
  std::string name() const override {
    return Blocked() ? std::string(half() ? "depthwise_nc4_cl_f16" : "depthwise_nc4_cl") : ClExecution::name();
  }
  Status Run() override {
    if (Blocked()) {
      return RunNc4Depthwise(dw_, InMem(0), InOff(0), Nc4(args_.inputs[0]), OutMem(), OutOff(),
                             Nc4(args_.outputs[0]));
    }
    RILL_INF_RETURN_IF_ERROR(Launch(kernels_[0], {static_cast<size_t>(p_.out_c), static_cast<size_t>(p_.out_w),
                                                  static_cast<size_t>(p_.batch) * p_.out_h},
                                    InMem(0), InOff(0), weights_, bias_, OutMem(), OutOff(), p_.in_h, p_.in_w, p_.in_c,
                                    p_.out_h, p_.out_w, p_.out_c, p_.kernel_h, p_.kernel_w, p_.stride_h, p_.stride_w,
                                    p_.dilation_h, p_.dilation_w, p_.pad_top, p_.pad_left, p_.depth_multiplier,
                                    Act(attrs().activation)));
    return RunFusedPRelu();
  }

 private:
  bool Blocked() const { return nc4_ && (Nc4(args_.inputs[0]) || Nc4(args_.outputs[0])); }
  cpu::ConvParams p_;
  cl_mem weights_ = nullptr, bias_ = nullptr;
  bool nc4_ = false;
  Nc4Depthwise dw_;
};

class TransposeConvExecution : public ClExecution {
 public:
  using ClExecution::ClExecution;
  Status Prepare() override {
    kernel_name_ = "transpose_conv2d";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7}));
    RILL_INF_RETURN_IF_ERROR(NeedConstantWeights());
    p_ = gpu::TransposeConvGeometry(attrs(), InShape(0), InShape(1), OutShape());
    if (!weights_) {
      RILL_INF_ASSIGN_OR_RETURN(weights_, Upload(ConstFloats(args_.inputs[1])));
      RILL_INF_ASSIGN_OR_RETURN(bias_, Upload(gpu::BiasOrZeros(OptionalInput(2), p_.out_c)));
    }
    return Kernel(0, "transpose_conv2d").status();
  }
  Status Run() override {
    return Launch(kernels_[0], {static_cast<size_t>(p_.out_c), static_cast<size_t>(p_.out_w),
                                static_cast<size_t>(p_.batch) * p_.out_h},
                  InMem(0), InOff(0), weights_, bias_, OutMem(), OutOff(), p_.in_h, p_.in_w, p_.in_c, p_.out_h,
                  p_.out_w, p_.out_c, p_.kernel_h, p_.kernel_w, p_.stride_h, p_.stride_w, p_.pad_top, p_.pad_left,
                  p_.groups, Act(attrs().activation));
  }

 private:
  cpu::ConvParams p_;
  cl_mem weights_ = nullptr, bias_ = nullptr;
};

class FullyConnectedExecution : public ClExecution {
 public:
  using ClExecution::ClExecution;
  Status Prepare() override {
    kernel_name_ = "fully_connected";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7}));
    RILL_INF_RETURN_IF_ERROR(NeedConstantWeights("non-constant weights"));
    g_ = gpu::MakeFullyConnectedGeometry(InShape(0), InShape(1));
    if (!weights_) {
      RILL_INF_ASSIGN_OR_RETURN(weights_, Upload(PackGemmFilter(static_cast<const float*>(args_.inputs[1]->host()),
                                                                g_.units, g_.in_dim)));
      RILL_INF_ASSIGN_OR_RETURN(bias_, Upload(gpu::BiasOrZeros(OptionalInput(2), g_.units)));
    }
    return Kernel(0, "fully_connected").status();
  }
  Status Run() override {
    return Launch(kernels_[0], {static_cast<size_t>(g_.units), static_cast<size_t>(g_.rows)}, InMem(0), InOff(0),
                  weights_, bias_, OutMem(), OutOff(), g_.in_dim, g_.units, Act(attrs().activation));
  }

 private:
  gpu::FullyConnectedGeometry g_;
  cl_mem weights_ = nullptr, bias_ = nullptr;
};

Status ClExecution::PrepareFusedPRelu(size_t slope) {
  gpu::BroadcastGeometry b;
  RILL_INF_RETURN_IF_ERROR(FusedPRelu(slope, &prelu_slope_, &b));
  if (prelu_slope_ < 0) return Status::Ok();
  prelu_count_ = b.count;
  RILL_INF_ASSIGN_OR_RETURN(prelu_shape_, UploadInts(b.shape));
  return Kernel(kFusedPReluKernel, "binary").status();
}

Status ClExecution::RunFusedPRelu() {
  if (prelu_slope_ < 0) return Status::Ok();
  const size_t s = static_cast<size_t>(prelu_slope_);
  return Launch(kernels_[kFusedPReluKernel], {static_cast<size_t>(prelu_count_)}, OutMem(), OutOff(), InMem(s),
                InOff(s), OutMem(), OutOff(), prelu_shape_, static_cast<int>(gpu::kBinaryPRelu), 0, prelu_count_);
}

class BinaryExecution : public ClExecution {
 public:
  using ClExecution::ClExecution;
  Status Prepare() override {
    kernel_name_ = "binary";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs());
    gpu::BroadcastGeometry b;
    RILL_INF_RETURN_IF_ERROR(MakeBinary(&b));
    count_ = b.count;
    RILL_INF_ASSIGN_OR_RETURN(shape_, UploadInts(b.shape));
    op_ = gpu::BinaryOpCode(args_.node->type);
    return Kernel(0, "binary").status();
  }
  Status Run() override {
    return Launch(kernels_[0], {static_cast<size_t>(count_)}, InMem(0), InOff(0), InMem(1), InOff(1), OutMem(),
                  OutOff(), shape_, op_, Act(attrs().activation), count_);
  }

 private:
  int count_ = 0, op_ = 0;
  cl_mem shape_ = nullptr;
};

class UnaryExecution : public ClExecution {
 public:
  using ClExecution::ClExecution;
  Status Prepare() override {
    kernel_name_ = "unary";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs());
    g_ = gpu::MakeUnaryGeometry(args_.node->type, attrs(), OutShape());
    return Kernel(0, "unary").status();
  }
  Status Run() override {
    return Launch(kernels_[0], {static_cast<size_t>(g_.count)}, InMem(0), InOff(0), OutMem(), OutOff(), g_.op,
                  g_.alpha, g_.beta, g_.count);
  }

 private:
  gpu::UnaryGeometry g_;
};

class PoolExecution : public ClExecution {
 public:
  using ClExecution::ClExecution;
  Status Prepare() override {
    kernel_name_ = "pool2d";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7}));
    p_ = gpu::PoolGeometry(attrs(), InShape(0), OutShape());
    return Kernel(0, "pool2d").status();
  }
  Status Run() override {
    return Launch(kernels_[0], {static_cast<size_t>(p_.out_c), static_cast<size_t>(p_.out_w),
                                static_cast<size_t>(p_.batch) * p_.out_h},
                  InMem(0), InOff(0), OutMem(), OutOff(), p_.in_h, p_.in_w, p_.in_c, p_.out_h, p_.out_w, p_.kernel_h,
                  p_.kernel_w, p_.stride_h, p_.stride_w, p_.pad_top, p_.pad_left,
                  gpu::PoolKind(args_.node->type), Act(attrs().activation));
  }

 private:
  cpu::ConvParams p_;
};

class MeanExecution : public ClExecution {
 public:
  using ClExecution::ClExecution;
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7}));
    gpu::MeanGeometry g;
    RILL_INF_RETURN_IF_ERROR(MakeMean(&g));
    RILL_INF_ASSIGN_OR_RETURN(shape_, UploadInts(g.shape));
    reduced_ = g.reduced;
    count_ = g.count;
    // A work group per output where each sums many elements (nn.cl).
    group_ = reduced_ >= kMeanGroup;
    kernel_name_ = group_ ? "mean_group" : "mean";
    return Kernel(0, group_ ? "mean_group" : "mean").status();
  }
  Status Run() override {
    if (group_) {
      return LaunchLocal(kernels_[0], {static_cast<size_t>(count_) * kMeanGroup}, {kMeanGroup}, InMem(0), InOff(0),
                         OutMem(), OutOff(), shape_, reduced_, count_);
    }
    return Launch(kernels_[0], {static_cast<size_t>(count_)}, InMem(0), InOff(0), OutMem(), OutOff(), shape_,
                  reduced_, count_);
  }

 private:
  static constexpr size_t kMeanGroup = 64;  // MEAN_GROUP in nn.cl
  bool group_ = false;
  int count_ = 0, reduced_ = 1;
  cl_mem shape_ = nullptr;
};

// TRANSPOSE, SLICE, PAD and RESHAPE as one strided gather.
class ViewExecution : public ClExecution {
 public:
  using ClExecution::ClExecution;
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
    RILL_INF_ASSIGN_OR_RETURN(shape_, UploadInts(v.shape));
    return Kernel(0, "gather_view").status();
  }
  Status Run() override {
    return Launch(kernels_[0], {static_cast<size_t>(count_)}, InMem(0), InOff(0), OutMem(), OutOff(), shape_, start_,
                  pad_, value_, count_);
  }

 private:
  int count_ = 0, start_ = 0, pad_ = 0;
  float value_ = 0.0f;
  cl_mem shape_ = nullptr;
};

class ConcatExecution : public ClExecution {
 public:
  using ClExecution::ClExecution;
  Status Prepare() override {
    kernel_name_ = "concatenation";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs());
    g_ = MakeConcat();
    return Kernel(0, "concat_slice").status();
  }
  Status Run() override {
    for (size_t i = 0; i < g_.chunks.size(); ++i) {
      RILL_INF_RETURN_IF_ERROR(Launch(kernels_[0], {static_cast<size_t>(g_.outer) * g_.chunks[i]}, InMem(i),
                                      InOff(i), OutMem(), OutOff(), g_.chunks[i], g_.stride, g_.offsets[i],
                                      Act(attrs().activation), g_.outer * g_.chunks[i]));
    }
    return Status::Ok();
  }

 private:
  gpu::ConcatGeometry g_;
};

class SoftmaxExecution : public ClExecution {
 public:
  using ClExecution::ClExecution;
  Status Prepare() override {
    kernel_name_ = "softmax";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7}));
    g_ = gpu::MakeSoftmaxGeometry(attrs().axis, InShape(0));
    return Kernel(0, "softmax").status();
  }
  Status Run() override {
    return Launch(kernels_[0], {static_cast<size_t>(g_.count)}, InMem(0), InOff(0), OutMem(), OutOff(), g_.axis_size,
                  g_.inner, g_.count);
  }

 private:
  gpu::SoftmaxGeometry g_;
};

class ResizeExecution : public ClExecution {
 public:
  using ClExecution::ClExecution;
  ~ResizeExecution() override { ReleaseTables(); }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7}));
    const ir::OpAttrs& a = attrs();
    separable_ = args_.node->type == ir::OpType::kResizeBicubic || a.antialias;
    // RESIZE_BICUBIC and antialiased resizes: the reference kernels' tap
    // tables (cpu::ComputeResizeSeparableTaps, ONNX Runtime's rules).
    if (separable_ && a.resize_coordinate == ir::ResizeCoordinate::kTflite) {
      return Refuse("bicubic or antialiased resize needs an ONNX coordinate transform");
    }
    t_ = separable_ ? gpu::MakeSeparableResizeTaps(args_.node->type, a, InShape(0), OutShape())
                    : gpu::MakeResizeTaps(args_.node->type, a, InShape(0), OutShape());
    kernel_name_ = t_.name;
    // Tables change with the input's size: new ones at every plan.
    ReleaseTables();
    RILL_INF_ASSIGN_OR_RETURN(rows_, UploadRaw(t_.rows.data(), t_.rows.size() * sizeof(int), false));
    RILL_INF_ASSIGN_OR_RETURN(cols_, UploadRaw(t_.cols.data(), t_.cols.size() * sizeof(int), false));
    RILL_INF_ASSIGN_OR_RETURN(rw_, UploadRaw(t_.row_weights.data(), t_.row_weights.size() * sizeof(float), false));
    RILL_INF_ASSIGN_OR_RETURN(cw_, UploadRaw(t_.col_weights.data(), t_.col_weights.size() * sizeof(float), false));
    if (separable_) {
      RILL_INF_ASSIGN_OR_RETURN(divisor_, UploadRaw(t_.divisor.data(), t_.divisor.size() * sizeof(float), false));
    }
    return Kernel(0, separable_ ? "resize_separable" : "resize_taps").status();
  }
  Status Run() override {
    const gpu::ResizeTables& t = t_;
    const std::initializer_list<size_t> global = {static_cast<size_t>(t.channels), static_cast<size_t>(t.out_w),
                                                  static_cast<size_t>(t.batch) * t.out_h};
    if (separable_) {
      return Launch(kernels_[0], global, InMem(0), InOff(0), OutMem(), OutOff(), rows_, rw_, t.taps, cols_, cw_,
                    t.col_taps, divisor_, t.in_h, t.in_w, t.channels, t.out_h, t.out_w, t.outside);
    }
    return Launch(kernels_[0], global, InMem(0), InOff(0), OutMem(), OutOff(), rows_, rw_, cols_, cw_, t.taps, t.in_h,
                  t.in_w, t.channels, t.out_h, t.out_w, t.outside);
  }

 private:
  void ReleaseTables() {
    for (cl_mem* m : {&rows_, &cols_, &rw_, &cw_, &divisor_}) {
      if (*m) cl().clReleaseMemObject(*m);
      *m = nullptr;
    }
  }
  bool separable_ = false;
  gpu::ResizeTables t_;
  cl_mem rows_ = nullptr, cols_ = nullptr, rw_ = nullptr, cw_ = nullptr, divisor_ = nullptr;
};

class DepthToSpaceExecution : public ClExecution {
 public:
  using ClExecution::ClExecution;
  Status Prepare() override {
    kernel_name_ = "depth_to_space";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7}));
    return Kernel(0, "depth_to_space").status();
  }
  Status Run() override {
    const Shape& x = InShape(0);
    const Shape& y = OutShape();
    return Launch(kernels_[0], {static_cast<size_t>(y[3]), static_cast<size_t>(y[2]), static_cast<size_t>(y[0]) * y[1]},
                  InMem(0), InOff(0), OutMem(), OutOff(), x[1], x[2], x[3], attrs().block_size);
  }
};

// DEPTHWISE_BLOCK (the optimizer's [1x1 expand ->] depthwise -> 1x1 project
// [+ residual]) as three kernels through scratch. On large maps (at least
// nc4_min_pixels output pixels) the three are the NC4HW4 kernels, the
// expanded and depthwise tensors NC4HW4 in the scratch, and the block
// reads its input and residual and writes its output in whichever layout
// StorageFor gave them.
class DepthwiseBlockExecution : public ClExecution {
 public:
  using ClExecution::ClExecution;
  // The expanded and depthwise tensors (storage type), then the split 1x1
  // convs' float sums (expand and project run one after the other: one
  // region serves both). NC4HW4: the two tensors, channels padded to 4.
  size_t scratch_bytes() const override {
    if (nc4_) return (Nc4Elements(g_.expand_elements) + Nc4Elements(g_.mid_elements)) * elem();
    return PartialOffsetBytes() + PartialFloats() * sizeof(float);
  }
  bool Nc4Input(size_t i) const override { return nc4_ && (i == 0 || i == 7); }
  bool Nc4Output() const override { return nc4_; }
  std::string name() const override {
    return nc4_ ? std::string(half() ? "depthwise_block_nc4_cl_f16" : "depthwise_block_nc4_cl") : ClExecution::name();
  }
  Status Prepare() override {
    kernel_name_ = "depthwise_block";
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    RILL_INF_RETURN_IF_ERROR(UploadConstantInputs({0, 7, 8}));
    RILL_INF_RETURN_IF_ERROR(PrepareFusedPRelu(8));
    RILL_INF_RETURN_IF_ERROR(NeedConstantInputs({1, 2, 3, 4, 5, 6}, "non-constant filter"));
    has_expand_ = HasInput(1);
    // Expand: 1x1 over x. Depthwise: the node's window. Project: 1x1 + residual.
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
    if (!dw_weights_) {
      RILL_INF_ASSIGN_OR_RETURN(dw_weights_, Upload(ConstFloats(args_.inputs[3])));
      RILL_INF_ASSIGN_OR_RETURN(dw_bias_, Upload(gpu::BiasOrZeros(OptionalInput(4), mid_c)));
    }
    const cpu::ConvParams& d = g_.depthwise;
    nc4_ = prelu_slope_ < 0 && d.out_h * d.out_w >= nc4_min_pixels() && gpu::Nc4Pointwise(g_.project.p) &&
           (!has_expand_ || gpu::Nc4Pointwise(g_.expand.p)) && !args_.inputs[0]->constant &&
           !(res_c_ && args_.inputs[7]->constant);
    if (nc4_) {
      if (has_expand_) {
        RILL_INF_RETURN_IF_ERROR(PrepareNc4Pointwise(static_cast<const float*>(args_.inputs[1]->host()),
                                                     OptionalInput(2), g_.expand.p, g_.expand.act, &nc4_expand_));
      }
      RILL_INF_RETURN_IF_ERROR(PrepareNc4Depthwise(static_cast<const float*>(args_.inputs[3]->host()),
                                                   OptionalInput(4), d, g_.depthwise_act, &nc4_dw_));
      RILL_INF_RETURN_IF_ERROR(PrepareNc4Pointwise(static_cast<const float*>(args_.inputs[5]->host()),
                                                   OptionalInput(6), g_.project.p, g_.project.act, &nc4_project_));
    }
    return Kernel(1, "depthwise_conv2d").status();
  }
  Status Run() override {
    if (nc4_) return RunNc4();
    const cl_mem scratch = Mem(scratch_);
    const int mid_off = Off(scratch_);
    const int expanded_off = mid_off + static_cast<int>(g_.mid_elements);
    cl_mem src = InMem(0);
    int src_off = InOff(0);
    const int partial_off = static_cast<int>((scratch_.offset + PartialOffsetBytes()) / sizeof(float));
    if (has_expand_) {
      RILL_INF_RETURN_IF_ERROR(RunConv(expand_, src, src_off, scratch, expanded_off, src, 0, 0, scratch, partial_off));
      src = scratch;
      src_off = expanded_off;
    }
    const cpu::ConvParams& d = g_.depthwise;
    RILL_INF_RETURN_IF_ERROR(Launch(kernels_[1], {static_cast<size_t>(d.out_c), static_cast<size_t>(d.out_w),
                                                  static_cast<size_t>(d.batch) * d.out_h},
                                    src, src_off, dw_weights_, dw_bias_, scratch, mid_off, d.in_h, d.in_w, d.in_c,
                                    d.out_h, d.out_w, d.out_c, d.kernel_h, d.kernel_w, d.stride_h, d.stride_w,
                                    d.dilation_h, d.dilation_w, d.pad_top, d.pad_left, d.depth_multiplier,
                                    g_.depthwise_act));
    RILL_INF_RETURN_IF_ERROR(RunConv(project_, scratch, mid_off, OutMem(), OutOff(), res_c_ ? InMem(7) : scratch,
                                     res_c_ ? InOff(7) : 0, res_c_, scratch, partial_off));
    return RunFusedPRelu();
  }

 private:
  // The three NC4HW4 kernels: x -> expanded -> mid (both NC4HW4 in the
  // scratch) -> y, the block's own tensors in their stored layouts.
  Status RunNc4() {
    const cl_mem scratch = Mem(scratch_);
    const int expanded_off = Off(scratch_);
    const int mid_off = expanded_off + static_cast<int>(Nc4Elements(g_.expand_elements));
    cl_mem src = InMem(0);
    int src_off = InOff(0), src_nc4 = Nc4(args_.inputs[0]);
    if (has_expand_) {
      RILL_INF_RETURN_IF_ERROR(RunNc4Pointwise(nc4_expand_, src, src_off, src_nc4, src, 0, 0, 0, scratch,
                                               expanded_off, 1));
      src = scratch;
      src_off = expanded_off;
      src_nc4 = 1;
    }
    RILL_INF_RETURN_IF_ERROR(RunNc4Depthwise(nc4_dw_, src, src_off, src_nc4, scratch, mid_off, 1));
    return RunNc4Pointwise(nc4_project_, scratch, mid_off, 1, res_c_ ? InMem(7) : scratch, res_c_ ? InOff(7) : 0,
                           res_c_ ? Nc4(args_.inputs[7]) : 0, res_c_, OutMem(), OutOff(), Nc4(args_.outputs[0]));
  }
  // Elements of an NHWC tensor of `elements` with the depthwise's channels,
  // NC4HW4.
  size_t Nc4Elements(size_t elements) const {
    const size_t c = static_cast<size_t>(g_.depthwise.out_c);
    return elements == 0 ? 0 : elements / c * ((c + 3) / 4 * 4);
  }
  // Where the float sums start: after the storage-type tensors, aligned.
  size_t PartialOffsetBytes() const { return g_.partial_offset_bytes(elem()); }
  size_t PartialFloats() const { return std::max(expand_.partial_floats(), project_.partial_floats()); }

  bool has_expand_ = false;
  gpu::DepthwiseBlockGeometry g_;
  ConvLaunch expand_, project_;
  cl_mem dw_weights_ = nullptr, dw_bias_ = nullptr;
  int res_c_ = 0;
  bool nc4_ = false;
  Nc4Pointwise nc4_expand_, nc4_project_;
  Nc4Depthwise nc4_dw_;
};

Status OpenClBackend::PlanRun(const std::vector<RunStep>& steps) {
  std::vector<ConvExecution*> convs(steps.size(), nullptr);
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].kind != RunStep::Kind::kExecution) continue;
    convs[i] = dynamic_cast<ConvExecution*>(steps[i].execution);
    if (convs[i]) convs[i]->Unpair();
  }
  for (size_t i = 0; i + 1 < steps.size(); ++i) {
    // The second waits for nothing the first does not (it runs at the first's step).
    if (convs[i] && convs[i + 1] && !steps[i + 1].waits && convs[i]->PairWith(convs[i + 1])) ++i;
  }
  return Status::Ok();
}

StatusOr<std::unique_ptr<Execution>> OpenClBackend::CreateExecution(const ExecutionArgs& args) {
  using gpu::GpuOp;
  std::unique_ptr<Execution> e;
  switch (gpu::GpuOpOf(args.node->type)) {
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
      return UnimplementedError(args.graph->NodeContext(*args.node) + "opencl has no kernel for " +
                                ir::OpTypeName(args.node->type));
  }
  return e;
}

// Options besides the runtime's (ClRuntime::Create): nc4_min_pixels, the
// output map size (pixels) from which 1x1 and depthwise convs run the
// NC4HW4 kernels (default gpu::kNc4MinPixels, 28x28; 0: all of them; a
// size over any map: none); pair_convs (default 1; 0: off), one launch for
// a 1x1 and a kxk conv of one input side by side in a concatenation
// (ConvExecution); winograd (default auto: the 3x3 stride-1 convs
// gpu::WinogradPays picks; 1: every 3x3 stride-1 conv; 0: none) as
// Winograd F(2x2, 3x3) (ConvExecution); gpu_profile=FILE, each command's
// GPU time (OpenClBackend::CollectProfile); flush_every=N (default 0: none),
// a clFlush after every N-th launch of a lane (ClExecution::AfterLaunch);
// split_min_k (default gpu::kSplitMinK, 256), the least K split over work
// groups (gpu::PlanConv).
StatusOr<std::unique_ptr<Backend>> CreateOpenCl(const BackendContext& context) {
  RILL_INF_ASSIGN_OR_RETURN(std::unique_ptr<ClRuntime> runtime, ClRuntime::Create(context.options));
  // Half storage needs no cl_khr_fp16 (vload_half / vstore_half are core).
  const bool half = context.config->precision == Precision::kFp16;
  // Build (or load) the program now: a device whose compiler fails is a
  // clear error at Session::Create, not at the first node.
  RILL_INF_RETURN_IF_ERROR(runtime->Program(half).status());
  auto backend = std::make_unique<OpenClBackend>(std::move(runtime), half);
  if (auto it = context.options.find("nc4_min_pixels"); it != context.options.end()) {
    backend->set_nc4_min_pixels(std::max(0, std::atoi(it->second.c_str())));
  }
  if (auto it = context.options.find("pair_convs"); it != context.options.end()) {
    backend->set_pair_convs(it->second != "0" && it->second != "false");
  }
  if (auto it = context.options.find("split_min_k"); it != context.options.end()) {
    backend->set_split_min_k(std::max(1, std::atoi(it->second.c_str())));
  }
  if (auto it = context.options.find("flush_every"); it != context.options.end()) {
    backend->set_flush_every(std::max(0, std::atoi(it->second.c_str())));
  }
  if (auto it = context.options.find("gpu_profile"); it != context.options.end()) {
    backend->set_profile_path(it->second);
  }
  if (auto it = context.options.find("winograd"); it != context.options.end()) {
    const std::string& v = it->second;
    if (v == "auto") {
      backend->set_winograd(OpenClBackend::WinogradMode::kAuto);
    } else if (v == "1" || v == "true" || v == "all") {
      backend->set_winograd(OpenClBackend::WinogradMode::kAll);
    } else if (v == "0" || v == "false" || v == "off") {
      backend->set_winograd(OpenClBackend::WinogradMode::kOff);
    } else {
      return InvalidArgumentError("backend option opencl.winograd=" + v + ": expected auto, 1 (all) or 0 (off)");
    }
  }
  return std::unique_ptr<Backend>(std::move(backend));
}

const bool kRegistered = RegisterBackend("opencl", CreateOpenCl);

}  // namespace

// Linking //inference/backend/opencl registers the backend; this symbol lets
// a binary make sure the library is kept.
bool OpenClBackendLinked() { return kRegistered; }

}  // namespace rill::inference::opencl
