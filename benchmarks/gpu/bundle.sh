#!/bin/bash
# Packs what the GPU benchmark needs into one folder that the device tool
# carries (under 64 MiB): rill_model and the shared libraries it loads,
# Debian's OpenCL ICD loader (libOpenCL.so.1; the NVIDIA image has the
# driver's libnvidia-opencl.so.1 but no loader), Debian's Vulkan loader
# (libvulkan.so.1) and the GL vendor-neutral dispatch libraries NVIDIA's
# Vulkan driver (libGLX_nvidia.so.0) links (the image has neither), the
# MediaPipe models, and the PyTorch peer script (which exports the
# torchvision models there).
#   bazel build //inference/tools:rill_model //tests/inference:vulkan_test //tests/inference:opencl_test \
#               //benchmarks/gpu:opencl_layout_bench
#   benchmarks/gpu/bundle.sh gpubundle      (gpubundle/ is in .gitignore)
#   then, on the GPU machine: gpubundle/run.sh
set -euo pipefail
out=${1:?usage: benchmarks/gpu/bundle.sh OUTDIR}
rm -rf "$out"
mkdir -p "$out/lib" "$out/models"
cp bazel-bin/inference/tools/rill_model "$out/"
ldd "$out/rill_model" | awk '/=>/ {print $3}' | sort -u | while read -r lib; do cp -L "$lib" "$out/lib/"; done
# The Vulkan and OpenCL tests (ops and models against the CPU), where
# built: they run on the real GPU too (bazel build
# //tests/inference:vulkan_test //tests/inference:opencl_test).
for t in vulkan_test opencl_test; do
  if [ -x bazel-bin/tests/inference/$t ]; then
    cp bazel-bin/tests/inference/$t "$out/"
    ldd bazel-bin/tests/inference/$t | awk '/=>/ {print $3}' | sort -u | while read -r lib; do cp -nL "$lib" "$out/lib/"; done
  fi
done
# The OpenCL layout measurement, where built (bazel build
# //benchmarks/gpu:opencl_layout_bench).
if [ -x bazel-bin/benchmarks/gpu/opencl_layout_bench ]; then
  cp bazel-bin/benchmarks/gpu/opencl_layout_bench "$out/"
  ldd bazel-bin/benchmarks/gpu/opencl_layout_bench | awk '/=>/ {print $3}' | sort -u | while read -r lib; do cp -nL "$lib" "$out/lib/"; done
fi
cp -L /lib64/ld-linux-x86-64.so.2 "$out/lib/"
cp -L /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 "$out/lib/"
# (and the X11 client libraries it links: the image's need a newer glibc
# than the carried one).
for l in libvulkan.so.1 libGLdispatch.so.0 libGLX.so.0 libEGL.so.1 libOpenGL.so.0 libX11.so.6 libXext.so.6 \
         libxcb.so.1 libXau.so.6 libXdmcp.so.6 libbsd.so.0 libmd.so.0; do
  [ -e /usr/lib/x86_64-linux-gnu/$l ] && cp -L /usr/lib/x86_64-linux-gnu/$l "$out/lib/"
done
tar cJf "$out/lib.txz" -C "$out" lib && rm -rf "$out/lib"
for m in face_detection_short_range.tflite face_detection_full_range.tflite selfie_segmentation.tflite \
         rill_multitask.onnx; do
  cp third_party/models/$m "$out/models/"
done
# The GPU tests' other models (hand and pose landmarks, palm detection, the
# face landmark models), where they fit the carry limit.
for m in hand_landmark_lite.tflite hand_landmark_full.tflite pose_landmark_lite.tflite palm_detection_lite.tflite \
         face_landmark.tflite face_landmark_with_attention.tflite; do
  [ -f third_party/models/$m ] && cp third_party/models/$m "$out/models/"
done
cp benchmarks/gpu/torch_bench.py benchmarks/gpu/run.sh benchmarks/gpu/table.py "$out/"
echo "bundle in $out ($(du -sh "$out" | cut -f1))"
