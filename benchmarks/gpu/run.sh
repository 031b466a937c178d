#!/bin/bash
# The GPU benchmark, on a machine with an NVIDIA GPU (see bundle.sh): our
# OpenCL and Vulkan backends (fp32, fp16) and our CPU backend beside PyTorch
# eager and CUDA-graph replay, batch 1, one table; the Vulkan backend's
# per-dispatch GPU times (VkQueryPool timestamps) and three backends in one
# session. RUNS=N (default 200) per figure; QUICK=1 stops after the table
# and the GPU tests.
set -uo pipefail
D=$(cd "$(dirname "$0")" && pwd)
W=/tmp/rillgpu; rm -rf $W; mkdir -p $W/models $W/icd; cd $W
tar xJf "$D/lib.txz"
cp "$D"/models/* $W/models/
# The ICD loader finds the driver through a vendors folder naming it.
echo libnvidia-opencl.so.1 > $W/icd/nvidia.icd
export OCL_ICD_VENDORS=$W/icd
NV=$(dirname "$(ldconfig -p | awk '/libnvidia-opencl.so.1/ {print $4; exit}')" 2>/dev/null)
LIBS=$W/lib:${NV:-/usr/local/nvidia/lib64}:/usr/local/nvidia/lib64:/usr/lib/x86_64-linux-gnu
# The Vulkan loader (carried) finds NVIDIA's driver through its ICD file:
# the image's, else one written here naming libGLX_nvidia.so.0.
ICD=""
for f in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
         /etc/vulkan/icd.d/nvidia_icd.json /usr/local/nvidia/etc/vulkan/icd.d/nvidia_icd.json; do
  [ -f "$f" ] && { ICD=$f; break; }
done
if [ -z "$ICD" ]; then
  ICD=$W/icd/nvidia_icd.json
  echo '{"file_format_version":"1.0.0","ICD":{"library_path":"libGLX_nvidia.so.0","api_version":"1.3.0"}}' > $ICD
fi
echo "Vulkan ICD: $ICD"
export VK_ICD_FILENAMES=$ICD VK_DRIVER_FILES=$ICD
VK="--backend_option=vulkan.cache_dir=$W/vkcache"
RUNS=${RUNS:-200}
OUT_DIR=${OUT:-$W}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E "Model name" | head -1
python3 "$D/torch_bench.py" $W/models "$RUNS" > $W/torch.jsonl || echo "torch_bench failed"
rill() { $W/lib/ld-linux-x86-64.so.2 --library-path "$LIBS" "$D/rill_model" "$@"; }
: > $W/ours.jsonl
for m in mobilenet_v2.onnx resnet18.onnx squeezenet1_1.onnx resnet50.onnx face_detection_short_range.tflite \
         face_detection_full_range.tflite selfie_segmentation.tflite; do
  [ -f $W/models/$m ] || { echo "missing $m"; continue; }
  for cfg in "cpu fp32 16" "opencl fp32 1" "opencl fp16 1" "vulkan fp32 1" "vulkan fp16 1"; do
    set -- $cfg
    line=$(rill bench $W/models/$m --backend=$1 --precision=$2 --threads=$3 --runs=$RUNS --json $VK 2>$W/err.txt | tail -1)
    case "$line" in
      "{"*) echo "${line%\}},\"backend\":\"$1\",\"precision\":\"$2\"}" >> $W/ours.jsonl ;;
      *) echo "$m $1 $2: $(tail -3 $W/err.txt)";;
    esac
  done
done
python3 "$D/table.py" $W/ours.jsonl $W/torch.jsonl | tee $OUT_DIR/gpu_table.md
cp $W/ours.jsonl $W/torch.jsonl $OUT_DIR/ 2>/dev/null
# The Vulkan and OpenCL tests on this GPU: every op and model against the
# CPU backend (the models the bundle carries; the others skip, named).
mkdir -p $W/t/third_party && ln -sfn $W/models $W/t/third_party/models
for t in vulkan_test opencl_test; do
  [ -x "$D/$t" ] || continue
  (cd $W/t && TEST_TMPDIR=$W/t $W/lib/ld-linux-x86-64.so.2 --library-path "$LIBS" "$D/$t" \
     --gtest_filter=-*ThreeBackends* > $OUT_DIR/$t.txt 2>&1; \
   echo "$t: $(grep -E "^\[  (PASSED|FAILED|SKIPPED) " $OUT_DIR/$t.txt | tr '\n' ' ')"; \
   grep -E -A4 "^\[  FAILED |Failure|^\[  SKIPPED \]|NOT TESTED" $OUT_DIR/$t.txt | head -40)
done
# QUICK=1: the table and the tests only.
[ "${QUICK:-0}" = 1 ] && exit 0
rill info $W/models/face_detection_short_range.tflite --backend=vulkan --precision=fp16 $VK 2>&1 | sed -n '8,9p'
# A multi-task model: its dense head on OpenCL while the rest runs on the
# CPU, at once and one after another (the sum of the parts), beside each
# backend alone; a Chrome trace of the concurrent run.
M=$W/models/rill_multitask.onnx
if [ -f $M ]; then
  echo "multi-task (rill_multitask.onnx, MobileNetV2 backbone + classes head + 56x56 mask head), median of $RUNS:"
  for a in "--threads=16" "--backend=opencl" "--backend=opencl --no_branch_streams" "--backend=vulkan" \
           "--threads=16 --place=mask:opencl" "--threads=16 --place=mask:opencl --sequential" \
           "--threads=16 --backend=vulkan --place=mask:opencl --place=classes:cpu" \
           "--threads=16 --backend=vulkan --place=mask:opencl --place=classes:cpu --sequential"; do
    echo "  $a: $(rill bench $M --runs=$RUNS $a $VK 2>&1 | tail -1 | sed 's/.*runs: //')"
  done
  rill bench $M --runs=20 --threads=16 --place=mask:opencl --trace=$OUT_DIR/multitask_trace.json >/dev/null 2>&1 || true
  rill bench $M --runs=20 --threads=16 --backend=vulkan --place=mask:opencl --place=classes:cpu $VK \
    --trace=$OUT_DIR/three_backends_trace.json >/dev/null 2>&1 || true
fi
# OpenCL with work-group sizes tuned per launch (kTune; the first run
# measures and fills the cache, the second only applies it).
echo "OpenCL fp32 with tuned work-group sizes (median of $RUNS, ms): default -> tuned"
for m in mobilenet_v2.onnx resnet18.onnx squeezenet1_1.onnx resnet50.onnx; do
  [ -f $W/models/$m ] || continue
  rill bench $W/models/$m --backend=opencl --runs=3 --tune=$W/tune.txt >/dev/null 2>&1
  d=$(rill bench $W/models/$m --backend=opencl --runs=$RUNS 2>&1 | tail -1 | sed 's/.*median \([0-9.]*\) ms.*/\1/')
  t=$(rill bench $W/models/$m --backend=opencl --runs=$RUNS --tune=$W/tune.txt 2>&1 | tail -1 | sed 's/.*median \([0-9.]*\) ms.*/\1/')
  echo "  $m: $d -> $t"
