#!/bin/bash
# Packs bazel-bin/benchmarks/framework_overhead, gst-launch-1.0, GStreamer's
# core elements plugin and every shared library they load (with the dynamic
# loader) into one folder, so the benchmark runs unchanged on another x86-64
# Linux machine (a quiet many-core box gives steadier figures than a shared
# build machine):
#   bazel build //benchmarks:framework_overhead
#   benchmarks/bundle.sh bazel-benchbundle
#   bazel-benchbundle/run.sh [framework_overhead flags]
set -euo pipefail
out=${1:?usage: benchmarks/bundle.sh OUTDIR}
rm -rf "$out"
mkdir -p "$out/lib" "$out/gst"
cp bazel-bin/benchmarks/framework_overhead "$out/"
cp "$(command -v gst-launch-1.0)" "$out/"
core=$(find /usr/lib -name libgstcoreelements.so | head -1)
cp "$core" "$out/gst/"
for f in "$out/framework_overhead" "$out/gst-launch-1.0" "$out/gst/libgstcoreelements.so"; do
  ldd "$f" | awk '/=>/ {print $3}'
done | sort -u | while read -r lib; do cp -L "$lib" "$out/lib/"; done
cp -L /lib64/ld-linux-x86-64.so.2 "$out/lib/"
chmod -R u+w "$out"
cat >"$out/gst.sh" <<'SH'
#!/bin/sh
D=$(cd "$(dirname "$0")" && pwd)
export GST_PLUGIN_SYSTEM_PATH_1_0="$D/gst" GST_PLUGIN_PATH_1_0= GST_REGISTRY_FORK=no
export GST_REGISTRY_1_0="${TMPDIR:-/tmp}/rill-bench-gst-registry.bin"
exec "$D/lib/ld-linux-x86-64.so.2" --library-path "$D/lib" "$D/gst-launch-1.0" "$@"
SH
cat >"$out/run.sh" <<'SH'
#!/bin/sh
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/lib/ld-linux-x86-64.so.2" --library-path "$D/lib" "$D/framework_overhead" --gst="$D/gst.sh" "$@"
SH
chmod +x "$out/gst.sh" "$out/run.sh"
echo "bundle in $out ($(du -sh "$out" | cut -f1)); run $out/run.sh"
