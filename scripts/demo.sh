#!/usr/bin/env bash
# The main job: installs what is missing, builds `rill`, then runs face
# detection (MediaPipe's short-range model on Rill's engine) on the sample
# video and on a portrait, writing annotated outputs and a summary of
# per-frame latency and throughput. Outputs land in ./out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bazel build //tools:rill 2>&1 | grep -E '^(ERROR|INFO: Build)' || true
RILL=bazel-bin/tools/rill
MEDIA=third_party/media
mkdir -p out

echo "== face detection on $MEDIA/Megamind.avi -> out/faces.mp4"
"$RILL" run graphs/demo/face_detection_file.pbtxt --input="$MEDIA/Megamind.avi" \
  --output=out/faces.mp4 --stats --trace=out/faces_trace.json

echo "== face detection on $MEDIA/astronaut.png -> out/astronaut_faces.png (detections as JSON)"
"$RILL" run graphs/demo/face_detection_file.pbtxt --input="$MEDIA/astronaut.png" \
  --output=out/astronaut_faces.png --dump_stream=face_detections

echo "== the same as one JSON line (for scripts)"
"$RILL" run graphs/demo/face_detection_file.pbtxt --input="$MEDIA/Megamind.avi" --json

echo "== framework demo: rill validate / run / dot on graphs/demo/hello_pipeline.pbtxt"
"$RILL" validate graphs/demo/*.pbtxt
"$RILL" run graphs/demo/hello_pipeline.pbtxt
"$RILL" dot graphs/demo/face_detection_file.pbtxt > out/face_detection_file.dot
if command -v dot >/dev/null; then dot -Tsvg out/face_detection_file.dot > out/face_detection_file.svg; fi
echo "outputs: $(ls out | tr '\n' ' ')"