done
echo "  tuned launches: $(grep -c opencl_local $W/tune.txt 2>/dev/null), of which not the driver's: $(grep opencl_local $W/tune.txt 2>/dev/null | grep -vc driver)"
# Vulkan: the tile the tuning chose, and per-dispatch GPU times (VkQueryPool
# timestamps around each recorded step), the slowest first, with the
# total GPU time per run against the latency the host sees.
echo "Vulkan tuning: $(cat $W/vkcache/*.tune 2>/dev/null | tr '\n' ' ')"
for m in mobilenet_v2.onnx resnet18.onnx squeezenet1_1.onnx face_detection_short_range.tflite; do
  [ -f $W/models/$m ] || continue
  P=$OUT_DIR/vk_profile_${m%%.*}.tsv
  echo "Vulkan $m: $(rill bench $W/models/$m --backend=vulkan --runs=$RUNS $VK --backend_option=vulkan.gpu_profile=$P 2>&1 | tail -1 | sed 's/.*runs: //')"
  head -3 $P; grep '^# total' $P; echo "  steps: $(grep -vc '^#' $P)"
  grep -v '^#' $P | sort -t$'\t' -k2 -g -r | head -6
done
# The Vulkan recording's choices, A/B (fp32, medians of $RUNS, ms): the
# default (depthwise fused into the project GEMM, split over K where a layer
# has few tiles), the depthwise as a dispatch of its own, and no split over
# K (compute_units=1, which also gives every layer the tile of the
# many-tiles class).
echo "Vulkan A/B (ms): default | fuse_depthwise=false | compute_units=1"
for m in mobilenet_v2.onnx squeezenet1_1.onnx resnet18.onnx resnet50.onnx; do
  [ -f $W/models/$m ] || continue
  med() { rill bench $W/models/$m --backend=vulkan --runs=$RUNS $VK "$@" 2>&1 | tail -1 | sed 's/.*median \([0-9.]*\) ms.*/\1/'; }
  echo "  $m: $(med) | $(med --backend_option=vulkan.fuse_depthwise=false) | $(med --backend_option=vulkan.compute_units=1)"
