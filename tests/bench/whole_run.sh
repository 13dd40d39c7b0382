#!/usr/bin/env bash
# The default run (fmnist-cnn, Fashion-MNIST, batch 64, 2 epochs) start to finish in TrainBench
# (`trainbench-cli train`, flush_denormals on, its default, and off) and as the same plain
# PyTorch script (torch_whole_run.py), alternating, on the same threads. Prints per-epoch
# samples/s, the wall time of the whole command, its peak RSS, the validation accuracy and the
# time until it reached 90%, and the ratios (below 1: TrainBench is faster).
# Usage: tests/bench/whole_run.sh [build-dir] [threads] [rounds]   (needs python3-torch)
set -euo pipefail
cd "$(dirname "$0")/../.."
cli="${1:-build/release}/app/cli/trainbench-cli"
threads="${2:-2}"
rounds="${3:-2}"
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp # PyTorch's BLAS joins its pool
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
results=${TB_WHOLE_RUN_RESULTS:-$out/results} # every run's JSON line, kept where asked

# run NAME COMMAND...: the command's last stdout line (JSON) plus wall_s and peak_rss_mb.
run() {
  local name=$1
  shift
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -f %M -o "$out/rss" "$@" 2>/dev/null | tail -1 > "$out/json"
  t1=$(date +%s.%N)
  python3 - "$name" "$t0" "$t1" "$out/rss" "$out/json" >> "$results" <<'PY'
import json, sys
name, t0, t1, rss, path = sys.argv[1:]
j = json.load(open(path))
j.update(name=name, wall_s=float(t1) - float(t0), peak_rss_mb=int(open(rss).read()) / 1024)
print(json.dumps(j))
PY
}

probe=$("$cli" bench --model mlp --steps 3 --warmup 1 --threads "$threads" --json | tail -1)
isa=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['cpu_isa'])" "$probe")
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $threads threads; oneDNN ISA $isa; $rounds rounds"
for round in $(seq "$rounds"); do
  run trainbench "$cli" train --no-db --quiet --json --set threads="$threads"
  run pytorch /usr/bin/python3 tests/bench/torch_whole_run.py --threads "$threads"
  run "trainbench flush_denormals=false" "$cli" train --no-db --quiet --json \
    --set threads="$threads" --set flush_denormals=false
done

python3 - "$results" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
names = list(dict.fromkeys(r["name"] for r in runs))
def to90(r):
    hit = [e["elapsed_s"] for e in r["per_epoch"] if e["val_acc"] >= 0.9]
    return hit[0] if hit else float("nan")
print(f"{'':34} {'epoch 1':>9} {'epoch 2':>9} {'2 / 1':>6} {'wall s':>7} {'RSS MB':>7} "
      f"{'val acc':>8} {'to 90%':>7}")
best = {}
for name in names:
    mine = [r for r in runs if r["name"] == name]
    # The best round of each (least disturbed by the rest of the machine), by wall time.
    r = min(mine, key=lambda r: r["wall_s"])
    best[name] = r
    e = r["per_epoch"]
    rounds = ", ".join("%.1f" % m["wall_s"] for m in mine)
    print(f"{name:34} {e[0]['samples_per_s']:9.0f} {e[-1]['samples_per_s']:9.0f} "
          f"{e[-1]['samples_per_s'] / e[0]['samples_per_s']:6.2f} {r['wall_s']:7.1f} "
          f"{r['peak_rss_mb']:7.0f} {e[-1]['val_acc'] * 100:7.2f}% {to90(r):7.1f}"
          f"   (wall of each round: {rounds})")
ours, torch = best["trainbench"], best["pytorch"]
print(f"wall time TrainBench / PyTorch: {ours['wall_s'] / torch['wall_s']:.2f}x; "
      f"time to 90%: {to90(ours) / to90(torch):.2f}x")
PY
