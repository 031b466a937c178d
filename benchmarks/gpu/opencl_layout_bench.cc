// Which tensor layout the OpenCL backend should use, measured: the same
// depthwise 3x3 and pointwise (1x1) convolutions of MobileNetV2's shapes in
//   nhwc_buffer  the backend's own kernels on its NHWC buffers
//                (depthwise_conv2d: one output channel per work item;
//                conv2d_tiled: the implicit GEMM with 64x64 local tiles,
//                split over K where the backend would split it);
//   nhwc_vec4    NHWC buffers too, but 4 adjacent channels per work item
//                (float4 loads: a pixel's channels are contiguous in NHWC);
//   nc4_buffer   channels in blocks of 4 (NC4HW4, MNN's and TNN's GPU layout)
//                in a buffer, one float4 per load: a work item computes one
//                pixel's 4 channels (depthwise) or 4 output channels of 2
//                pixels (pointwise);
//   nc4_image    the same kernels reading and writing RGBA float image2d_t
//                (width = C/4 * W, height = N * H), so loads go through the
//                texture path and its cache.
// Each variant's output is checked against a plain C++ loop first (a wrong
// kernel is an error, not a figure). Times are GPU times from profiling
// events, median of --runs launches, in microseconds.
//
//   bazel build -c opt //benchmarks/gpu:opencl_layout_bench
//   bazel-bin/benchmarks/gpu/opencl_layout_bench [--runs=N] [--device=I]
// (benchmarks/gpu/run.sh runs it on the GPU machine; docs/benchmarks.md has
// the figures and the decision.)
#include <CL/cl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "inference/backend/gpu/op_geometry.h"
#include "inference/backend/opencl/cl_api.h"
#include "inference/backend/opencl/opencl_runtime.h"

