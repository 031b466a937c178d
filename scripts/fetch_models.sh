#!/usr/bin/env bash
# Fetches the real models and media Rill's inference tests use (DESIGN.md §6).
# Idempotent: anything already in place is skipped, so a second run costs
# nothing. Sources are the two reachable registries only: npm (MediaPipe
# models) and Debian (astronaut.png from python3-skimage, OpenCV samples from
# opencv-doc, PyTorch for the ONNX exports).
#
#   third_party/models/*.tflite   MediaPipe face/selfie/hands/pose models; the
#                                 trackers' palm/pose detectors, face landmarks
#                                 (with attention), hand_recrop and the face
#                                 geometry metadata, cut out of the packages'
#                                 packed assets and checked by sha256
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

# The @mediapipe/* npm versions used (pinned: the hashes below are of these).
declare -A PACKAGE_VERSIONS=(
  [face_detection]=0.4.1657300184
  [selfie_segmentation]=0.1.1675465747
  [hands]=0.4.1675469240
  [pose]=0.5.1675469404
  [face_mesh]=0.4.1657299874
  [holistic]=0.5.1675471629
)

# package -> the .tflite files it ships (checked against the npm tarballs).
declare -A PACKAGE_MODELS=(
  [face_detection]="face_detection_short_range face_detection_full_range face_detection_full_range_sparse"
  [selfie_segmentation]="selfie_segmentation selfie_segmentation_landscape"
  [hands]="hand_landmark_lite hand_landmark_full"
  [pose]="pose_landmark_lite pose_landmark_full pose_landmark_heavy"
)

# package -> the files packed inside its *_solution_packed_assets.data; the
# byte range of each is read from *_solution_packed_assets_loader.js.
declare -A PACKED_ASSETS=(
  [hands]="palm_detection_full.tflite palm_detection_lite.tflite handedness.txt"
  [pose]="pose_detection.tflite"
  [face_mesh]="face_landmark.tflite face_landmark_with_attention.tflite geometry_pipeline_metadata_landmarks.binarypb"
  [holistic]="hand_recrop.tflite"
)
# sha256 of each packed asset (of the versions above).
declare -A PACKED_SHA256=(
  [palm_detection_full.tflite]=2f25e740121983f68ffc05f99991d524dc0ea812134f6316a26125816941ee85
  [palm_detection_lite.tflite]=e9a4aaddf90dda56a87235303cf00e4c2d3fb28725f68fd88772997dac905c18
  [handedness.txt]=3b82f0246870fec456c8632d455a4e1d5648d2836a7a513a271781144f525916
  [pose_detection.tflite]=a63c614bef30d35947f13be361820b1e4e3bec9cfeebf4d11216a18373108e85
  [face_landmark.tflite]=c603fa6149219a3e9487dc9abd7a0c24474c77263273d24868378cdf40aa26d1
  [face_landmark_with_attention.tflite]=883b7411747bac657c30c462d305d312e9dec6adbf8b85e2f5d8d722fca9455d
  [geometry_pipeline_metadata_landmarks.binarypb]=bdbcda96dfcb7da883da124aaa2c55dee49770d934f0fcc71747f8c21bdc75b4
  [hand_recrop.tflite]=67d996ce96f9d36fe17d2693022c6da93168026ab2f028f9e2365398d8ac7d5d
)

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Unpacks @mediapipe/$1 (the pinned version) into $TMP/$1/package, once.
unpack_package() {
  local pkg=$1 ver=${PACKAGE_VERSIONS[$1]}
  [ -d "$TMP/$pkg/package" ] && return 0
  echo "fetch_models: npm pack @mediapipe/$pkg@$ver"
  (cd "$TMP" && npm pack --silent "@mediapipe/$pkg@$ver" >/dev/null)
  mkdir -p "$TMP/$pkg"
  tar xzf "$TMP/mediapipe-$pkg-$ver.tgz" -C "$TMP/$pkg"
}

for pkg in "${!PACKAGE_MODELS[@]}"; do
  need=0
  for m in ${PACKAGE_MODELS[$pkg]}; do
    [ -s "$MODELS_DIR/$m.tflite" ] || need=1
  done
  [ "$need" = 0 ] && continue
  unpack_package "$pkg"
  for m in ${PACKAGE_MODELS[$pkg]}; do
    if [ ! -s "$MODELS_DIR/$m.tflite" ]; then
      install -m 0644 "$TMP/$pkg/package/$m.tflite" "$MODELS_DIR/$m.tflite"
    fi
  done
done

# Packed assets: the loader lists each file as
#   {"filename": "/third_party/mediapipe/modules/.../NAME", "start": N, "end": M}
# with N and M byte offsets into the .data file.
for pkg in "${!PACKED_ASSETS[@]}"; do
  need=0
  for f in ${PACKED_ASSETS[$pkg]}; do
    [ -s "$MODELS_DIR/$f" ] || need=1
  done
  [ "$need" = 0 ] && continue
  unpack_package "$pkg"
  loader="$TMP/$pkg/package/${pkg}_solution_packed_assets_loader.js"
  data="$TMP/$pkg/package/${pkg}_solution_packed_assets.data"
  for f in ${PACKED_ASSETS[$pkg]}; do
    [ -s "$MODELS_DIR/$f" ] && continue
    entry=$(grep -o '"filename": *"[^"]*/'"$f"'", *"start": *[0-9]*, *"end": *[0-9]*' "$loader" | head -1 || true)
    if [ -z "$entry" ]; then
      echo "fetch_models: $f is not listed in $(basename "$loader") of @mediapipe/$pkg" >&2
      exit 1
    fi
    start=$(echo "$entry" | sed 's/.*"start": *\([0-9]*\).*/\1/')
    end=$(echo "$entry" | sed 's/.*"end": *\([0-9]*\).*/\1/')
    dd if="$data" of="$TMP/$f" bs=1M iflag=skip_bytes,count_bytes skip="$start" count="$((end - start))" status=none
    got=$(sha256sum "$TMP/$f" | cut -d' ' -f1)
    if [ "$got" != "${PACKED_SHA256[$f]}" ]; then
      echo "fetch_models: sha256 mismatch for $f (bytes $start..$end of @mediapipe/$pkg@${PACKAGE_VERSIONS[$pkg]}):" >&2
      echo "  expected ${PACKED_SHA256[$f]}" >&2
      echo "  got      $got" >&2
      exit 1
    fi
    install -m 0644 "$TMP/$f" "$MODELS_DIR/$f"
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
