#!/usr/bin/env bash
# Instructions an AArch64 kernel executes per output, counted by qemu-user
# (not timed: qemu's speed says nothing of a core's). Runs
# //inference/backend/cpu/kernels/arm64:kernel_probe under
# `qemu-aarch64 -d in_asm,exec,nochain`: in_asm gives each translated block's
# instructions, exec each block executed; the sum over the blocks that start
# inside the symbol's address range is the kernel's count.
#   scripts/arm64_insn_count.sh gemm|gemm_f16|dw3x3 [PROBE_BINARY]
#   scripts/arm64_insn_count.sh wino_f23|wino_f43|conv3x3_gemm|conv3x3_sliding [PROBE_BINARY]
# The last four (a 56x56x64 -> 64 3x3 layer) print the count inside each
# assembly kernel that runs (the Winograd transforms, the GEMM tile) and the
# whole run's (every instruction the process executes, less those of the
# same probe with only the weights' setup: the C++ drivers, A packing,
# im2col gathers, memcpy included).
# (without PROBE_BINARY it builds the probe with --config=aarch64 -c opt)
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?gemm, gemm_f16, dw3x3, wino_f23, wino_f43, conv3x3_gemm or conv3x3_sliding}
bin=${2:-}
if [ -z "$bin" ]; then
  bazel --output_base="$HOME/.cache/bazel-aarch64" build -c opt --config=aarch64 \
    //inference/backend/cpu/kernels/arm64:kernel_probe >/dev/null 2>&1
  bin=$(bazel --output_base="$HOME/.cache/bazel-aarch64" info -c opt --config=aarch64 bazel-bin 2>/dev/null)/inference/backend/cpu/kernels/arm64/kernel_probe
fi
case $what in
  wino_f23|wino_f43|conv3x3_gemm|conv3x3_sliding)
    syms="rill_f32_gemm_8x12_neon"
    [ "$what" = conv3x3_gemm ] || [ "$what" = conv3x3_sliding ] || syms="rill_f32_${what/wino_/winograd_}_input_neon rill_f32_${what/wino_/winograd_}_output_neon $syms"
    ranges=$(for s in $syms; do aarch64-linux-gnu-nm -S "$bin" | awk -v s="$s" '$4 == s {print s":"$1":"$2}'; done)
    outputs=$((56 * 56 * 64))
    for mode in "$what" "${what}_setup"; do
      log=$(mktemp)
      qemu-aarch64 -cpu max -d exec,in_asm,nochain -D "$log" "$bin" "$mode" >/dev/null
      python3 - "$log" "$outputs" "$mode" $ranges <<'PY'
import re, sys
log, outputs, mode, ranges = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
blocks, cur, counts = {}, None, {}
for line in open(log, errors="replace"):
    if line.startswith("IN:"):
        cur = None
        continue
    m = re.match(r"^0x([0-9a-f]+):\s", line)
    if m:
        pc = int(m.group(1), 16)
        if cur is None:
            cur = pc
            blocks[cur] = 0
        blocks[cur] += 1
        continue
    m = re.search(r"Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/", line)
    if m:
        pc = int(m.group(1), 16)
        counts[pc] = counts.get(pc, 0) + 1
        continue
    if not line.strip():
        cur = None
total = sum(blocks.get(pc, 0) * n for pc, n in counts.items())
for r in ranges:
    name, start, size = r.split(":")
    start, size = int(start, 16), int(size, 16)
    n = sum(blocks.get(pc, 0) * c for pc, c in counts.items() if start <= pc < start + size)
    if n:
        print(f"{mode}: {name}: {n} instructions, {n / outputs:.2f} per output")
print(f"{mode}: whole process: {total} instructions")
PY
      rm -f "$log"
    done
    exit 0 ;;
  gemm) sym=rill_f32_gemm_8x12_neon outputs=$((96 * 96)) ;;
  gemm_f16) sym=rill_f16_gemm_8x12_neonfp16 outputs=$((96 * 96)) ;;
  dw3x3) sym=rill_f32_dwconv3x3_row_neon outputs=$((56 * 56 * 64)) ;;
  *) echo "unknown kernel $what" >&2; exit 2 ;;
esac
read -r start size < <(aarch64-linux-gnu-nm -S "$bin" | awk -v s="$sym" '$4 == s {print $1, $2}')
log=$(mktemp)
qemu-aarch64 -cpu max -d in_asm,exec,nochain -D "$log" "$bin" "$what" >/dev/null
python3 - "$log" "$start" "$size" "$outputs" "$what" <<'PY'
import re, sys
log, start, size, outputs, what = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16), int(sys.argv[4]), sys.argv[5]
blocks, cur, counts = {}, None, {}
for line in open(log, errors="replace"):
    if line.startswith("IN:"):
        cur = None
        continue
    m = re.match(r"^0x([0-9a-f]+):\s", line)
    if m:
        pc = int(m.group(1), 16)
        if cur is None:
            cur = pc
            blocks[cur] = 0
        blocks[cur] += 1
        continue
    m = re.search(r"Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/", line)
    if m:
        pc = int(m.group(1), 16)
        counts[pc] = counts.get(pc, 0) + 1
        continue
    if not line.strip():
        cur = None
total = sum(blocks.get(pc, 0) * n for pc, n in counts.items() if start <= pc < start + size)
print(f"{what}: {total} instructions in the kernel for {outputs} outputs: {total / outputs:.2f} per output")
PY
rm -f "$log"