namespace rill::inference::opencl {
namespace {

constexpr char kSource[] = R"CL(
__constant sampler_t kSampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;

// Depthwise 3x3, stride 1, pad 1, ReLU6, on NHWC buffers with 4 adjacent
// channels per work item (one float4 load per tap: NHWC keeps a pixel's
// channels together, so this is the same vector width as NC4HW4 without a
// layout change; C a multiple of 4). w: [9][C], bias [C]. Global (C/4, W, H).
__kernel void dw_nhwc_vec4(__global const float* x, __global const float* w, __global const float* bias,
                           __global float* y, int h, int wd, int c) {
  const int c4 = get_global_id(0), ox = get_global_id(1), oy = get_global_id(2);
  float4 acc = vload4(c4, bias);
  for (int ky = 0; ky < 3; ++ky) {
    const int iy = oy + ky - 1;
    if (iy < 0 || iy >= h) continue;
    for (int kx = 0; kx < 3; ++kx) {
      const int ix = ox + kx - 1;
      if (ix < 0 || ix >= wd) continue;
      acc = mad(vload4(c4, x + ((long)iy * wd + ix) * c), vload4(c4, w + (ky * 3 + kx) * c), acc);
    }
  }
  vstore4(clamp(acc, 0.0f, 6.0f), c4, y + ((long)oy * wd + ox) * c);
}

// Pointwise on NHWC buffers, 4 output channels of 2 pixels per work item:
// x rows read 4 input channels at a time, w [ic][oc] 4 outputs at a time
// (ic and oc multiples of 4). Global (oc / 4, ceil(HW / 2)).
__kernel void pw_nhwc_vec4(__global const float* x, __global const float* w, __global const float* bias,
                           __global float* y, int hw, int ic, int oc) {
  const int o4 = get_global_id(0), p = get_global_id(1) * 2;
  if (p >= hw) return;
  const bool two = p + 1 < hw;
  float4 a0 = vload4(o4, bias), a1 = a0;
  __global const float* x0p = x + (long)p * ic;
  __global const float* x1p = x + (long)(two ? p + 1 : p) * ic;
  for (int k = 0; k < ic; k += 4) {
    const float4 x0 = vload4(0, x0p + k), x1 = vload4(0, x1p + k);
    const float4 w0 = vload4(o4, w + (long)k * oc), w1 = vload4(o4, w + (long)(k + 1) * oc);
    const float4 w2 = vload4(o4, w + (long)(k + 2) * oc), w3 = vload4(o4, w + (long)(k + 3) * oc);
    a0 = mad((float4)(x0.x), w0, a0); a0 = mad((float4)(x0.y), w1, a0);
    a0 = mad((float4)(x0.z), w2, a0); a0 = mad((float4)(x0.w), w3, a0);
    a1 = mad((float4)(x1.x), w0, a1); a1 = mad((float4)(x1.y), w1, a1);
    a1 = mad((float4)(x1.z), w2, a1); a1 = mad((float4)(x1.w), w3, a1);
  }
  vstore4(a0, o4, y + (long)p * oc);
  if (two) vstore4(a1, o4, y + (long)(p + 1) * oc);
}

// Depthwise 3x3, stride 1, pad 1, ReLU6; NC4HW4 buffers. w: [c4][9] float4,
// bias: [c4] float4. Global (W, H, C4).
__kernel void dw_nc4_buffer(__global const float4* x, __global const float4* w, __global const float4* bias,
                            __global float4* y, int h, int wd) {
  const int ox = get_global_id(0), oy = get_global_id(1), c4 = get_global_id(2);
  float4 acc = bias[c4];
  __global const float4* xc = x + (long)c4 * h * wd;
  for (int ky = 0; ky < 3; ++ky) {
    const int iy = oy + ky - 1;
    if (iy < 0 || iy >= h) continue;
    for (int kx = 0; kx < 3; ++kx) {
      const int ix = ox + kx - 1;
      if (ix < 0 || ix >= wd) continue;
      acc = mad(xc[iy * wd + ix], w[c4 * 9 + ky * 3 + kx], acc);
    }
  }
  y[((long)c4 * h + oy) * wd + ox] = clamp(acc, 0.0f, 6.0f);
}

// The same over images: pixel (x, y) of channel block c4 at (c4 * W + x, y).
__kernel void dw_nc4_image(__read_only image2d_t x, __global const float4* w, __global const float4* bias,
                           __write_only image2d_t y, int h, int wd) {
  const int ox = get_global_id(0), oy = get_global_id(1), c4 = get_global_id(2);
  float4 acc = bias[c4];
  for (int ky = 0; ky < 3; ++ky) {
    const int iy = oy + ky - 1;
    if (iy < 0 || iy >= h) continue;
    for (int kx = 0; kx < 3; ++kx) {
      const int ix = ox + kx - 1;
      if (ix < 0 || ix >= wd) continue;
      acc = mad(read_imagef(x, kSampler, (int2)(c4 * wd + ix, iy)), w[c4 * 9 + ky * 3 + kx], acc);
    }
  }
  write_imagef(y, (int2)(c4 * wd + ox, oy), clamp(acc, 0.0f, 6.0f));
}

// Pointwise: y[oc] = bias + sum_ic x[ic] * w; NC4HW4. A work item computes
// output block oc4 (4 channels) of pixels p and p + 1. w: [oc4][ic4][4]
// float4 (one float4 per input channel: its weights to the 4 outputs).
// Global (ceil(HW / 2), OC4).
__kernel void pw_nc4_buffer(__global const float4* x, __global const float4* w, __global const float4* bias,
                            __global float4* y, int hw, int ic4s) {
  const int p = get_global_id(0) * 2, oc4 = get_global_id(1);
  if (p >= hw) return;
  const bool two = p + 1 < hw;
  float4 a0 = bias[oc4], a1 = a0;
  __global const float4* wp = w + (long)oc4 * ic4s * 4;
  for (int ic4 = 0; ic4 < ic4s; ++ic4) {
    const float4 x0 = x[(long)ic4 * hw + p];
    const float4 x1 = two ? x[(long)ic4 * hw + p + 1] : (float4)(0.0f);
    const float4 w0 = wp[0], w1 = wp[1], w2 = wp[2], w3 = wp[3];
    a0 = mad((float4)(x0.x), w0, a0); a0 = mad((float4)(x0.y), w1, a0);
    a0 = mad((float4)(x0.z), w2, a0); a0 = mad((float4)(x0.w), w3, a0);
    a1 = mad((float4)(x1.x), w0, a1); a1 = mad((float4)(x1.y), w1, a1);
    a1 = mad((float4)(x1.z), w2, a1); a1 = mad((float4)(x1.w), w3, a1);
    wp += 4;
  }
  y[(long)oc4 * hw + p] = a0;
  if (two) y[(long)oc4 * hw + p + 1] = a1;
}

__kernel void pw_nc4_image(__read_only image2d_t x, __global const float4* w, __global const float4* bias,
                           __write_only image2d_t y, int hw, int ic4s, int wd) {
  const int p = get_global_id(0) * 2, oc4 = get_global_id(1);
  if (p >= hw) return;
  const bool two = p + 1 < hw;
  const int px0 = p % wd, py0 = p / wd, px1 = (p + 1) % wd, py1 = (p + 1) / wd;
  float4 a0 = bias[oc4], a1 = a0;
  __global const float4* wp = w + (long)oc4 * ic4s * 4;
  for (int ic4 = 0; ic4 < ic4s; ++ic4) {
    const float4 x0 = read_imagef(x, kSampler, (int2)(ic4 * wd + px0, py0));
    const float4 x1 = two ? read_imagef(x, kSampler, (int2)(ic4 * wd + px1, py1)) : (float4)(0.0f);
    const float4 w0 = wp[0], w1 = wp[1], w2 = wp[2], w3 = wp[3];
    a0 = mad((float4)(x0.x), w0, a0); a0 = mad((float4)(x0.y), w1, a0);
    a0 = mad((float4)(x0.z), w2, a0); a0 = mad((float4)(x0.w), w3, a0);
    a1 = mad((float4)(x1.x), w0, a1); a1 = mad((float4)(x1.y), w1, a1);
    a1 = mad((float4)(x1.z), w2, a1); a1 = mad((float4)(x1.w), w3, a1);
    wp += 4;
  }
  write_imagef(y, (int2)(oc4 * wd + px0, py0), a0);
  if (two) write_imagef(y, (int2)(oc4 * wd + px1, py1), a1);
}
)CL";

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "opencl_layout_bench: %s\n", what.c_str());
  std::exit(1);
}

