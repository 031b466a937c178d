#!/usr/bin/env bash
# Prints the Bazel output base of this checkout's clang ASan build
# (--config=asan): one per checkout, keyed by its path, shared by
# scripts/test.sh's ASan run and scripts/fuzz.sh. Actions still come from the
# shared disk cache (~/.cache/rill-bazel-disk), so a fresh clone reuses them.
cd "$(dirname "$0")/.."
echo "$HOME/.cache/rill-bazel-asan/$(printf %s "$PWD" | md5sum | cut -c1-12)"
