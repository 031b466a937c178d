#!/bin/bash
# Drives bazel-bin/tools/rill: exit codes and messages of validate on a good
# and a bad graph, validate --report over tools/testdata/report, dot's
# output, calculators, run, help and usage errors.
# Runs from the runfiles root (bazel test) or the repository root after
# `bazel build //tools:rill //tests/plugin:libtest_plugin.so
# //tests/plugin:libclashing_plugin.so`.
set -u
if [[ -x tools/rill ]]; then RILL=tools/rill; else RILL=bazel-bin/tools/rill; fi
if [[ -f tests/plugin/libtest_plugin.so ]]; then
  PLUGIN=tests/plugin/libtest_plugin.so
else
  PLUGIN=bazel-bin/tests/plugin/libtest_plugin.so
fi
DATA=tools/testdata
TMP=${TEST_TMPDIR:-$(mktemp -d)}
source tools/test_checks.sh

# --- usage -----------------------------------------------------------------
check_rc "no command" 2 $RILL
expect "no command" "usage: rill"
check_rc "unknown command" 2 $RILL frobnicate
expect "unknown command" 'unknown command "frobnicate"'
expect "unknown command usage" "usage: rill <command>"
check_rc "--help" 0 $RILL --help
expect "--help lists commands" "validate GRAPH"
expect "--help lists run" "run GRAPH"
for cmd in validate dot calculators run; do
  check_rc "$cmd --help" 0 $RILL $cmd --help
  expect "$cmd --help" "usage: rill $cmd"
done
check_rc "validate without graph" 2 $RILL validate
check_rc "unknown flag" 2 $RILL validate --bogus $DATA/good_graph.pbtxt
expect "unknown flag" 'unknown flag "--bogus"'

# --- validate --------------------------------------------------------------
check_rc "validate good" 0 $RILL validate --plugin=$PLUGIN $DATA/good_graph.pbtxt
expect "validate good summary" \
  "good_graph.pbtxt: OK: 3 nodes, 3 streams, 1 executor \(default\)"
[[ $(echo "$OUT" | wc -l) -eq 1 ]] && passed=$((passed + 1)) || {
  echo "FAIL validate good: more than one line: $OUT"; failed=$((failed + 1)); }

check_rc "validate bad" 1 $RILL validate --plugin=$PLUGIN $DATA/bad_graph.pbtxt
expect "validate bad verdict" "bad_graph.pbtxt: INVALID"
expect "validate bad names calculator" "PluginAddOnCalculator"
expect "validate bad suggests" "PluginAddOneCalculator"

check_rc "validate good+bad" 1 $RILL validate --plugin=$PLUGIN \
  $DATA/good_graph.pbtxt $DATA/bad_graph.pbtxt
expect "validate good+bad good line" "good_graph.pbtxt: OK"
expect "validate good+bad bad line" "bad_graph.pbtxt: INVALID"

# Without the plugin its calculators are unknown.
check_rc "validate no plugin" 1 $RILL validate $DATA/good_graph.pbtxt
expect "validate no plugin" "PluginCountSourceCalculator"

# Options a node's calculator does not read: a warning, still valid.
cat > "$TMP/unread_options.pbtxt" <<'GRAPH'
input_stream: "in"
node {
  name: "pass"
  calculator: "PassThroughCalculator"
  input_stream: "in"
  output_stream: "out"
  options {
    [mediapipe.ImageTransformationCalculatorOptions.ext] { flip_horizontally: true }
  }
}
GRAPH
check_rc "validate unread options" 0 $RILL validate "$TMP/unread_options.pbtxt"
expect "validate unread options OK" "unread_options.pbtxt: OK: 1 node"
expect "validate unread options warning" \
  'unread_options.pbtxt: warning: node "pass" \(PassThroughCalculator\): options rill.ImageTransformationCalculatorOptions are not read by this calculator'
check_rc "run unread options" 0 $RILL run "$TMP/unread_options.pbtxt"
expect "run unread options warning" 'warning: node "pass" \(PassThroughCalculator\): options rill.ImageTransformationCalculatorOptions'

check_rc "validate missing file" 1 $RILL validate $DATA/no_such_graph.pbtxt
expect "validate missing file" "no_such_graph.pbtxt"

