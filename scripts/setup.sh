#!/usr/bin/env bash
# Installs everything Rill needs on a fresh Debian 12 machine. Idempotent:
# packages already present are skipped, so running it again costs seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBIAN_PACKAGES=(
  bazel-bootstrap g++ protobuf-compiler libprotobuf-dev libabsl-dev
  libgoogle-glog-dev libgflags-dev libgtest-dev libgmock-dev
  libopencv-dev opencl-headers ocl-icd-opencl-dev pocl-opencl-icd
  libvulkan-dev mesa-vulkan-drivers libflatbuffers-dev flatbuffers-compiler
  libonnx-dev gstreamer1.0-tools gstreamer1.0-plugins-base graphviz
  clang-14 libclang-rt-14-dev  # libFuzzer + ASan for scripts/fuzz.sh
)

missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The aarch64 cross build (bazel --config=aarch64, .bazelrc) and its tests
# under emulation: Debian's cross g++, qemu-user, and the arm64 system
# libraries as multiarch packages beside the amd64 ones. Three cannot be
# installed that way and are handled below: libonnx-dev:arm64 (its
# libonnxifi:arm64 ships /usr/lib/libonnxifi.so, a path its amd64 twin owns),
# libgoogle-glog-dev:arm64 and libgflags-dev:arm64 (libgflags2.2 is not
# Multi-Arch: same, so apt would remove the amd64 one), and the OpenCV -dev
# packages beyond core/imgproc (they pull -dev packages such as libgdal-dev
# that are not co-installable). Their headers are architecture-independent
# and come from the amd64 -dev packages; the arm64 runtime libraries come
# from multiarch (OpenCV, ONNX) or, for gflags and glog, from the arm64 .debs
# unpacked into /opt/rill-aarch64; /opt/rill-aarch64/lib holds the link-time
# names (libfoo.so) the -dev packages would have provided.
ARM64_PACKAGES=(
  g++-aarch64-linux-gnu qemu-user
  libabsl-dev:arm64 libprotobuf-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64
  libopencv-core-dev:arm64 libopencv-imgproc-dev:arm64 libopencv-imgcodecs406:arm64
  libopencv-videoio406:arm64 libopencv-highgui406:arm64 libopencv-dnn406:arm64
  libflatbuffers-dev:arm64 libonnx1:arm64 ocl-icd-opencl-dev:arm64 libvulkan-dev:arm64
)
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "setup: adding the arm64 architecture (multiarch)"
  $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -qq
fi
missing=()
for p in "${ARM64_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
ARM64_ROOT=/opt/rill-aarch64
ARM64_LIB=/usr/lib/aarch64-linux-gnu
if [ ! -e "$ARM64_ROOT/lib/libglog.so" ] || [ ! -e "$ARM64_ROOT/lib/libopencv_videoio.so" ]; then
  echo "setup: unpacking arm64 gflags and glog into $ARM64_ROOT"
  debs=$(mktemp -d)
  (cd "$debs" && chmod 777 . && apt-get download -qq libgflags2.2:arm64 libgoogle-glog0v6:arm64)
  $SUDO mkdir -p "$ARM64_ROOT/lib"
  for d in "$debs"/*.deb; do $SUDO dpkg-deb -x "$d" "$ARM64_ROOT"; done
  rm -rf "$debs"
  for f in "$ARM64_ROOT"/usr/lib/aarch64-linux-gnu/*; do $SUDO ln -sf "$f" "$ARM64_ROOT/lib/"; done
  $SUDO ln -sf "$ARM64_ROOT/usr/lib/aarch64-linux-gnu/libglog.so.1" "$ARM64_ROOT/lib/libglog.so"
  $SUDO ln -sf "$ARM64_ROOT/usr/lib/aarch64-linux-gnu/libgflags.so.2.2" "$ARM64_ROOT/lib/libgflags.so"
  for l in imgcodecs videoio highgui dnn; do
    $SUDO ln -sf "$ARM64_LIB/libopencv_$l.so.406" "$ARM64_ROOT/lib/libopencv_$l.so"
  done
  $SUDO ln -sf "$ARM64_LIB/libonnx_proto.so.1" "$ARM64_ROOT/lib/libonnx_proto.so"
fi

if ! command -v npm >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi

# Models and media (each fetcher skips what is already there).
for f in scripts/fetch_*.sh; do
  [ -e "$f" ] && bash "$f"
done
echo "setup: ok"