void Check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) Die(std::string(what) + ": " + ClErrorName(err));
}

struct Bench {
  cl_context ctx = nullptr;
  cl_device_id dev = nullptr;
  cl_command_queue q = nullptr;
  cl_program backend = nullptr, mine = nullptr;
  int runs = 50;
  int compute_units = 1;

  cl_mem Buffer(const std::vector<float>& v) {
    cl_int err;
    cl_mem m = cl().clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(float),
                                   const_cast<float*>(v.data()), &err);
    Check(err, "clCreateBuffer");
    return m;
  }
  cl_mem Empty(size_t floats) {
    cl_int err;
    cl_mem m = cl().clCreateBuffer(ctx, CL_MEM_READ_WRITE, std::max<size_t>(floats, 4) * sizeof(float), nullptr, &err);
    Check(err, "clCreateBuffer");
    return m;
  }
  // An RGBA float image of width x height texels from NC4HW4 data laid out
  // as the image wants (row y: c4-major blocks of W texels).
  cl_mem Image(size_t width, size_t height, const float* data) {
    cl_image_format f{CL_RGBA, CL_FLOAT};
    cl_image_desc d{};
    d.image_type = CL_MEM_OBJECT_IMAGE2D;
    d.image_width = width;
    d.image_height = height;
    cl_int err;
    cl_mem m = cl().clCreateImage(ctx, CL_MEM_READ_WRITE | (data ? CL_MEM_COPY_HOST_PTR : 0), &f, &d,
                                  const_cast<float*>(data), &err);
    Check(err, "clCreateImage");
    return m;
  }
  std::vector<float> Read(cl_mem m, size_t floats) {
    std::vector<float> out(floats);
    Check(cl().clEnqueueReadBuffer(q, m, CL_TRUE, 0, floats * sizeof(float), out.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
    return out;
  }
  cl_kernel Kernel(cl_program p, const char* name) {
    cl_int err;
    cl_kernel k = cl().clCreateKernel(p, name, &err);
    Check(err, name);
    return k;
  }
  struct Launch {
    cl_kernel k;
    int dims;
    const size_t* global;
    const size_t* local;
  };
  // Median GPU time of `runs` runs of `launches` (their times added),
  // microseconds.
  double Time(const std::vector<Launch>& launches) {
    std::vector<double> us;
    for (int r = 0; r < runs + 3; ++r) {
      double total = 0;
      for (const Launch& l : launches) {
        cl_event e;
        Check(cl().clEnqueueNDRangeKernel(q, l.k, l.dims, nullptr, l.global, l.local, 0, nullptr, &e), "launch");
        Check(cl().clWaitForEvents(1, &e), "clWaitForEvents");
        cl_ulong t0 = 0, t1 = 0;
        cl().clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, nullptr);
        cl().clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, nullptr);
        cl().clReleaseEvent(e);
        total += (t1 - t0) / 1e3;
      }
      if (r >= 3) us.push_back(total);
    }
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
  }
  double Time(cl_kernel k, int dims, const size_t* global, const size_t* local) {
    return Time({Launch{k, dims, global, local}});
  }
};

