#!/usr/bin/env bash
# Trains each model with trainbench-cli bench and with the PyTorch reference, alternating, three
# rounds, on the same batch and thread count; prints the best median step time of each and the
# ratio. Usage: tests/bench/compare_torch.sh [build-dir]   (needs python3-torch)
set -euo pipefail
cd "$(dirname "$0")/../.."
cli="${1:-build/release}/app/cli/trainbench-cli"
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp # PyTorch's BLAS joins its pool
median() { python3 -c "import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])['median_step_ms'])"; }
printf "%-12s %6s %14s %14s %8s\n" model batch "ours (ms)" "pytorch (ms)" "speedup"
for spec in mlp:128:60 lenet5:64:60 fmnist-cnn:64:40 resnet20:128:15; do
  IFS=: read -r model batch steps <<< "$spec"
  best_ours=1e9 best_torch=1e9
  for round in 1 2 3; do
    ours=$("$cli" bench --model "$model" --batch "$batch" --steps "$steps" --threads 2 --json | median)
    torch=$(/usr/bin/python3 tests/bench/torch_reference.py --model "$model" --batch "$batch" \
      --steps "$steps" --threads 2 | median)
    best_ours=$(python3 -c "print(min($best_ours, $ours))")
    best_torch=$(python3 -c "print(min($best_torch, $torch))")
  done
  printf "%-12s %6s %14.3f %14.3f %7.2fx\n" "$model" "$batch" "$best_ours" "$best_torch" \
    "$(python3 -c "print($best_torch / $best_ours)")"
done
