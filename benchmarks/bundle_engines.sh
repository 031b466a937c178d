#!/bin/bash
# Packs //inference/tools:bench_engines (and rill_model), the shared libraries
# they load, ONNX Runtime and the models that fit into one folder of under
# 64 MiB, so the engine benchmark runs on a quiet machine (the `device`
# machine's CPU) pinned to 2 cores:
#   bazel build //inference/tools:bench_engines //inference/tools:rill_model
#   benchmarks/bundle_engines.sh bazel-devbundle
#   bazel-devbundle/run.sh --runs=41 --warmup=5 --models=mobilenet_v2,squeezenet1_1,...
# The OpenCV libraries bench_engines links but never calls (videoio, highgui,
# imgcodecs, imgproc) are dropped from its NEEDED list with patchelf, which
# keeps ffmpeg, gdal and friends out of the folder. ResNets do not fit.
set -euo pipefail
out=${1:?usage: benchmarks/bundle_engines.sh OUTDIR}
rm -rf "$out"
mkdir -p "$out/lib" "$out/models"
cp bazel-bin/inference/tools/bench_engines bazel-bin/inference/tools/rill_model "$out/"
chmod u+w "$out/bench_engines"
for l in libopencv_videoio.so.406 libopencv_imgcodecs.so.406 libopencv_imgproc.so.406 libopencv_highgui.so.406; do
  patchelf --remove-needed "$l" "$out/bench_engines"
done
for f in "$out/bench_engines" "$out/rill_model"; do ldd "$f" | awk '/=>/ {print $3}'; done | sort -u |
  while read -r lib; do cp -L "$lib" "$out/lib/"; done
cp -L /lib64/ld-linux-x86-64.so.2 "$out/lib/"
tar cJf "$out/lib.txz" -C "$out" lib && rm -rf "$out/lib"
xz -T2 -6 -c third_party/onnxruntime/libonnxruntime.so.1 >"$out/ort.xz"
for m in mobilenet_v2.onnx squeezenet1_1.onnx face_detection_short_range.tflite \
         face_detection_full_range.tflite selfie_segmentation.tflite; do
  cp third_party/models/$m "$out/models/"
done
cat >"$out/run.sh" <<'SH'
#!/bin/sh
# Unpacks and runs bench_engines pinned to 2 cores (like the 2-core VM;
# CORES=6,7 picks others).
D=$(cd "$(dirname "$0")" && pwd)
W=/tmp/rillbench; mkdir -p $W; cd $W
tar xJf "$D/lib.txz"; xz -dc "$D/ort.xz" > libonnxruntime.so.1
lscpu | grep -E "Model name|MHz|^CPU\(s\)"
taskset -c ${CORES:-2,3} $W/lib/ld-linux-x86-64.so.2 --library-path $W/lib "$D/bench_engines" --ort_lib=$W/libonnxruntime.so.1 "$@" "$D/models"
SH
chmod +x "$out/run.sh"
echo "bundle in $out ($(du -sh "$out" | cut -f1)); run $out/run.sh"
