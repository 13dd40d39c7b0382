#!/usr/bin/env bash
# The GPT's goals on this machine's CPU (issue 32):
#  1. speed: training steps of the 4-layer, 128-wide GPT (context 64, batch 32) and of nanoGPT's
#     Shakespeare size (6 layers, 6 heads, 384 wide, context 256, batch 8), ours
#     (trainbench-cli bench) against the same model in PyTorch (tests/bench/torch_reference.py),
#     alternating, three rounds, the best median of each; goal: ours at most 0.7x PyTorch's.
#  2. learning: the 4-layer, 128-wide GPT on the built-in corpus (fortunes) with AdamW, cosine
#     with warm-up and gradient clipping, on the same threads; goal: validation loss below 2.0
#     nats per character. Prints the loss reached and the time taken.
# Usage: tests/bench/gpt.sh [build-dir] [threads] [learn-steps]
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
cli="$build/app/cli/trainbench-cli"
threads="${2:-2}"
steps="${3:-3000}"
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp # PyTorch's BLAS joins its pool
field() { python3 -c "import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])['$1'])"; }
min() { python3 -c "print(min($1, $2))"; }

probe=$("$cli" bench --model mlp --steps 3 --warmup 1 --threads "$threads" --json | tail -1)
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $threads threads; oneDNN ISA $(field cpu_isa <<< "$probe")"
printf "%-34s %9s %9s %6s\n" model "ours ms" "pytorch" ratio
for spec in 4:4:128:64:32:20 6:6:384:256:8:6; do
  IFS=: read -r layers heads width block batch n <<< "$spec"
  best_ours=1e9 best_torch=1e9
  for round in 1 2 3; do
    ours=$("$cli" bench --model gpt --input "$block" --n-layer "$layers" --n-head "$heads" \
      --n-embd "$width" --batch "$batch" --steps "$n" --warmup 2 --threads "$threads" --json |
      field median_step_ms)
    torch=$(/usr/bin/python3 tests/bench/torch_reference.py --model gpt --n-layer "$layers" \
      --n-head "$heads" --n-embd "$width" --block-size "$block" --batch "$batch" --steps "$n" \
      --warmup 2 --threads "$threads" | field median_step_ms)
    best_ours=$(min "$best_ours" "$ours")
    best_torch=$(min "$best_torch" "$torch")
  done
  printf "%-34s %9.2f %9.2f %5.2fx\n" "gpt ${layers}x${width} h$heads ctx$block b$batch" \
    "$best_ours" "$best_torch" "$(python3 -c "print($best_ours / $best_torch)")"
done

[ "$steps" -gt 0 ] || exit 0
echo "learning: gpt 4x128 on fortunes, $steps steps, $threads threads"
"$cli" train --no-db --quiet --set dataset=text model=gpt data.block_size=64 batch_size=32 \
  optimizer=adamw lr=0.003 weight_decay=0.1 lr_schedule=cosine warmup_steps=100 min_lr=0.0003 \
  gradient_clip_val=1.0 max_epochs=0 max_steps="$steps" threads="$threads" num_workers=1 \
  --json > /tmp/tb-gpt-learn.json
python3 - <<'PY'
import json
r = json.loads(open("/tmp/tb-gpt-learn.json").read().strip().splitlines()[-1])
val = r["test_loss"]
print(f"validation loss {val:.3f} nats/char ({val / 0.6931471805599453:.3f} bits/char) after "
      f"{r['steps']} steps, {r['duration_s']:.0f} s; goal < 2.0: {'met' if val < 2.0 else 'NOT met'}")
print("sample:", r["per_epoch"][-1].get("sample", "")[:200])
PY