template <typename T>
void Arg(cl_kernel k, cl_uint i, const T& v) {
  Check(cl().clSetKernelArg(k, i, sizeof(T), &v), "clSetKernelArg");
}

// NHWC <-> NC4HW4 (channels padded to a multiple of 4 with zeros).
std::vector<float> ToNc4(const std::vector<float>& nhwc, int h, int w, int c) {
  const int c4s = (c + 3) / 4;
  std::vector<float> out(static_cast<size_t>(c4s) * h * w * 4, 0.0f);
  for (int p = 0; p < h * w; ++p)
    for (int ch = 0; ch < c; ++ch) out[(static_cast<size_t>(ch / 4) * h * w + p) * 4 + ch % 4] = nhwc[p * c + ch];
  return out;
}
std::vector<float> FromNc4(const std::vector<float>& nc4, int h, int w, int c) {
  std::vector<float> out(static_cast<size_t>(h) * w * c);
  for (int p = 0; p < h * w; ++p)
    for (int ch = 0; ch < c; ++ch) out[p * c + ch] = nc4[(static_cast<size_t>(ch / 4) * h * w + p) * 4 + ch % 4];
  return out;
}
// An NC4HW4 tensor as image rows: texel (c4 * W + x, y) = block c4 of pixel (x, y).
std::vector<float> Nc4ToImage(const std::vector<float>& nc4, int h, int w, int c4s) {
  std::vector<float> img(nc4.size());
  for (int c4 = 0; c4 < c4s; ++c4)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        std::memcpy(&img[((static_cast<size_t>(y) * c4s + c4) * w + x) * 4],
                    &nc4[((static_cast<size_t>(c4) * h + y) * w + x) * 4], 4 * sizeof(float));
  return img;
}
std::vector<float> ImageToNc4(const std::vector<float>& img, int h, int w, int c4s) {
  std::vector<float> nc4(img.size());
  for (int c4 = 0; c4 < c4s; ++c4)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        std::memcpy(&nc4[((static_cast<size_t>(c4) * h + y) * w + x) * 4],
                    &img[((static_cast<size_t>(y) * c4s + c4) * w + x) * 4], 4 * sizeof(float));
  return nc4;
}

std::vector<float> Random(size_t n, std::mt19937* rng) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& f : v) f = d(*rng);
  return v;
}

// "12.3", or "-" for a variant the shape does not allow.
std::string Us(double us) {
  if (us < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", us);
  return buf;
}

double MaxDiff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, static_cast<double>(std::fabs(a[i] - b[i])));
  return m;
}

void Verify(const char* what, const std::vector<float>& got, const std::vector<float>& want) {
  const double d = MaxDiff(got, want);
  if (!(d <= 1e-3)) Die(std::string(what) + ": differs from the C++ loop by " + std::to_string(d));
}

std::vector<float> ReadImage(Bench& b, cl_mem img, size_t width, size_t height) {
  std::vector<float> out(width * height * 4);
  const size_t origin[3] = {0, 0, 0}, region[3] = {width, height, 1};
  Check(cl().clEnqueueReadImage(b.q, img, CL_TRUE, origin, region, 0, 0, out.data(), 0, nullptr, nullptr), "clEnqueueReadImage");
  return out;
}

