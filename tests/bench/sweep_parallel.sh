#!/usr/bin/env bash
# Sweeps, --parallel 2 against --parallel 1: the same 2-key grid of 16 short trials of the
# default model (fmnist-cnn on Fashion-MNIST: lr x batch_size, 4 x 4, 60 optimizer steps and a
# validation each), the two interleaved `rounds` times (1, 2, 1, 2, ...), each into a fresh run
# store so nothing is resumed. Prints every wall time and the ratio of the means. The config's
# threads stays 0, so one trial at a time uses every core and two at once get half each.
# Usage: tests/bench/sweep_parallel.sh [build-dir] [rounds]
set -euo pipefail
cd "$(dirname "$0")/../.."
cli="$PWD/${1:-build/release}/app/cli/trainbench-cli"
rounds="${2:-2}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

grid=(--grid lr=0.003,0.01,0.03,0.1 --grid batch_size=32,64,128,256
      --set max_epochs=0 --set max_steps=60 --set num_workers=1 --set device=cpu
      --metric best_val_acc --quiet --json)
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) threads;" \
     "oneDNN ISA: $("$cli" doctor --json 2>/dev/null | python3 -c \
       'import json,sys; print(json.load(sys.stdin)["cpu"]["compute"]["isa"])' \
       2>/dev/null || echo '?')"
declare -A total=([1]=0 [2]=0)
for round in $(seq "$rounds"); do
  for parallel in 1 2; do
    db="$work/runs-$round-$parallel.db"
    start=$(date +%s.%N)
    "$cli" sweep "${grid[@]}" --parallel "$parallel" --db "$db" > "$work/out.json"
    seconds=$(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')")
    trials=$(python3 -c "import json; print(len(json.load(open('$work/out.json'))['trials']))")
    echo "round $round, --parallel $parallel: $trials trials in ${seconds} s"
    total[$parallel]=$(python3 -c "print(${total[$parallel]} + $seconds)")
  done
done
python3 -c "a, b = ${total[1]} / $rounds, ${total[2]} / $rounds; \
print(f'mean: --parallel 1 {a:.1f} s, --parallel 2 {b:.1f} s: {a / b:.2f}x as fast')"
