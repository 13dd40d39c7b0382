#!/usr/bin/env bash
# Segmentation's goals on this machine's CPU (issue 51):
#  1. speed: training steps (10 classes, the per-pixel cross-entropy), ours (trainbench-cli
#     bench) against the same network and loss in PyTorch (tests/bench/torch_reference.py),
#     alternating, three rounds, the best median of each; goal: ours at most 0.7x PyTorch's.
#     unet (16 wide, 3 deep) at SIZE px, batch 16, against the same U-Net written in PyTorch;
#     fcn_resnet50 (output stride 8, no auxiliary head) at 256 px, batch 4, against
#     torchvision's.
#  2. learning: unet from scratch on shapes-seg with what the set implies (32 px, AdamW at
#     0.002), 2,000 images, for EPOCHS epochs; goal: mIoU of at least 0.8 within 10 minutes.
#     Prints each epoch's mIoU, the first epoch that reached 0.8 and the time taken to it.
# Usage: tests/bench/segment.sh [build-dir] [threads] [epochs] [size]
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
cli="$build/app/cli/trainbench-cli"
threads="${2:-2}"
epochs="${3:-40}"
size="${4:-64}"
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp # PyTorch's BLAS joins its pool
field() { python3 -c "import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])['$1'])"; }
min() { python3 -c "print(min($1, $2))"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

probe=$("$cli" bench --model mlp --steps 3 --warmup 1 --threads "$threads" --json | tail -1)
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $threads threads; oneDNN ISA $(field cpu_isa <<< "$probe")"

compare() { # MODEL SIDE BATCH STEPS
  local best_ours=1e9 best_torch=1e9 ours torch
  for round in 1 2 3; do
    ours=$("$cli" bench --model "$1" --input "3x$2x$2" --batch "$3" --steps "$4" --warmup 1 \
      --threads "$threads" --json | field median_step_ms)
    torch=$(/usr/bin/python3 tests/bench/torch_reference.py --model "$1" --image-size "$2" \
      --batch "$3" --steps "$4" --warmup 1 --threads "$threads" | field median_step_ms)
    best_ours=$(min "$best_ours" "$ours")
    best_torch=$(min "$best_torch" "$torch")
  done
  printf "speed: %s %s px b%s step: ours %.0f ms, PyTorch %.0f ms, %.2fx (goal <= 0.7x)\n" \
    "$1" "$2" "$3" "$best_ours" "$best_torch" "$(python3 -c "print($best_ours / $best_torch)")"
}
compare unet "$size" 16 5
compare fcn_resnet50 256 4 3

"$cli" train --set dataset=shapes-seg --set max_epochs="$epochs" --set threads="$threads" \
  --set num_workers=2 --set checkpoint_dir="$work/ckpt" --db "$work/runs.db" --json \
  > "$work/run.json"
python3 - "$work/run.json" <<'PY'
import json, sys
summary = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
reached = None
for e in summary["per_epoch"]:
    print(f"epoch {e['epoch']}: mIoU {e['val_miou']:.3f} at {e['elapsed_s']:.0f} s")
    if reached is None and e["val_miou"] >= 0.8:
        reached = (e["epoch"], e["elapsed_s"])
if reached:
    print(f"learning: mIoU 0.8 reached at epoch {reached[0]}, {reached[1]:.0f} s "
          "(goal: within 600 s)")
else:
    print("learning: mIoU 0.8 not reached")
PY