void Depthwise(Bench& b, int h, int w, int c, std::mt19937* rng) {
  const std::vector<float> x = Random(static_cast<size_t>(h) * w * c, rng);
  const std::vector<float> wt = Random(9 * static_cast<size_t>(c), rng);  // [ky][kx][c]
  const std::vector<float> bias = Random(c, rng);
  std::vector<float> want(x.size());
  for (int oy = 0; oy < h; ++oy)
    for (int ox = 0; ox < w; ++ox)
      for (int ch = 0; ch < c; ++ch) {
        float acc = bias[ch];
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx) {
            const int iy = oy + ky - 1, ix = ox + kx - 1;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
            acc += x[(static_cast<size_t>(iy) * w + ix) * c + ch] * wt[(ky * 3 + kx) * c + ch];
          }
        want[(static_cast<size_t>(oy) * w + ox) * c + ch] = std::min(std::max(acc, 0.0f), 6.0f);
      }
  // The backend's kernel on NHWC buffers.
  cl_mem bx = b.Buffer(x), bw = b.Buffer(wt), bb = b.Buffer(bias), by = b.Empty(x.size());
  cl_kernel k = b.Kernel(b.backend, "depthwise_conv2d");
  const int zero = 0, one = 1, three = 3, act_relu6 = 3;
  cl_uint i = 0;
  Arg(k, i++, bx); Arg(k, i++, zero); Arg(k, i++, bw); Arg(k, i++, bb); Arg(k, i++, by); Arg(k, i++, zero);
  Arg(k, i++, h); Arg(k, i++, w); Arg(k, i++, c); Arg(k, i++, h); Arg(k, i++, w); Arg(k, i++, c);
  Arg(k, i++, three); Arg(k, i++, three); Arg(k, i++, one); Arg(k, i++, one); Arg(k, i++, one); Arg(k, i++, one);
  Arg(k, i++, one); Arg(k, i++, one); Arg(k, i++, one); Arg(k, i++, act_relu6);
  const size_t g0[3] = {static_cast<size_t>(c), static_cast<size_t>(w), static_cast<size_t>(h)};
  Check(cl().clEnqueueNDRangeKernel(b.q, k, 3, nullptr, g0, nullptr, 0, nullptr, nullptr), "launch");
  Verify("depthwise nhwc_buffer", b.Read(by, x.size()), want);
  const double t_nhwc = b.Time(k, 3, g0, nullptr);

  // NHWC, 4 channels per work item (C a multiple of 4 here).
  double t_vec = -1;
  if (c % 4 == 0) {
    cl_kernel kv = b.Kernel(b.mine, "dw_nhwc_vec4");
    i = 0;
    Arg(kv, i++, bx); Arg(kv, i++, bw); Arg(kv, i++, bb); Arg(kv, i++, by); Arg(kv, i++, h); Arg(kv, i++, w);
    Arg(kv, i++, c);
    const size_t gv[3] = {static_cast<size_t>(c / 4), static_cast<size_t>(w), static_cast<size_t>(h)};
    Check(cl().clEnqueueNDRangeKernel(b.q, kv, 3, nullptr, gv, nullptr, 0, nullptr, nullptr), "launch");
    Verify("depthwise nhwc_vec4", b.Read(by, x.size()), want);
    t_vec = b.Time(kv, 3, gv, nullptr);
    cl().clReleaseKernel(kv);
  }

  // NC4HW4.
  const int c4s = (c + 3) / 4;
  const std::vector<float> x4 = ToNc4(x, h, w, c);
  std::vector<float> w4(static_cast<size_t>(c4s) * 9 * 4, 0.0f), b4(static_cast<size_t>(c4s) * 4, 0.0f);
  for (int ch = 0; ch < c; ++ch) {
    for (int t = 0; t < 9; ++t) w4[(static_cast<size_t>(ch / 4) * 9 + t) * 4 + ch % 4] = wt[t * c + ch];
    b4[ch] = bias[ch];
  }
  cl_mem nx = b.Buffer(x4), nw = b.Buffer(w4), nb = b.Buffer(b4), ny = b.Empty(x4.size());
  cl_kernel kb = b.Kernel(b.mine, "dw_nc4_buffer");
  i = 0;
  Arg(kb, i++, nx); Arg(kb, i++, nw); Arg(kb, i++, nb); Arg(kb, i++, ny); Arg(kb, i++, h); Arg(kb, i++, w);
  const size_t g1[3] = {static_cast<size_t>(w), static_cast<size_t>(h), static_cast<size_t>(c4s)};
  Check(cl().clEnqueueNDRangeKernel(b.q, kb, 3, nullptr, g1, nullptr, 0, nullptr, nullptr), "launch");
  Verify("depthwise nc4_buffer", FromNc4(b.Read(ny, x4.size()), h, w, c), want);
  const double t_buf = b.Time(kb, 3, g1, nullptr);

  const std::vector<float> ximg = Nc4ToImage(x4, h, w, c4s);
  cl_mem ix = b.Image(static_cast<size_t>(c4s) * w, h, ximg.data());
  cl_mem iy = b.Image(static_cast<size_t>(c4s) * w, h, nullptr);
  cl_kernel ki = b.Kernel(b.mine, "dw_nc4_image");
  i = 0;
  Arg(ki, i++, ix); Arg(ki, i++, nw); Arg(ki, i++, nb); Arg(ki, i++, iy); Arg(ki, i++, h); Arg(ki, i++, w);
  Check(cl().clEnqueueNDRangeKernel(b.q, ki, 3, nullptr, g1, nullptr, 0, nullptr, nullptr), "launch");
  Verify("depthwise nc4_image",
         FromNc4(ImageToNc4(ReadImage(b, iy, static_cast<size_t>(c4s) * w, h), h, w, c4s), h, w, c), want);
  const double t_img = b.Time(ki, 3, g1, nullptr);

  std::printf("| depthwise 3x3 %dx%dx%d | %.1f | %s | %.1f | %.1f |\n", h, w, c, t_nhwc,
              Us(t_vec).c_str(), t_buf,
              t_img);
  for (cl_mem m : {bx, bw, bb, by, nx, nw, nb, ny, ix, iy}) cl().clReleaseMemObject(m);
  for (cl_kernel kk : {k, kb, ki}) cl().clReleaseKernel(kk);
}

