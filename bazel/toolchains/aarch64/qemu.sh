#!/usr/bin/env bash
# --run_under wrapper of `bazel test --config=aarch64`: runs an aarch64
# binary on this x86-64 machine with Debian's qemu-user. `-cpu max` is an
# ARMv8.x CPU with the fp16 arithmetic extension (HWCAP_ASIMDHP), so both
# the NEON and the NEON fp16 kernels run. The loader and libc are the
# multiarch libc6:arm64 ones in /lib (no -L): qemu's usual
# `-L /usr/aarch64-linux-gnu` would pair the cross package's ld.so
# (libc6-arm64-cross, an older 2.36 build) with the multiarch libc.so.6,
# and such a process hangs in its first pthread_create. LD_LIBRARY_PATH adds
# the libraries setup.sh unpacked beside the multiarch ones
# (/opt/rill-aarch64). Without qemu the test fails, loudly.
set -euo pipefail
# Not an aarch64 ELF (a test script, which runs its aarch64 binaries through
# this wrapper itself): run it as it is.
if [ "$(od -An -tx1 -j18 -N2 "$1" 2>/dev/null | tr -d ' ')" != b700 ]; then
  exec "$@"
fi
if ! command -v qemu-aarch64 >/dev/null; then
  echo "FATAL: qemu-aarch64 not found: aarch64 tests run under Debian's qemu-user (scripts/setup.sh installs it)" >&2
  exit 127
fi
exec qemu-aarch64 -cpu max \
  -E LD_LIBRARY_PATH=/opt/rill-aarch64/lib "$@"
