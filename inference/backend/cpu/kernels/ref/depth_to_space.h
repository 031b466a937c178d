// Reference DEPTH_TO_SPACE, NHWC: output (y*b+dy, x*b+dx, c) reads input
// (y, x, (dy*b+dx)*C_out + c).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DEPTH_TO_SPACE_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DEPTH_TO_SPACE_H_

namespace rill::inference::cpu {

void DepthToSpaceRef(int batch, int in_h, int in_w, int in_c, int block, const float* in, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DEPTH_TO_SPACE_H_
