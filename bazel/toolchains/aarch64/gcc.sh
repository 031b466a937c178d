#!/bin/sh
# Debian's aarch64-linux-gnu-gcc links with --as-needed by default (its link
# spec, unlike the native gcc's), which drops the shared libraries of
# calculators that register themselves and are referenced by name only
# (Bazel links tests against one .so per library). --no-as-needed must come
# before the libraries, which a toolchain feature's flags do not (they
# follow them), hence this wrapper. Compiles ignore the -Wl option.
exec /usr/bin/aarch64-linux-gnu-gcc -Wl,--no-as-needed "$@"
