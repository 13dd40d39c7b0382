#!/usr/bin/env python3
"""Judges the GPU check's default runs (tests/gpu/run-all.sh): reads `trainbench-cli runs
compare ID... --metric train/loss --json` on stdin, the reference run's id first, and each
run's `train --json` summary from the files named on the command line, and prints one verdict
line per run against the reference:

  curve cuda-32 vs cpu-32: first 10 steps within 3.1% (limit 5%), val/acc 88.9 vs 88.7 (limit 2.0 points) ok

The runs log every step (run-all.sh's train_run), so the first ten points are the first ten
optimizer steps, and 16-mixed starts at a loss scale (256) that skips none of them: every run
makes the same updates, which is what the limits below assume.

Why these limits: one epoch of SGD from the same seed, data order and weights; per step the
devices differ by float rounding only (cuDNN's and oneDNN's summation orders, f16/bf16 storage
under mixed precision), about 1e-6 relative in fp32 and 1e-3 in 16-mixed and bf16-mixed. The
difference grows with the steps but stays within a few percent of the loss over the first ten;
a wrong kernel moves the loss by far more at the first step. By the end of the epoch the runs
have separated the way two seeds do, so only the validation accuracy is compared, within the
spread of Fashion-MNIST runs at this size (about one point either way).
Exit status 1 when a run is outside its limits.
"""
import json
import sys

EARLY_STEPS = 10
EARLY_LIMIT = 0.05
ACC_LIMIT_POINTS = 2.0


def main():
    series = json.load(sys.stdin)["runs"]
    summaries = {}
    for path in sys.argv[1:]:
        with open(path) as f:
            s = json.loads(f.read().strip().splitlines()[-1])
        summaries[s.get("run_id", path)] = s
    ref = series[0]
    ref_loss = dict(zip(ref["x"], ref["y"]))
    ref_acc = summaries.get(ref["id"], {}).get("best_val_acc")
    failed = False
    for run in series[1:]:
        steps = [x for x in run["x"] if x in ref_loss][:EARLY_STEPS]
        worst = max((abs(y - ref_loss[x]) / abs(ref_loss[x])
                     for x, y in zip(run["x"], run["y"])
                     if x in steps and y is not None and ref_loss[x]), default=None)
        acc = summaries.get(run["id"], {}).get("best_val_acc")
        ok = worst is not None and worst <= EARLY_LIMIT
        line = f"curve {run['id']} vs {ref['id']}: "
        line += ("no common steps" if worst is None else
                 f"first {len(steps)} steps within {100 * worst:.1f}% (limit {100 * EARLY_LIMIT:.0f}%)")
        if acc is not None and ref_acc is not None:
            ok = ok and abs(acc - ref_acc) * 100 <= ACC_LIMIT_POINTS
            line += (f", val/acc {100 * acc:.1f} vs {100 * ref_acc:.1f} "
                     f"(limit {ACC_LIMIT_POINTS:.1f} points)")
        else:
            ok = False
            line += ", val/acc missing"
        print(line + (" ok" if ok else " FAIL"))
        failed = failed or not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
