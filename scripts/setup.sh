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

if ! command -v npm >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi

# Models and media (each fetcher skips what is already there).
for f in scripts/fetch_*.sh; do
  [ -e "$f" ] && bash "$f"
done
echo "setup: ok"
