#!/usr/bin/env bash
# What following a run live costs the run: `trainbench-cli train` (fmnist-cnn on Fashion-MNIST,
# one epoch) alone, and with the window's Runs tab comparing it while it trains
# (tb_bench_runs_view --follow, offscreen: it polls the store, reads the new rows and redraws),
# alternating. Prints each round's samples/s and the overhead of the best rounds.
# Usage: tests/bench/live_follow.sh [build-dir] [threads] [rounds]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/ci}
threads=${2:-2}
rounds=${3:-3}
cli=$build/app/cli/trainbench-cli
follower=$build/tests/bench/tb_bench_runs_view
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
train() { # train DB: the run's mean samples/s
  "$cli" train --quiet --json --db "$1" --set max_epochs=1 --set threads="$threads" |
    tail -1 | python3 -c "import json,sys; print(json.load(sys.stdin)['samples_per_s'])"
}
follow() { # follow DB: once the CLI has created the store, the Runs tab follows its run
  while [[ ! -s "$1" ]]; do sleep 0.05; done
  QT_QPA_PLATFORM=offscreen "$follower" --follow "$1"
}
probe=$("$cli" bench --model mlp --steps 3 --warmup 1 --threads "$threads" --json | tail -1)
isa=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['cpu_isa'])" "$probe")
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $threads threads; oneDNN ISA $isa; $rounds rounds"
alone=() followed=()
for round in $(seq "$rounds"); do
  alone+=("$(train "$out/alone-$round.db")")
  follow "$out/followed-$round.db" &
  follower_pid=$!
  followed+=("$(train "$out/followed-$round.db")")
  wait "$follower_pid"
  echo "round $round: alone ${alone[-1]} samples/s, followed ${followed[-1]} samples/s"
done
python3 - "${alone[*]}" "${followed[*]}" <<'PY'
import sys
alone = max(map(float, sys.argv[1].split()))
followed = max(map(float, sys.argv[2].split()))
print(f"best: alone {alone:.0f} samples/s, followed {followed:.0f} samples/s: "
      f"step time +{(alone / followed - 1) * 100:.1f}% while followed")
PY