void Pointwise(Bench& b, int h, int w, int ic, int oc, std::mt19937* rng) {
  const int hw = h * w;
  const std::vector<float> x = Random(static_cast<size_t>(hw) * ic, rng);
  const std::vector<float> wt = Random(static_cast<size_t>(ic) * oc, rng);  // [ic][oc]: the GEMM's packing
  const std::vector<float> bias = Random(oc, rng);
  std::vector<float> want(static_cast<size_t>(hw) * oc);
  for (int p = 0; p < hw; ++p)
    for (int o = 0; o < oc; ++o) {
      double acc = bias[o];
      for (int k = 0; k < ic; ++k) acc += static_cast<double>(x[static_cast<size_t>(p) * ic + k]) * wt[static_cast<size_t>(k) * oc + o];
      want[static_cast<size_t>(p) * oc + o] = static_cast<float>(acc);
    }
  // The backend's implicit GEMM on NHWC buffers, split over K as the
  // backend plans it for this device (gpu::PlanConv: few output tiles and a
  // deep K), then its reduction.
  gpu::ConvPlan plan;
  plan.p = gpu::PointwiseGeometry(1, h, w, ic, oc);
  gpu::PlanConv(64, 64, b.compute_units, /*may_split=*/true, &plan);
  const int splits = plan.splits, k_chunk = plan.splits > 1 ? plan.k_chunk : ic;
  cl_mem bx = b.Buffer(x), bw = b.Buffer(wt), bb = b.Buffer(bias), by = b.Empty(want.size());
  cl_mem part = b.Empty(std::max<size_t>(plan.partial_floats(), 4));
  cl_kernel k = b.Kernel(b.backend, "conv2d_tiled");
  const int zero = 0, one = 1, none = 0;
  cl_uint i = 0;
  Arg(k, i++, bx); Arg(k, i++, zero); Arg(k, i++, bw); Arg(k, i++, bb); Arg(k, i++, bb); Arg(k, i++, zero);
  Arg(k, i++, zero); Arg(k, i++, by); Arg(k, i++, zero); Arg(k, i++, one); Arg(k, i++, h); Arg(k, i++, w);
  Arg(k, i++, ic); Arg(k, i++, h); Arg(k, i++, w); Arg(k, i++, oc); Arg(k, i++, one); Arg(k, i++, one);
  Arg(k, i++, one); Arg(k, i++, one); Arg(k, i++, one); Arg(k, i++, one); Arg(k, i++, zero); Arg(k, i++, zero);
  Arg(k, i++, none); Arg(k, i++, k_chunk); Arg(k, i++, splits); Arg(k, i++, part); Arg(k, i++, zero); Arg(k, i++, oc);
  Arg(k, i++, zero);  // narrow_n: no paired 1x1 conv
  const size_t g0[3] = {static_cast<size_t>((oc + 63) / 64 * 16), static_cast<size_t>((hw + 63) / 64 * 16),
                        static_cast<size_t>(splits)};
  const size_t l0[3] = {16, 16, 1};
  cl_kernel reduce = b.Kernel(b.backend, "conv_splitk_reduce");
  i = 0;
  Arg(reduce, i++, part); Arg(reduce, i++, zero); Arg(reduce, i++, splits); Arg(reduce, i++, bb); Arg(reduce, i++, bb);
  Arg(reduce, i++, zero); Arg(reduce, i++, zero); Arg(reduce, i++, by); Arg(reduce, i++, zero); Arg(reduce, i++, oc);
  Arg(reduce, i++, hw); Arg(reduce, i++, none); Arg(reduce, i++, oc);
  const size_t gr[2] = {static_cast<size_t>(oc), static_cast<size_t>(hw)};
  std::vector<Bench::Launch> launches = {{k, 3, g0, l0}};
  if (splits > 1) launches.push_back({reduce, 2, gr, nullptr});
  for (const Bench::Launch& l : launches) {
    Check(cl().clEnqueueNDRangeKernel(b.q, l.k, l.dims, nullptr, l.global, l.local, 0, nullptr, nullptr), "launch");
  }
  Verify("pointwise nhwc_buffer", b.Read(by, want.size()), want);
  const double t_nhwc = b.Time(launches);

  double t_vec = -1;
  if (ic % 4 == 0 && oc % 4 == 0) {
    cl_kernel kv = b.Kernel(b.mine, "pw_nhwc_vec4");
    i = 0;
    Arg(kv, i++, bx); Arg(kv, i++, bw); Arg(kv, i++, bb); Arg(kv, i++, by); Arg(kv, i++, hw); Arg(kv, i++, ic);
    Arg(kv, i++, oc);
    const size_t gv[2] = {static_cast<size_t>(oc / 4), static_cast<size_t>((hw + 1) / 2)};
    Check(cl().clEnqueueNDRangeKernel(b.q, kv, 2, nullptr, gv, nullptr, 0, nullptr, nullptr), "launch");
    Verify("pointwise nhwc_vec4", b.Read(by, want.size()), want);
    t_vec = b.Time(kv, 2, gv, nullptr);
    cl().clReleaseKernel(kv);
  }

  const int ic4s = (ic + 3) / 4, oc4s = (oc + 3) / 4;
  const std::vector<float> x4 = ToNc4(x, h, w, ic);
  std::vector<float> w4(static_cast<size_t>(oc4s) * ic4s * 16, 0.0f), b4(static_cast<size_t>(oc4s) * 4, 0.0f);
  for (int k2 = 0; k2 < ic; ++k2)
    for (int o = 0; o < oc; ++o)
      w4[((static_cast<size_t>(o / 4) * ic4s + k2 / 4) * 4 + k2 % 4) * 4 + o % 4] = wt[static_cast<size_t>(k2) * oc + o];
  for (int o = 0; o < oc; ++o) b4[o] = bias[o];
  const size_t out_floats = static_cast<size_t>(oc4s) * hw * 4;
  cl_mem nx = b.Buffer(x4), nw = b.Buffer(w4), nb = b.Buffer(b4), ny = b.Empty(out_floats);
  cl_kernel kb = b.Kernel(b.mine, "pw_nc4_buffer");
  i = 0;
  Arg(kb, i++, nx); Arg(kb, i++, nw); Arg(kb, i++, nb); Arg(kb, i++, ny); Arg(kb, i++, hw); Arg(kb, i++, ic4s);
  const size_t g1[2] = {static_cast<size_t>((hw + 1) / 2), static_cast<size_t>(oc4s)};
  Check(cl().clEnqueueNDRangeKernel(b.q, kb, 2, nullptr, g1, nullptr, 0, nullptr, nullptr), "launch");
  Verify("pointwise nc4_buffer", FromNc4(b.Read(ny, out_floats), h, w, oc), want);
  const double t_buf = b.Time(kb, 2, g1, nullptr);

  const std::vector<float> ximg = Nc4ToImage(x4, h, w, ic4s);
  cl_mem ix = b.Image(static_cast<size_t>(ic4s) * w, h, ximg.data());
  cl_mem iy = b.Image(static_cast<size_t>(oc4s) * w, h, nullptr);
  cl_kernel ki = b.Kernel(b.mine, "pw_nc4_image");
  i = 0;
  Arg(ki, i++, ix); Arg(ki, i++, nw); Arg(ki, i++, nb); Arg(ki, i++, iy); Arg(ki, i++, hw); Arg(ki, i++, ic4s);
  Arg(ki, i++, w);
  Check(cl().clEnqueueNDRangeKernel(b.q, ki, 2, nullptr, g1, nullptr, 0, nullptr, nullptr), "launch");
  Verify("pointwise nc4_image",
         FromNc4(ImageToNc4(ReadImage(b, iy, static_cast<size_t>(oc4s) * w, h), h, w, oc4s), h, w, oc), want);
  const double t_img = b.Time(ki, 2, g1, nullptr);

  std::printf("| pointwise %dx%dx%d -> %d | %.1f%s | %s | %.1f | %.1f |\n", h, w, ic, oc, t_nhwc,
              splits > 1 ? (" (K in " + std::to_string(splits) + ")").c_str() : "",
              Us(t_vec).c_str(), t_buf,
              t_img);
  for (cl_mem m : {bx, bw, bb, by, part, nx, nw, nb, ny, ix, iy}) cl().clReleaseMemObject(m);
  for (cl_kernel kk : {k, reduce, kb, ki}) cl().clReleaseKernel(kk);
}

