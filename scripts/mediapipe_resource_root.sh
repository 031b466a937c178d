#!/bin/bash
# Lays the models that scripts/fetch_models.sh fetched from the @mediapipe/*
# npm packages out under DIR as MediaPipe's repository names them
# (DIR/mediapipe/modules/<module>/<file>), so MediaPipe's own graphs find
# them with `rill run GRAPH --resource_root=DIR`. The files are symbolic
# links into third_party/models (nothing is copied).
#
#   scripts/mediapipe_resource_root.sh /tmp/mp_resources
#   rill run mediapipe/graphs/hand_tracking/hand_tracking_desktop_live.pbtxt \
#       --resource_root=/tmp/mp_resources --input=third_party/media/Megamind.avi
set -euo pipefail
if [[ $# -ne 1 || $1 == -h || $1 == --help ]]; then
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
  echo "usage: $0 DIR" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
models=$root/third_party/models
dest=$1
# module  file  (the file's name in third_party/models is the same)
layout="
face_detection face_detection_short_range.tflite
face_detection face_detection_full_range.tflite
face_detection face_detection_full_range_sparse.tflite
face_landmark face_landmark.tflite
face_landmark face_landmark_with_attention.tflite
palm_detection palm_detection_lite.tflite
palm_detection palm_detection_full.tflite
hand_landmark hand_landmark_lite.tflite
hand_landmark hand_landmark_full.tflite
hand_landmark handedness.txt
pose_detection pose_detection.tflite
pose_landmark pose_landmark_lite.tflite
pose_landmark pose_landmark_full.tflite
pose_landmark pose_landmark_heavy.tflite
selfie_segmentation selfie_segmentation.tflite
selfie_segmentation selfie_segmentation_landscape.tflite
holistic_landmark hand_recrop.tflite
"
missing=0
while read -r module file; do
  [[ -z $module ]] && continue
  if [[ ! -f $models/$file ]]; then
    echo "missing: $models/$file (run scripts/fetch_models.sh)" >&2
    missing=1
    continue
  fi
  mkdir -p "$dest/mediapipe/modules/$module"
  ln -sfn "$models/$file" "$dest/mediapipe/modules/$module/$file"
done <<< "$layout"
[[ $missing -eq 0 ]] || exit 1
echo "models laid out under $dest/mediapipe/modules (use --resource_root=$dest)"
