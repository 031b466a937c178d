#!/usr/bin/env bash
# The main job: installs what is missing, builds `rill`, then validates and
# runs the demo graphs, and measures the framework against GStreamer.
# Outputs land in ./out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bazel build //tools:rill //benchmarks:framework_overhead 2>&1 | grep -E '^(ERROR|INFO: Build)' || true
RILL=bazel-bin/tools/rill
mkdir -p out

echo "== rill validate graphs/demo/*.pbtxt"
"$RILL" validate graphs/demo/*.pbtxt

echo "== rill run graphs/demo/hello_pipeline.pbtxt"
"$RILL" run graphs/demo/hello_pipeline.pbtxt --stats --trace=out/hello_pipeline_trace.json

echo "== rill dot graphs/demo/hello_pipeline.pbtxt > out/hello_pipeline.dot"
"$RILL" dot graphs/demo/hello_pipeline.pbtxt > out/hello_pipeline.dot
if command -v dot >/dev/null; then dot -Tsvg out/hello_pipeline.dot > out/hello_pipeline.svg; fi

echo "== framework overhead: Rill vs GStreamer (short run; docs/benchmarks.md has the full table)"
bazel-bin/benchmarks/framework_overhead --packets=50000 --repeats=1 --chains=1,10 --fanouts=4
