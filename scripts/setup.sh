#!/usr/bin/env bash
# Installs everything Rill needs on a fresh Debian 12 machine. Idempotent:
# packages already present are skipped, so running it again costs seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBIAN_PACKAGES=(
  bazel-bootstrap g++ protobuf-compiler libprotobuf-dev libabsl-dev
  libgoogle-glog-dev libgflags-dev libgtest-dev libgmock-dev
  libopencv-dev opencl-headers ocl-icd-opencl-dev pocl-opencl-icd
  libvulkan-dev mesa-vulkan-drivers glslc libflatbuffers-dev flatbuffers-compiler
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
# libraries as multiarch packages beside the amd64 ones. Some cannot be
# installed that way without apt removing their amd64 twins (it would: never
# let it): libgflags2.2 (not Multi-Arch: same; glog depends on it),
# libgdal32 and three of its dependencies (files outside the multiarch
# directory), which OpenCV's imgcodecs and videoio need, and the -dev
# packages that depend on those (OpenCV's beyond core/imgproc, glog's,
# gflags', libonnx-dev through libonnxifi). For those: the headers are
# architecture-independent and come from the amd64 -dev packages; the arm64
# runtime libraries (EXTRACTED below) are unpacked from their .debs into
# /opt/rill-aarch64 (not registered with dpkg), their own dependencies come
# from multiarch, and /opt/rill-aarch64/lib holds every unpacked library plus
# the link-time names (libfoo.so) the -dev packages would have provided. The
# toolchain links with -L/-rpath-link there; qemu.sh adds it to the loader's
# path. On a real ARM board none of this applies: its own packages install.
ARM64_PACKAGES=(
  g++-aarch64-linux-gnu qemu-user
  libabsl-dev:arm64 libprotobuf-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64
  libopencv-core-dev:arm64 libopencv-imgproc-dev:arm64 libopencv-highgui406:arm64
  libopencv-dnn406:arm64 libflatbuffers-dev:arm64 libonnx1:arm64
  ocl-icd-opencl-dev:arm64 libvulkan-dev:arm64
)
ARM64_EXTRACTED=(
  libgflags2.2 libgoogle-glog0v6 libopencv-imgcodecs406 libopencv-videoio406
  libgdal32 libogdi4.1 libhdf4-0-alt libarmadillo11 gdal-plugins
)
ARM64_ROOT=/opt/rill-aarch64
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "setup: adding the arm64 architecture (multiarch)"
  $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -qq
fi
if [ ! -e "$ARM64_ROOT/lib/libopencv_videoio.so" ] || [ ! -e "$ARM64_ROOT/lib/libglog.so" ]; then
  # The unpacked packages' own dependencies, from multiarch.
  extracted_re=$(printf '%s:arm64\n' "${ARM64_EXTRACTED[@]}")
  while read -r d; do ARM64_PACKAGES+=("$d"); done < <(
    apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
      "${ARM64_EXTRACTED[@]/%/:arm64}" | awk '$1 == "Depends:" {print $2}' | grep -v '^<' | sort -u |
      grep -vxF -f <(printf '%b' "$extracted_re"))
fi
missing=()
for p in "${ARM64_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  # Refuse any plan that removes a package (an amd64 twin).
  if apt-get install -s --no-install-recommends "${missing[@]}" 2>/dev/null | grep -q '^Remv'; then
    echo "setup: installing the arm64 packages would remove others; not doing it" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ! -e "$ARM64_ROOT/lib/libopencv_videoio.so" ] || [ ! -e "$ARM64_ROOT/lib/libglog.so" ]; then
  echo "setup: unpacking ${ARM64_EXTRACTED[*]} (arm64) into $ARM64_ROOT"
  debs=$(mktemp -d)
  chmod 777 "$debs"
  (cd "$debs" && apt-get download -qq "${ARM64_EXTRACTED[@]/%/:arm64}")
  $SUDO mkdir -p "$ARM64_ROOT/lib"
  for d in "$debs"/*.deb; do $SUDO dpkg-deb -x "$d" "$ARM64_ROOT"; done
  rm -rf "$debs"
  for f in "$ARM64_ROOT"/usr/lib/aarch64-linux-gnu/lib*.so* "$ARM64_ROOT"/usr/lib/lib*.so*; do
    $SUDO ln -sf "$f" "$ARM64_ROOT/lib/"
  done
  A="$ARM64_ROOT/usr/lib/aarch64-linux-gnu" M=/usr/lib/aarch64-linux-gnu
  $SUDO ln -sf "$A/libglog.so.1" "$ARM64_ROOT/lib/libglog.so"
  $SUDO ln -sf "$A/libgflags.so.2.2" "$ARM64_ROOT/lib/libgflags.so"
  $SUDO ln -sf "$A/libopencv_imgcodecs.so.406" "$ARM64_ROOT/lib/libopencv_imgcodecs.so"
  $SUDO ln -sf "$A/libopencv_videoio.so.406" "$ARM64_ROOT/lib/libopencv_videoio.so"
  $SUDO ln -sf "$M/libopencv_highgui.so.406" "$ARM64_ROOT/lib/libopencv_highgui.so"
  $SUDO ln -sf "$M/libopencv_dnn.so.406" "$ARM64_ROOT/lib/libopencv_dnn.so"
  $SUDO ln -sf "$M/libonnx_proto.so.1" "$ARM64_ROOT/lib/libonnx_proto.so"
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