int Main(int argc, char** argv) {
  Bench b;
  std::map<std::string, std::string> options;
  bool quick = false;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg.rfind("--runs=", 0) == 0) b.runs = std::max(1, std::atoi(arg.c_str() + 7));
    else if (arg.rfind("--device=", 0) == 0) options["device"] = arg.substr(9);
    else if (arg == "--quick") quick = true;
    else Die("unknown flag " + arg + " (--runs=N --device=I --quick)");
  }
  options["cache_dir"] = "none";
  auto rt = ClRuntime::Create(options);
  if (!rt.ok()) Die(rt.status().ToString());
  b.ctx = (*rt)->context();
  b.dev = (*rt)->device();
  b.compute_units = (*rt)->compute_units();
  cl_int err;
  b.q = cl().clCreateCommandQueue(b.ctx, b.dev, CL_QUEUE_PROFILING_ENABLE, &err);
  Check(err, "clCreateCommandQueue");
  auto backend = (*rt)->Program(false);
  if (!backend.ok()) Die(backend.status().ToString());
  b.backend = *backend;
  const char* src = kSource;
  b.mine = cl().clCreateProgramWithSource(b.ctx, 1, &src, nullptr, &err);
  Check(err, "clCreateProgramWithSource");
  if (cl().clBuildProgram(b.mine, 1, &b.dev, "-cl-fast-relaxed-math", nullptr, nullptr) != CL_SUCCESS) {
    char log[8192] = {};
    cl().clGetProgramBuildInfo(b.mine, b.dev, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, nullptr);
    Die(std::string("build: ") + log);
  }
  std::printf("device: %s; GPU time per launch, median of %d, us\n\n", (*rt)->description().c_str(), b.runs);
  std::printf("| layer (MobileNetV2 shapes) | nhwc_buffer (the backend's kernels) | nhwc_vec4 | nc4_buffer | nc4_image |\n");
  std::printf("|---|---|---|---|---|\n");
  std::mt19937 rng(1);
  if (quick) {
    Depthwise(b, 9, 7, 10, &rng);
    Depthwise(b, 9, 7, 12, &rng);
    Pointwise(b, 5, 7, 10, 13, &rng);
    Pointwise(b, 5, 7, 12, 8, &rng);
    Pointwise(b, 3, 5, 300, 7, &rng);  // deep K, few tiles: split over K
  } else {
    Depthwise(b, 112, 112, 32, &rng);
    Depthwise(b, 56, 56, 144, &rng);
    Depthwise(b, 28, 28, 192, &rng);
    Depthwise(b, 14, 14, 576, &rng);
    Depthwise(b, 7, 7, 960, &rng);
    Pointwise(b, 112, 112, 32, 16, &rng);
    Pointwise(b, 56, 56, 144, 24, &rng);
    Pointwise(b, 56, 56, 24, 144, &rng);
    Pointwise(b, 28, 28, 192, 32, &rng);
    Pointwise(b, 14, 14, 576, 96, &rng);
    Pointwise(b, 7, 7, 960, 320, &rng);
  }
  return 0;
}

}  // namespace
}  // namespace rill::inference::opencl

int main(int argc, char** argv) { return rill::inference::opencl::Main(argc, argv); }
