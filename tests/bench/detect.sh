#!/usr/bin/env bash
# Detection's goals on this machine's CPU (issue 49):
#  1. speed: a yolov8n training step at 320 px, batch 16 (four boxes an image, YOLOv8's loss),
#     ours (trainbench-cli bench) against the same model and loss in PyTorch
#     (tests/bench/torch_reference.py --model yolov8n), alternating, three rounds, the best
#     median of each; goal: ours at most 0.7x PyTorch's.
#  2. data: shapes-detect at 320 px with mosaic, 2 loader workers, batch 16: the share of the
#     step the trainer waits for data (step_metrics' data_wait_ms over step_ms, steps after the
#     first 5); goal: under 10%.
#  3. learning: yolov8n from scratch on shapes-detect at its default size (2,000 images at
#     128 px) with the recipe a detection set implies, for EPOCHS epochs; goal: mAP50-95 of at
#     least 0.5 within 15 minutes. Prints the best mAP50-95 and the time taken.
# Usage: tests/bench/detect.sh [build-dir] [threads] [epochs]
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
cli="$build/app/cli/trainbench-cli"
threads="${2:-2}"
epochs="${3:-20}"
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp # PyTorch's BLAS joins its pool
field() { python3 -c "import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])['$1'])"; }
min() { python3 -c "print(min($1, $2))"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

probe=$("$cli" bench --model mlp --steps 3 --warmup 1 --threads "$threads" --json | tail -1)
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $threads threads; oneDNN ISA $(field cpu_isa <<< "$probe")"

best_ours=1e9 best_torch=1e9
for round in 1 2 3; do
  ours=$("$cli" bench --model yolov8n --input 3x320x320 --batch 16 --steps 5 --warmup 2 \
    --threads "$threads" --json | field median_step_ms)
  torch=$(/usr/bin/python3 tests/bench/torch_reference.py --model yolov8n --image-size 320 \
    --batch 16 --steps 5 --warmup 2 --threads "$threads" | field median_step_ms)
  best_ours=$(min "$best_ours" "$ours")
  best_torch=$(min "$best_torch" "$torch")
done
printf "speed: yolov8n 320 px b16 step: ours %.0f ms, PyTorch %.0f ms, %.2fx (goal <= 0.7x)\n" \
  "$best_ours" "$best_torch" "$(python3 -c "print($best_ours / $best_torch)")"

"$cli" train --db "$work/runs.db" --quiet --run-id data --set dataset=shapes-detect \
  --set data.imgsz=320 --set batch_size=16 --set num_workers=2 --set threads="$threads" \
  --set max_steps=30 --set log_every_n_steps=1 >/dev/null
python3 - "$work/runs.db" <<'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT data_wait_ms, step_ms FROM step_metrics WHERE run_id = 'data' AND step > 5").fetchall()
wait, step = sum(r[0] for r in rows), sum(r[1] for r in rows)
print(f"data: shapes-detect 320 px, mosaic, 2 workers, b16: waiting {100 * wait / step:.1f}% "
      f"of {step / len(rows):.0f} ms steps (goal < 10%)")
PY

start=$(date +%s)
"$cli" train --db "$work/runs.db" --quiet --run-id learn --set dataset=shapes-detect \
  --set threads="$threads" --set batch_size=16 --set num_workers=2 --set max_epochs="$epochs" \
  --set log_every_n_steps=50 >/dev/null
seconds=$(( $(date +%s) - start ))
python3 - "$work/runs.db" "$seconds" "$epochs" <<'PY'
import sqlite3, sys
db, seconds, epochs = sys.argv[1], int(sys.argv[2]), sys.argv[3]
acc = [r[0] for r in sqlite3.connect(db).execute(
    "SELECT val_acc FROM epoch_metrics WHERE run_id = 'learn' ORDER BY epoch")]
print(f"learning: shapes-detect (2,000 images, 128 px), yolov8n from scratch, {epochs} epochs in "
      f"{seconds // 60} min {seconds % 60} s: mAP50-95 {acc[0]:.3f} after epoch 1, best "
      f"{max(acc):.3f} (epoch {acc.index(max(acc)) + 1}) (goal >= 0.5 within 15 min)")
PY
