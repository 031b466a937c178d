#!/bin/bash
# Runs MediaPipe's own graph files on Rill, unchanged, from a MediaPipe
# checkout the user points at (not part of CI: MediaPipe's files are not in
# this repository):
#   1. `rill validate --report` over the CPU graphs and modules of the six
#      solutions whose models ship in the @mediapipe/* npm packages (face
#      detection, face mesh, hand tracking, pose tracking, holistic, selfie
#      segmentation);
#   2. each top-level desktop graph of those solutions run on a test video
#      with the npm models laid out as MediaPipe's repository names them
#      (scripts/mediapipe_resource_root.sh), next to Rill's own graph of the
#      same name under graphs/; their result streams are compared timestamp
#      by timestamp (scripts/compare_dumps.py) and so are the last drawn
#      frames.
#
# usage: scripts/mediapipe_compat.sh MEDIAPIPE_CHECKOUT [FRAMES] [VIDEO]
#   FRAMES  frames of VIDEO per graph (default 120)
#   VIDEO   default third_party/media/Megamind.avi
# Exits 1 when a graph does not validate, a run fails, or outputs differ.
set -uo pipefail
if [[ $# -lt 1 || $1 == -h || $1 == --help ]]; then
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
mp=$(cd "$1" && pwd) || exit 2
frames=${2:-120}
video=${3:-$root/third_party/media/Megamind.avi}
if [[ ! -d $mp/mediapipe/modules || ! -d $mp/mediapipe/graphs ]]; then
  echo "$mp is not a MediaPipe checkout (no mediapipe/modules, mediapipe/graphs)" >&2
  exit 2
fi
cd "$root"
bazel build //tools:rill >/dev/null 2>&1 || { echo "bazel build //tools:rill failed" >&2; exit 1; }
rill=$root/bazel-bin/tools/rill
work=$(mktemp -d /tmp/mediapipe_compat.XXXXXX)
scripts/mediapipe_resource_root.sh "$work/resources" || exit 1
status=0

solutions="face_detection face_mesh hand_tracking pose_tracking holistic_tracking selfie_segmentation"
modules="face_detection face_landmark palm_detection hand_landmark pose_detection pose_landmark holistic_landmark selfie_segmentation"
dirs=()
for s in $solutions; do dirs+=("$mp/mediapipe/graphs/$s"); done
for m in $modules; do dirs+=("$mp/mediapipe/modules/$m"); done
echo "== rill validate --report (CPU graphs and modules of: $solutions)"
# The GPU variants need GPU calculators Rill does not have: leave them out.
files=$(find "${dirs[@]}" -name '*.pbtxt' ! -name '*gpu*' ! -name '*_mobile*' | sort)
report=$("$rill" validate --report $files)
echo "$report"
# Three files MediaPipe cannot validate either: two face detection modules
# that only work with a caller's options naming a model (MediaPipe's
# InferenceCalculatorCpu contract refuses a node with neither a model_path
# nor a MODEL side packet, as Rill's does), and a side-model face landmark
# module whose subgraph types (FaceDetectionShortRangeSideModelCpu,
# FaceLandmarkSideModelCpu) are defined nowhere in MediaPipe's tree.
expected="modules/face_detection/face_detection.pbtxt
modules/face_detection/face_detection_without_roi.pbtxt
modules/face_landmark/face_landmark_front_side_model_cpu.pbtxt"
while IFS= read -r line; do
  [[ $line == *": INVALID"* ]] || continue
  file=${line%%: INVALID*}
  file=${file#"$mp/mediapipe/"}
  if grep -qxF "$file" <<< "$expected"; then
    echo "  (expected: MediaPipe refuses $file as well)"
  else
    echo "  UNEXPECTED: $file does not validate"
    status=1
  fi
done <<< "$report"


# MediaPipe's graph (under mediapipe/graphs)  Rill's (under graphs/)
# STREAMS (MediaPipe's name=Rill's name when they differ)
pairs="
face_detection/face_detection_desktop_live face_detection/face_detection_desktop_live face_detections
face_mesh/face_mesh_desktop_live face_mesh/face_mesh_desktop_live multi_face_landmarks,face_detections
hand_tracking/hand_tracking_desktop_live hand_tracking/hand_tracking_desktop_live landmarks=hand_landmarks,handedness,multi_palm_detections
pose_tracking/pose_tracking_cpu pose_tracking/pose_tracking_cpu pose_landmarks,segmentation_mask
holistic_tracking/holistic_tracking_cpu holistic_tracking/holistic_tracking_cpu pose_landmarks,face_landmarks,left_hand_landmarks,right_hand_landmarks
selfie_segmentation/selfie_segmentation_cpu selfie_segmentation/selfie_segmentation_desktop segmentation_mask
"
while read -r graph rill_graph streams; do
  [[ -z $graph ]] && continue
  echo "== $graph ($frames frames of $(basename "$video"); Rill's graphs/$rill_graph.pbtxt beside it)"
  name=$(basename "$graph")
  mp_dump=() r_dump=()
  IFS=, read -ra list <<< "$streams"
  for s in "${list[@]}"; do
    mp_dump+=("--dump_stream=${s%%=*}")
    r_dump+=("--dump_stream=${s#*=}")
  done
  # One frame in flight: both graphs then see every frame (their
  # FlowLimiters drop none), so their outputs can be compared frame by frame.
  common=(--input="$video" --max_frames="$frames" --max_in_flight=1 --print=0)
  # Subgraph types from every folder of the checkout's mediapipe/ tree.
  if ! "$rill" run "$mp/mediapipe/graphs/$graph.pbtxt" \
      --subgraph_path="$mp/mediapipe" --resource_root="$work/resources" "${common[@]}" "${mp_dump[@]}" \
      --output="$work/$name.mediapipe.png" > "$work/$name.mediapipe.txt" \
      2> "$work/$name.mediapipe.log"; then
    echo "MediaPipe's $graph.pbtxt: run FAILED:"; tail -5 "$work/$name.mediapipe.log"
    status=1
    continue
  fi
  grep -ho "frames: [0-9].*" "$work/$name.mediapipe".{txt,log} | sed 's/^/  MediaPipe graph: /'
  if ! "$rill" run "graphs/$rill_graph.pbtxt" "${common[@]}" "${r_dump[@]}" \
      --output="$work/$name.rill.png" > "$work/$name.rill.txt" \
      2> "$work/$name.rill.log"; then
    echo "Rill's graphs/$rill_graph.pbtxt: run FAILED:"; tail -5 "$work/$name.rill.log"
    status=1
    continue
  fi
  grep -ho "frames: [0-9].*" "$work/$name.rill".{txt,log} | sed 's/^/  Rill graph:      /'
  python3 scripts/compare_dumps.py "$work/$name.mediapipe.txt" "$work/$name.rill.txt" \
      "${list[@]}" | sed 's/^/  /' || status=1
  if cmp -s "$work/$name.mediapipe.png" "$work/$name.rill.png"; then
    echo "  last drawn frame: identical"
  else
    echo "  last drawn frame: DIFFERS ($work/$name.mediapipe.png vs $work/$name.rill.png)"
    status=1
  fi
done <<< "$pairs"
echo "outputs in $work"
exit $status
