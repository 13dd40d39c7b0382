#!/usr/bin/env bash
# Trains each model with trainbench-cli bench and with the PyTorch reference, alternating, three
# rounds, on the same batch and thread count, in f32 and in bf16 (ours bf16-mixed, PyTorch
# torch.autocast("cpu", bfloat16)); prints the best median step time of each, the ratio
# ours / PyTorch (below 1: ours is faster) and our oneDNN reorders per step.
# Usage: tests/bench/compare_torch.sh [build-dir] [threads] [model:batch:steps,...]
#   (needs python3-torch; torchvision's models, python3-torchvision). The ImageNet models at
#   224 px: tests/bench/compare_torch.sh build/release 2 resnet18:32:4,resnet50:16:3
set -euo pipefail
cd "$(dirname "$0")/../.."
cli="${1:-build/release}/app/cli/trainbench-cli"
threads="${2:-2}"
models="${3:-mlp:128:60,lenet5:64:60,fmnist-cnn:64:40,resnet20:128:15}"
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp # PyTorch's BLAS joins its pool
field() { python3 -c "import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])['$1'])"; }
min() { python3 -c "print(min($1, $2))"; }

probe=$("$cli" bench --model mlp --steps 3 --warmup 1 --threads "$threads" --json | tail -1)
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $threads threads; oneDNN ISA $(field cpu_isa <<< "$probe"), bf16 $(field cpu_bf16 <<< "$probe")"
printf "%-11s %5s | %9s %9s %6s %5s | %9s %9s %6s %5s\n" model batch \
  "f32 ours" "pytorch" ratio reord "bf16 ours" "pytorch" ratio reord
for spec in ${models//,/ }; do
  IFS=: read -r model batch steps <<< "$spec"
  warmup=$((steps < 10 ? 2 : 5)) # a 224 px step takes seconds on a few cores
  row=$(printf "%-11s %5s" "$model" "$batch")
  for precision in 32 bf16-mixed; do
    best_ours=1e9 best_torch=1e9 reorders=0
    for round in 1 2 3; do
      ours=$("$cli" bench --model "$model" --batch "$batch" --steps "$steps" --warmup "$warmup" \
        --threads "$threads" --precision "$precision" --json | tail -1)
      torch=$(/usr/bin/python3 tests/bench/torch_reference.py --model "$model" --batch "$batch" \
        --steps "$steps" --warmup "$warmup" --threads "$threads" --precision "$precision" |
        field median_step_ms)
      best_ours=$(min "$best_ours" "$(field median_step_ms <<< "$ours")")
      best_torch=$(min "$best_torch" "$torch")
      reorders=$(field reorders_per_step <<< "$ours")
    done
    row+=$(printf " | %9.3f %9.3f %5.2fx %5s" "$best_ours" "$best_torch" \
      "$(python3 -c "print($best_ours / $best_torch)")" "$reorders")
  done
  echo "$row"
done