done
# OpenCL's layout and launch choices, A/B (fp32, medians of $RUNS, ms):
# the default (NC4HW4 storage for 1x1 and depthwise convs on maps of 28x28
# and more, SqueezeNet's expand pairs as one launch), NC4HW4 off (a
# threshold over any map), the pairs off, Winograd F(2x2, 3x3) on, a
# clFlush after every launch and after every 4th (default: none), no GEMM
# split over K (each split costs a reduction launch).
{
echo "OpenCL A/B (ms): default | nc4_min_pixels=1000000000 (NC4HW4 off) | pair_convs=0 | winograd=1" \
     "| flush_every=1 | flush_every=4 | split_min_k=100000 (no split K)"
for m in mobilenet_v2.onnx squeezenet1_1.onnx resnet18.onnx resnet50.onnx face_detection_short_range.tflite \
         face_detection_full_range.tflite selfie_segmentation.tflite; do
  [ -f $W/models/$m ] || continue
  med() { rill bench $W/models/$m --backend=opencl --runs=$RUNS "$@" 2>&1 | tail -1 | sed 's/.*median \([0-9.]*\) ms.*/\1/'; }
  echo "  $m: $(med) | $(med --backend_option=opencl.nc4_min_pixels=1000000000) | $(med --backend_option=opencl.pair_convs=0)" \
       "| $(med --backend_option=opencl.winograd=1) | $(med --backend_option=opencl.flush_every=1)" \
       "| $(med --backend_option=opencl.flush_every=4) | $(med --backend_option=opencl.split_min_k=100000)"
done
} | tee $W/opencl_ab.txt
# OpenCL per-command GPU times (opencl.gpu_profile: profiling events): the
# kernels' sum against the span from the first command's start to the last
# one's end (the difference: the GPU idle between launches), the slowest
# commands; SqueezeNet also with its expand pairs off.
for m in squeezenet1_1.onnx mobilenet_v2.onnx resnet18.onnx; do
  [ -f $W/models/$m ] || continue
  for o in "" "--backend_option=opencl.pair_convs=0"; do
    [ -n "$o" ] && [ $m != squeezenet1_1.onnx ] && continue
    P=$W/cl_profile_${m%%.*}${o:+_unpaired}.tsv
    echo "OpenCL $m ${o}: $(rill bench $W/models/$m --backend=opencl --runs=$RUNS $o --backend_option=opencl.gpu_profile=$P 2>&1 | tail -1 | sed 's/.*runs: //')"
    sed -n 2p $P; grep '^# total' $P
    grep -v '^#' $P | sort -t$'\t' -k2 -g -r | head -6
  done
done
# Where the time goes: per-layer times on OpenCL (each layer finished on the
# device before the next: launch + execution), the slowest first.
for m in resnet18.onnx mobilenet_v2.onnx squeezenet1_1.onnx; do
  echo "per-layer, $m on OpenCL (ms, slowest 8):"
  rill bench $W/models/$m --backend=opencl --runs=20 --profile 2>&1 | tail -n +2 | sort -k4 -n -r | head -8
done
# Winograd per layer: each conv Winograd takes in ResNet-18 and -50, its
# time (launch + execution, as above) on the GEMM and on Winograd.
for m in resnet18.onnx resnet50.onnx; do
  [ -f $W/models/$m ] || continue
  echo "per-layer Winograd, $m on OpenCL (layer output: GEMM ms | Winograd ms):"
  rill bench $W/models/$m --backend=opencl --runs=20 --profile 2>&1 | grep CONV_2D > $W/gemm.txt
  rill bench $W/models/$m --backend=opencl --runs=20 --profile --backend_option=opencl.winograd=1 2>&1 |
    grep conv2d_winograd > $W/wino.txt
  awk 'NR==FNR {g[$1]=$4; next} ($1 in g) {printf "  %s %s: %s | %s\n", $1, $8, g[$1], $4}' $W/gemm.txt $W/wino.txt
done
# The OpenCL layout measurement: the backend's NHWC buffer kernels against
# NC4HW4 buffers and RGBA images (GPU time per launch).
if [ -x "$D/opencl_layout_bench" ]; then
  $W/lib/ld-linux-x86-64.so.2 --library-path "$LIBS" "$D/opencl_layout_bench" --runs=$RUNS | tee $OUT_DIR/opencl_layout.md
fi
# Which kernels ran (fp16 shows _cl_f16 where the device has cl_khr_fp16).
rill info $W/models/face_detection_short_range.tflite --backend=opencl --precision=fp16 2>&1 | sed -n '8,9p'
rill info $W/models/resnet18.onnx --backend=opencl 2>&1 | grep -c "_cl" | sed 's/^/resnet18 layers on OpenCL: /' 
# The OpenCL A/B again, last (the tail of a long log keeps it).
cat $W/opencl_ab.txt