check_rc "bad plugin" 1 $RILL validate --plugin=$DATA/good_graph.pbtxt \
  $DATA/good_graph.pbtxt
expect "bad plugin" 'cannot load plugin ".*good_graph.pbtxt"'

# A plugin registering a calculator name rill already has is refused at
# start-up, naming both source files.
CLASH=${PLUGIN%/*}/libclashing_plugin.so
check_rc "clashing plugin" 1 $RILL validate --plugin=$CLASH $DATA/good_graph.pbtxt
expect "clashing plugin" 'calculator "SwitchDemuxCalculator" is registered twice, in framework/tool/switch_demux_calculator.cc and in tests/plugin/clashing_plugin.cc'

# --- dot -------------------------------------------------------------------
check_rc "dot good" 0 $RILL dot $DATA/good_graph.pbtxt
expect "dot header" '^digraph "good_graph" \{'
expect "dot node box" 'n0 \[shape=box, style=rounded, label="source\\nPluginCountSourceCalculator"\]'
expect "dot stream edge" 'n0 -> n1 \[label="numbers"\]'
expect "dot output" 'graph_out0 \[shape=house'
expect "dot output edge" 'n2 -> graph_out0 \[label="scaled"\]'
expect "dot side packet" 'shape=note'
expect "dot side edge" '-> n0 \[style=dotted\]'
expect "dot closes" '^\}$'
if command -v dot >/dev/null; then
  echo "$OUT" | dot -Tsvg >"$TMP/g.svg" 2>"$TMP/dot.err" &&
    passed=$((passed + 1)) ||
    { echo "FAIL graphviz rejects the DOT: $(cat "$TMP/dot.err")"; failed=$((failed + 1)); }
fi
check_rc "dot back edge" 0 $RILL dot $DATA/back_edge_graph.pbtxt
expect "dot back edge dashed" 'n1 -> n0 \[label="looped", style=dashed'
expect "dot graph input" 'graph_in0 \[shape=invhouse'
check_rc "dot -o" 0 $RILL dot -o "$TMP/out.dot" $DATA/good_graph.pbtxt
grep -q "^digraph" "$TMP/out.dot" && passed=$((passed + 1)) ||
  { echo "FAIL dot -o wrote nothing"; failed=$((failed + 1)); }
check_rc "dot two graphs" 2 $RILL dot $DATA/good_graph.pbtxt $DATA/bad_graph.pbtxt

# Core calculators are linked in: no plugin needed.
check_rc "validate core graph" 0 $RILL validate $DATA/flow_limited_graph.pbtxt
expect "validate core graph" "flow_limited_graph.pbtxt: OK: 2 nodes, 3 streams"
check_rc "dot core graph" 0 $RILL dot $DATA/flow_limited_graph.pbtxt
expect "dot core back edge" 'n1 -> n0 \[label="processed", style=dashed'
expect "dot core output" 'n1 -> graph_out0 \[label="processed"\]'

# Subgraph from a .pbtxt beside the graph; the graph names its plugin itself.
check_rc "validate subgraph" 0 $RILL validate $DATA/subgraph_graph.pbtxt
expect "validate subgraph expanded" "subgraph_graph.pbtxt: OK: 3 nodes, 3 streams"
check_rc "dot subgraph" 0 $RILL dot $DATA/subgraph_graph.pbtxt
expect "dot subgraph inner node" "PluginAddOneCalculator"
expect "dot subgraph cluster" 'subgraph cluster_0 \{'
expect "dot subgraph cluster label" 'label="add_two"; style=dashed' 
expect_not "dot subgraph not a node" 'label="add_two\\nAddTwoSubgraph"'
check_rc "run subgraph" 0 $RILL run $DATA/subgraph_graph.pbtxt --side_packet=count=3
expect "run subgraph" "result @ 2: 4$"

# --- validate --report -----------------------------------------------------
# tools/testdata/report: graphs/ (one file per case) and modules/ (subgraphs
# the graphs use). Expected: the verdict per file, then counts by number of
# graphs (FooCalculator: missing_a names it twice, missing_b, the broken
# module and the graph using it; NoSuchCalculatorOptions: once per syntax).
R=$DATA/report
# expect_exact NAME SED_SCRIPT EXPECTED: `sed -n SED_SCRIPT` of $OUT is
# exactly EXPECTED.
expect_exact() {
  local got
  got=$(echo "$OUT" | sed -n "$2")
  if [[ "$got" == "$3" ]]; then
    passed=$((passed + 1))
  else
    echo "FAIL $1: got"; echo "$got" | sed 's/^/    /'
    echo "  wanted"; echo "$3" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
}
# Verdicts only: "PATH: OK" / "PATH: INVALID".
VERDICTS='s/^\(.*\.pbtxt: \(OK\|INVALID\)\).*/\1/p'
# The summary: from "N of M graphs validate" to the end.
SUMMARY='/ graphs validate$/,$p'

check_rc "report" 1 $RILL validate --report $R
expect_exact "report verdicts" "$VERDICTS" "\
$R/graphs/comments_only.pbtxt: INVALID
$R/graphs/malformed.pbtxt: INVALID
$R/graphs/missing_a.pbtxt: INVALID
$R/graphs/missing_b.pbtxt: INVALID
$R/graphs/plugin_graph.pbtxt: INVALID
$R/graphs/unconnected.pbtxt: INVALID
$R/graphs/unknown_any_options.pbtxt: INVALID
$R/graphs/unknown_ext_options.pbtxt: INVALID
$R/graphs/uses_broken_module.pbtxt: INVALID
$R/graphs/uses_module.pbtxt: OK
$R/graphs/valid.pbtxt: OK
$R/modules/report_broken_module.pbtxt: INVALID
$R/modules/report_pass_through_module.pbtxt: OK"
expect_exact "report summary" "$SUMMARY" "\
3 of 13 graphs validate
missing calculators (by number of graphs that name them):
  4  FooCalculator
  1  BarCalculator
  1  PluginAddOneCalculator
missing options types (by number of graphs):
  2  mediapipe.NoSuchCalculatorOptions
other failures:
  1  \"GRAPH\" has no nodes (pass --allow_empty to accept an empty graph)
  1  input stream \"nowhere\" is not connected: no node outputs \"nowhere\" and it is not a graph input_stream
  1  malformed CalculatorGraphConfig: Expected identifier, got:"
# A verdict is one line: the first line of the errors.
[[ $(echo "$OUT" | wc -l) -eq 24 ]] && passed=$((passed + 1)) || {
  echo "FAIL report: not one line per graph + 11 summary lines: $OUT"; failed=$((failed + 1)); }
expect "report first cause: calculator" \
  "^$R/graphs/missing_a.pbtxt: INVALID: node \"FooCalculator\" \(FooCalculator\): no calculator named \"FooCalculator\" is registered"
expect "report first cause: inside the module" \
  "^$R/graphs/uses_broken_module.pbtxt: INVALID: node \"report_broken_module__foo_calculator\" \(FooCalculator\): no calculator named \"FooCalculator\""
expect "report first cause: extension options" \
  "^$R/graphs/unknown_ext_options.pbtxt: INVALID: malformed CalculatorGraphConfig in $R/graphs/unknown_ext_options.pbtxt:10:45: Extension \"mediapipe.NoSuchCalculatorOptions.ext\" is not defined"
expect "report first cause: Any options" \
  "^$R/graphs/unknown_any_options.pbtxt: INVALID: malformed CalculatorGraphConfig in $R/graphs/unknown_any_options.pbtxt:10:61: Could not find type \"type.googleapis.com/mediapipe.NoSuchCalculatorOptions\""
expect "report first cause: unconnected" \
  "^$R/graphs/unconnected.pbtxt: INVALID: node \"reader\" \(PassThroughCalculator\): input stream \"nowhere\" is not connected"
expect "report first cause: malformed" \
  "^$R/graphs/malformed.pbtxt: INVALID: malformed CalculatorGraphConfig in $R/graphs/malformed.pbtxt:6:1: Expected identifier, got:$"

# The module folder is on the search path only with --report: alone, the
# graph's own folder does not hold ReportPassThroughModule.
check_rc "without report: module not found" 1 $RILL validate $R/graphs/uses_module.pbtxt
expect "without report: module not found" 'no calculator named "ReportPassThroughModule"'
check_rc "without report: a folder is not a graph" 1 $RILL validate $R
expect "without report: a folder is not a graph" "is a directory, not a file"
# --plugin and --allow_empty apply; only graph files named: exit 0.
check_rc "report: all valid" 0 $RILL validate --report --allow_empty --plugin=$PLUGIN \
  $R/graphs/comments_only.pbtxt $R/graphs/plugin_graph.pbtxt $R/graphs/valid.pbtxt
expect_exact "report: all valid" "p" "\
$R/graphs/comments_only.pbtxt: OK
$R/graphs/plugin_graph.pbtxt: OK
$R/graphs/valid.pbtxt: OK
3 of 3 graphs validate"
# --subgraph_path=DIR: DIR's folders holding .pbtxt files are searched for
# subgraph types, for every command.
check_rc "subgraph_path" 0 $RILL validate --subgraph_path=tools/testdata/report \
  $R/graphs/uses_module.pbtxt
expect "subgraph_path" "uses_module.pbtxt: OK"
check_rc "subgraph_path not a folder" 1 $RILL validate \
  --subgraph_path=$R/graphs/valid.pbtxt $R/graphs/valid.pbtxt
expect "subgraph_path not a folder" 'subgraph_path ".*valid.pbtxt" is not a folder'
# Files alone: a named file's folder joins the search path before any graph
# loads, so a graph named before the module file that defines its subgraph
# still finds it.
check_rc "report: files only" 0 $RILL validate --report \
  $R/graphs/uses_module.pbtxt $R/modules/report_pass_through_module.pbtxt
expect_exact "report: files only" "$VERDICTS" "\
$R/graphs/uses_module.pbtxt: OK
$R/modules/report_pass_through_module.pbtxt: OK"
# A folder named with a trailing slash (its paths keep one slash), before a
# graph file that uses one of its subgraphs.
check_rc "report: folder and file" 1 $RILL validate --report $R/modules/ \
  $R/graphs/uses_module.pbtxt
expect_exact "report: folder and file verdicts" "$VERDICTS" "\
$R/modules/report_broken_module.pbtxt: INVALID
$R/modules/report_pass_through_module.pbtxt: OK
$R/graphs/uses_module.pbtxt: OK"
expect_exact "report: folder and file summary" "$SUMMARY" "\
2 of 3 graphs validate
missing calculators (by number of graphs that name them):
  1  FooCalculator"
check_rc "help validate --report" 0 $RILL help validate
expect "help validate --report" "rill validate --report .*DIR_OR_GRAPH"
expect "help validate --report search path" "joins the subgraph search path"
# A folder without graphs is an error (exit 1); the other graphs still run.
mkdir -p "$TMP/report_empty"
check_rc "report: folder without graphs" 1 $RILL validate --report "$TMP/report_empty" \
  $R/graphs/valid.pbtxt
expect "report: folder without graphs" "report_empty: no .pbtxt files in this folder"
expect "report: folder without graphs, others checked" "^1 of 1 graphs validate$"

# --- calculators -----------------------------------------------------------
check_rc "calculators plugin" 0 $RILL calculators --plugin=$PLUGIN Plugin
expect "calculators scale" "^PluginScaleCalculator"
expect "calculators side input" "side input +COUNT:0 +int"
expect "calculators source" "^PluginCountSourceCalculator +\(tests/plugin/plugin_calculators.cc\)"
expect "calculators input" "input +IN:0 +int"
expect "calculators count" "3 calculators matching"
check_rc "calculators core" 0 $RILL calculators PassThrough
expect "calculators core linked" "^PassThroughCalculator"
check_rc "calculators names" 0 $RILL calculators --names --plugin=$PLUGIN
expect "calculators names" "^PluginAddOneCalculator$"

# --- run -------------------------------------------------------------------
check_rc "run" 0 $RILL run --plugin=$PLUGIN $DATA/good_graph.pbtxt \
  --side_packet=count=4 --side_packet factor=3
expect "run first packet" "scaled @ 0: 3$"
expect "run last packet" "scaled @ 3: 12$"
expect "run count" "stream scaled: 4 packets"
expect "run finished" "run finished in"
check_rc "run quiet" 0 $RILL run --plugin=$PLUGIN $DATA/good_graph.pbtxt \
  --side_packet=count=100 --side_packet=factor=1 --quiet
expect_not "run quiet prints no packets" "scaled @"
expect "run quiet count" "stream scaled: 100 packets"
check_rc "run bad side packet" 2 $RILL run --plugin=$PLUGIN \
  $DATA/good_graph.pbtxt --side_packet=count
expect "run bad side packet" "name=value"
check_rc "run missing side packet" 1 $RILL run --plugin=$PLUGIN \
  $DATA/good_graph.pbtxt --side_packet=count=4
expect "run missing side packet" "factor"
check_rc "run trace" 0 $RILL run --plugin=$PLUGIN $DATA/good_graph.pbtxt \
  --side_packet=count=5 --side_packet=factor=2 --quiet --trace="$TMP/trace.json"
if grep -q "traceEvents" "$TMP/trace.json" 2>/dev/null; then
  passed=$((passed + 1))
else
  echo "FAIL run --trace wrote no trace events"; failed=$((failed + 1))
fi

# --- resource root: graphs find their models from any working directory --
MODEL=third_party/models/face_detection_short_range.tflite
if [[ -f $MODEL ]]; then
  RILL_ABS=$(realpath $RILL)
  REPO="$TMP/res_repo"
  mkdir -p "$REPO/graphs" "$REPO/third_party/models" "$TMP/res_empty"
  cp "$MODEL" "$REPO/third_party/models/"
  cat > "$REPO/graphs/infer.pbtxt" <<'GRAPH'
input_stream: "in"
output_stream: "out"
node {
  calculator: "InferenceCalculator"
  input_stream: "TENSORS:in"
  output_stream: "TENSORS:out"
  options {
    [mediapipe.InferenceCalculatorOptions.ext] {
      model_path: "third_party/models/face_detection_short_range.tflite"
    }
  }
}
GRAPH
  # No repository marker above the graph: only the working directory (/).
  check_rc "resource root: not found" 1 env -C / "$RILL_ABS" run "$REPO/graphs/infer.pbtxt"
  expect "resource root: names the node" 'node "[^"]*" \(InferenceCalculator\)'
  expect "resource root: says where it looked" \
    'model file "third_party/models/face_detection_short_range.tflite" not found \(looked in: /third_party/models/face_detection_short_range.tflite'
  expect "resource root: names the flag" "--resource_root"
  # A WORKSPACE marks the graph's repository: found from any folder.
  touch "$REPO/WORKSPACE"
  check_rc "resource root: graph's repository" 0 env -C / "$RILL_ABS" run "$REPO/graphs/infer.pbtxt"
  # The summary names each inference node's model and backends.
  expect "run names the inference backend" \
    'node "InferenceCalculator": face_detection_short_range.tflite on cpu \(46 layers\)'
  rm "$REPO/WORKSPACE"
  check_rc "resource root: flag" 0 env -C / "$RILL_ABS" run --resource_root="$REPO" "$REPO/graphs/infer.pbtxt"
  check_rc "resource root: flag, second root" 0 env -C / "$RILL_ABS" run \
    --resource_root="$TMP/res_empty" --resource_root="$REPO" "$REPO/graphs/infer.pbtxt"
  check_rc "resource root: flag replaces defaults" 1 env -C "$REPO" "$RILL_ABS" run \
    --resource_root="$TMP/res_empty" "$REPO/graphs/infer.pbtxt"
  expect "resource root: lists the root given" "looked in: $TMP/res_empty/third_party/models/face_detection_short_range.tflite\)?"
  check_rc "resource root: not a directory" 1 "$RILL_ABS" run \
    --resource_root="$TMP/no_such_dir" "$REPO/graphs/infer.pbtxt"
  expect "resource root: not a directory" "no_such_dir: not a directory"
else
  echo "SKIP resource root: $MODEL missing (scripts/fetch_models.sh)"
  [[ "${CI:-}" == true ]] && failed=$((failed + 1))
fi

# rill model: the engine's tool behind the same command.
MODEL=third_party/models/face_detection_short_range.tflite
if [[ -f $MODEL ]]; then
  check_rc "model info" 0 $RILL model info $MODEL
  expect "model info MACs" "30.8 M MACs"
  expect "model info per-layer kernel" "DEPTHWISE_CONV_2D"
  check_rc "model bench json" 0 $RILL model bench $MODEL --runs=3 --json
  expect "model bench json" '"median_ms":'
  # --backend=vulkan, --place=OUTPUT:vulkan and --backend_option (lavapipe
  # in CI; a machine without Vulkan skips these loudly, CI fails them).
  VK="--backend_option=vulkan.cache_dir=$TMP/vk"
  if $RILL model info $MODEL --backend=vulkan $VK >/dev/null 2>&1 || [[ -n ${CI:-} ]]; then
    check_rc "model info vulkan" 0 $RILL model info $MODEL --backend=vulkan --place=regressors:cpu $VK
    expect "model info vulkan kernels" "CONV_2D +conv2d_gemm[0-9x]+_vk "
    expect "model info vulkan place" "concatenation_copy .* regressors"
    check_rc "model bench place vulkan" 0 $RILL model bench $MODEL --runs=2 --place=classificators:vulkan \
      $VK --backend_option=vulkan.gpu_profile=$TMP/vk_profile.tsv
    expect "model bench place vulkan" "median"
    # One submit per run (warm-up runs included): the recorded command buffer.
    if grep -Eq '^# runs ([0-9]+) submits \1 segments 1$' $TMP/vk_profile.tsv; then passed=$((passed + 1)); else
      echo "FAIL model bench vulkan.gpu_profile: $(head -2 $TMP/vk_profile.tsv 2>&1)"; failed=$((failed + 1)); fi
  else
    echo "NOT TESTED HERE: rill model --backend=vulkan (no Vulkan device; lavapipe: scripts/setup.sh)"
  fi
fi
# rill model export: a .tflite model as ONNX (read back through the ONNX
# importer and run against ONNX Runtime below).
if [[ -f $MODEL ]]; then
  check_rc "model export" 0 $RILL model export $MODEL --output=$TMP/face_detection_short_range.onnx
  expect "model export" "wrote .*face_detection_short_range.onnx: 90 nodes .* as ONNX opset 17"
fi
if [[ -f third_party/models/face_landmark_with_attention.tflite ]]; then
  check_rc "model export custom ops" 1 $RILL model export \
    third_party/models/face_landmark_with_attention.tflite --output=$TMP/attention.onnx
  expect "model export custom ops" "no ONNX form for op LANDMARKS_TO_TRANSFORM_MATRIX"
fi
check_rc "model export without output" 2 $RILL model export $MODEL
check_rc "model missing file" 1 $RILL model info /nonexistent/model.tflite
expect "model missing file" "/nonexistent/model.tflite"
check_rc "model usage" 2 $RILL model
expect "model usage" "rill model info MODEL"
expect "model usage compare" "rill model compare MODEL.onnx"

# rill model compare: the engine against ONNX Runtime 1.30 (needs
# scripts/fetch_models.sh to have fetched the models and libonnxruntime.so.1).
ONNX=third_party/models/squeezenet1_1.onnx
if [[ -f $ONNX && -f third_party/onnxruntime/libonnxruntime.so.1 ]]; then
  if [[ -f $TMP/face_detection_short_range.onnx ]]; then
    # The exported model, re-imported by the engine's ONNX importer, against
    # ONNX Runtime.
    check_rc "model compare exported" 0 $RILL model compare $TMP/face_detection_short_range.onnx
    expect "model compare exported" "PASS"
  fi
  # Parameters: the constants the nodes read, each once (torchvision's
  # squeezenet1_1 has 1,235,496 weights: 4.71 MiB), not what the optimizer
  # folded away.
  check_rc "model info onnx" 0 $RILL model info $ONNX
  expect "model info parameters" " 4.71 MB parameters"
  check_rc "model compare" 0 $RILL model compare $ONNX --threads=2
  expect "model compare output row" "output +\\[1,1000\\] .* PASS"
  expect "model compare verdict" "PASS"
  expect "model compare golden input" "squeezenet1_1.input.f32"
  check_rc "model compare json" 0 $RILL model compare $ONNX --json
  lines=$(printf '%s\n' "$OUT" | wc -l)
  if [[ $lines -eq 1 && $OUT == '{"model":"'*'}' ]]; then
    passed=$((passed + 1))
  else
    echo "FAIL model compare json: not one JSON object on one line:"; echo "$OUT" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
  expect "model compare json verdict" '"pass":true'
  expect "model compare json output" '"outputs":\[\{"name":"output","shape":\[1,1000\],"max_abs_error":'
  expect "model compare json version" '"onnxruntime":"1.30.'
  if command -v python3 >/dev/null; then
    if printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["pass"] is True and d["threads"] == 1 and d["tolerance"] == 1e-4, d
(o,) = d["outputs"]
assert o["shape"] == [1, 1000] and o["pass"] is True, o
assert 0 <= o["max_rel_error"] <= 1e-4 and o["max_abs_error"] <= 1e-4 * o["range"], o
'; then passed=$((passed + 1)); else echo "FAIL model compare json fields"; failed=$((failed + 1)); fi
  fi
  # --output_dir: both engines' outputs as .npy files of the same shape.
  check_rc "model compare output_dir" 0 $RILL model compare $ONNX --threads=2 --output_dir=$TMP/compare_out
  if [[ -s $TMP/compare_out/output.npy && -s $TMP/compare_out/output.onnxruntime.npy &&
        $(stat -c %s $TMP/compare_out/output.npy) == $(stat -c %s $TMP/compare_out/output.onnxruntime.npy) &&
        $(stat -c %s $TMP/compare_out/output.npy) -gt 4000 ]]; then
    passed=$((passed + 1))
  else
    echo "FAIL model compare output_dir: missing or unequal files"; ls -l $TMP/compare_out; failed=$((failed + 1))
  fi
  check_rc "model compare output_dir not a folder" 1 $RILL model compare $ONNX --output_dir=/dev/null
  expect "model compare output_dir not a folder" "/dev/null: --output_dir is not a folder"
  check_rc "model compare bad input size" 1 $RILL model compare $ONNX --input=/dev/null
  expect "model compare bad input size" "/dev/null: 0 bytes"
  check_rc "model compare missing input file" 1 $RILL model compare $ONNX --input=/nonexistent/in.f32
  expect "model compare missing input file" "/nonexistent/in.f32"
else
  echo "SKIP model compare: run scripts/fetch_models.sh (models and ONNX Runtime)"
fi
# An ONNX model with symbolic batch / height / width and shape arithmetic
# (conv -> Reshape to [Shape[0], Shape[1], -1] -> MatMul): `info` lists the
# symbolic dims and how to set them; --input_shape runs it at a chosen size,
# checked against ONNX Runtime at that size.
SYM=tools/testdata/symbolic_tokens.onnx
if [[ -f $SYM ]]; then
  check_rc "model info symbolic" 0 $RILL model info $SYM --input_shape=x:2,3,20,16
  expect "model info symbolic shape" "input  x +\[2,3,20,16\] NCHW"
  expect "model info symbolic dims" "symbolic: batch \(dim 0\), height \(dim 2\), width \(dim 3\); set with --input_shape=x:"
  expect "model info symbolic output" "output y +\[2,80,6\]"
  check_rc "model info symbolic json" 0 $RILL model info $SYM --input_shape=x:2,3,20,16 --json
  expect "model info symbolic json" '"inputs":\[\{"name":"x","shape":\[2,3,20,16\],"symbolic":\[\{"dim":0,"name":"batch"\},\{"dim":2,"name":"height"\},\{"dim":3,"name":"width"\}\]\}\]'
  # Without --input_shape the symbolic dims stand at 1: a note says so.
  check_rc "model info symbolic at 1" 0 $RILL model info $SYM
  expect "model info symbolic at 1" "note: .*input 'x' has symbolic dimensions batch, height, width, taken as 1"
  if [[ -f third_party/onnxruntime/libonnxruntime.so.1 ]]; then
    for shape in 2,3,20,16 1,3,33,9; do
      check_rc "model compare symbolic $shape" 0 $RILL model compare $SYM --input_shape=x:$shape
      expect "model compare symbolic $shape" "PASS"
    done
  fi
else
  echo "FAIL model symbolic: $SYM is missing"; failed=$((failed + 1))
fi
# rill model run: outputs of any model as .npy / raw files.
MV2=third_party/models/mobilenet_v2.onnx
if [[ -f $MV2 && -f third_party/models/rill_multitask.onnx ]]; then
  check_rc "model run" 0 $RILL model run $MV2 --input=third_party/models/mobilenet_v2.input.f32 \
    --output_dir="$TMP/run_npy"
  expect "model run prints output" "output +\[1,1000\] +float32 .*-> $TMP/run_npy/output.npy"
  # numpy's v1 header, 128 bytes with this shape, then 1000 float32 values.
  if [[ $(stat -c %s "$TMP/run_npy/output.npy" 2>/dev/null) == 4128 ]] &&
     head -c 128 "$TMP/run_npy/output.npy" | grep -aq "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1000), }"; then
    passed=$((passed + 1))
  else
    echo "FAIL model run: output.npy is not a (1, 1000) float32 .npy"; failed=$((failed + 1))
  fi
  # A .npy input bound by name is checked against the input's size.
  check_rc "model run npy wrong size" 1 $RILL model run $MV2 --input=input="$TMP/run_npy/output.npy" \
    --output_dir="$TMP/x"
  expect "model run npy wrong size" "has 1000 values, but .*input input \[1,3,224,224\] float32 needs 150528"
  # The raw output equals the .npy's data.
  check_rc "model run raw" 0 $RILL model run $MV2 --input=input=third_party/models/mobilenet_v2.input.f32 \
    --output_dir="$TMP/run_raw" --format=raw
  if cmp -s <(tail -c 4000 "$TMP/run_npy/output.npy") "$TMP/run_raw/output.f32"; then
    passed=$((passed + 1))
  else
    echo "FAIL model run: raw output differs from the .npy's data"; failed=$((failed + 1))
  fi
  check_rc "model run multi-output" 0 $RILL model run third_party/models/rill_multitask.onnx \
    --input=third_party/models/rill_multitask.input.f32 --output_dir="$TMP/run_mt" --json
  expect "model run json" '"name":"classes","shape":\[1,1000\].*"name":"mask","shape":\[1,21,56,56\]'
  [[ -f "$TMP/run_mt/classes.npy" && -f "$TMP/run_mt/mask.npy" ]] && passed=$((passed + 1)) || {
    echo "FAIL model run multi-output: files missing"; failed=$((failed + 1)); }
  check_rc "model run no input" 1 $RILL model run $MV2 --output_dir="$TMP/x"
  expect "model run no input lists inputs" "no --input for"
  expect "model run no input shape" "input \[1,3,224,224\] float32 NCHW"
  check_rc "model run wrong raw size" 1 $RILL model run $MV2 --input=$0 --output_dir="$TMP/x"
  expect "model run wrong raw size" "bytes, but .*needs 602112 bytes"
  check_rc "model run too many inputs" 1 $RILL model run $MV2 --input=third_party/models/mobilenet_v2.input.f32 \
    --input=third_party/models/mobilenet_v2.input.f32 --output_dir="$TMP/x"
  expect "model run too many inputs" "more --input files than the model's 1 inputs"
  touch "$TMP/a_file"
  check_rc "model run output_dir is a file" 1 $RILL model run $MV2 \
    --input=third_party/models/mobilenet_v2.input.f32 --output_dir="$TMP/a_file"
  expect "model run output_dir is a file" "a_file: --output_dir is not a folder"
  check_rc "model run needs output_dir" 2 $RILL model run $MV2 --input=third_party/models/mobilenet_v2.input.f32
else
  echo "SKIP model run: $MV2 missing (scripts/fetch_models.sh)"
  [[ "${CI:-}" == true ]] && failed=$((failed + 1))
fi
check_rc "model compare missing file" 1 $RILL model compare /nonexistent/model.onnx
expect "model compare missing file" "/nonexistent/model.onnx"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
