#!/usr/bin/env python3
"""Speed kept, commit to commit: builds two commits side by side and runs the same benchmarks on
both, interleaved (A B, then B A, ...), so drift of the machine falls on both alike.

  tests/bench/compare_commits.py BASE [NEW] [--rounds 3] [--threads 2] [--only NAME,...]

Each commit is checked out as a detached git worktree under build/compare/<sha>/src and its CLI
built there (Release, Ninja, no CUDA plugin) through ccache relative to the worktree, so that
sources the commits share compile once. The benchmarks: the whole default run (`train`, the
README's first run: fmnist-cnn on Fashion-MNIST, 2 epochs; its wall time and epoch-2 samples/s)
and `bench` steps of mlp, lenet5, resnet20 in f32 and bf16-mixed, resnet18 at 224 px and a
4-layer GPT. Prints each benchmark's median samples/s on both, NEW / BASE (above 1: NEW is
faster) and the spread of the per-round ratios. A model a commit does not have is "n/a".
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# name: the arguments after `trainbench-cli`, and the JSON field that measures it
BENCHMARKS = {
    "whole run (2 epochs)": (["train", "--no-db", "--quiet"], "wall_s"),
    "mlp b128": (["bench", "--model", "mlp", "--steps", "60", "--warmup", "10"], "samples_per_s"),
    "lenet5 b128": (["bench", "--model", "lenet5", "--input", "1x28x28", "--steps", "40",
                     "--warmup", "5"], "samples_per_s"),
    "resnet20 b128 f32": (["bench", "--model", "resnet20", "--input", "3x32x32", "--steps",
                           "15", "--warmup", "3"], "samples_per_s"),
    "resnet20 b128 bf16": (["bench", "--model", "resnet20", "--input", "3x32x32", "--steps",
                            "15", "--warmup", "3", "--precision", "bf16-mixed"],
                           "samples_per_s"),
    "resnet18 224px b16": (["bench", "--model", "resnet18", "--input", "3x224x224", "--batch",
                            "16", "--steps", "5", "--warmup", "2"], "samples_per_s"),
    "gpt 4x128 ctx64 b32": (["bench", "--model", "gpt", "--n-layer", "4", "--n-embd", "128",
                             "--batch", "32", "--steps", "15", "--warmup", "3"],
                            "samples_per_s"),
}


def git(*args, cwd=ROOT):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def build(commit):
    """The commit's trainbench-cli, built in its own worktree; returns its path."""
    sha = git("rev-parse", "--verify", commit + "^{commit}")
    place = ROOT / "build" / "compare" / sha[:12]
    src, out = place / "src", place / "build"
    if not src.exists():
        git("worktree", "add", "--detach", str(src), sha)
    launcher = ["env", f"CCACHE_BASEDIR={src}", "CCACHE_NOHASHDIR=1",
                "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime",
                "ccache"]
    configure = ["cmake", "-S", str(src), "-B", str(out), "-G", "Ninja",
                 "-DCMAKE_BUILD_TYPE=Release", "-DTB_CUDA=OFF", "-DTB_BUILD_TESTS=OFF",
                 "-DTB_BUILD_BENCH=OFF"]
    if subprocess.run(["which", "ccache"], capture_output=True).returncode == 0:
        configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=" + ";".join(launcher))
    t0 = time.monotonic()
    subprocess.run(configure, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", str(out), "-j2", "--target", "trainbench-cli"],
                   check=True, stdout=subprocess.DEVNULL)
    print(f"{commit} ({sha[:10]}): built in {time.monotonic() - t0:.0f} s", flush=True)
    return out / "app" / "cli" / "trainbench-cli"


def measure(command, field):
    """One run's figure (higher is faster) and its JSON, or None and the reason it failed (a
    model the commit does not have, for one)."""
    t0 = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if done.returncode != 0:
        return None, (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    # a whole run counts in runs per second, so that higher is faster as for the rest
    return (1.0 / wall if field == "wall_s" else result[field]), result


def with_threads(args, threads):
    return [*args, "--json", *(["--threads", str(threads)] if args[0] == "bench"
                               else ["--set", f"threads={threads}"])]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("new", nargs="?", default="HEAD")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--only", help="comma-separated benchmark names (prefixes)")
    parser.add_argument("--torch", action="store_true",
                        help="also time the whole run as PyTorch (python3-torch) each round")
    opts = parser.parse_args()

    benchmarks = {name: spec for name, spec in BENCHMARKS.items()
                  if not opts.only or any(name.startswith(p) for p in opts.only.split(","))}
    clis = {label: build(commit) for label, commit in (("base", opts.base), ("new", opts.new))}
    figures = {name: {"base": [], "new": []} for name in benchmarks}
    torch_runs = []  # the same whole run as a plain PyTorch script: what the machine does
    # PyTorch's OpenBLAS joins its OpenMP pool, as in whole_run.sh
    torch_script = ["env", "LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp",
                    "/usr/bin/python3", str(ROOT / "tests/bench/torch_whole_run.py"),
                    "--threads", str(opts.threads)]
    failures, isa = {}, "?"
    for round_index in range(opts.rounds):
        order = ["base", "new"] if round_index % 2 == 0 else ["new", "base"]
        for name, (args, field) in benchmarks.items():
            for label in order:
                value, detail = measure([str(clis[label]), *with_threads(args, opts.threads)],
                                        field)
                if value is None:
                    failures[(name, label)] = detail
                    continue
                figures[name][label].append(value)
                isa = detail.get("cpu_isa", isa)
            if field == "wall_s" and opts.torch:
                value, detail = measure(torch_script, "wall_s")
                if value is not None:
                    torch_runs.append(value)
        print(f"round {round_index + 1}/{opts.rounds} done", flush=True)

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), platform.processor())
    print(f"\nCPU: {cpu}; {opts.threads} threads; oneDNN ISA {isa}; {opts.rounds} rounds, "
          f"interleaved\nbase {opts.base}, new {opts.new}; samples/s (whole run: runs/hour)\n")
    print(f"{'':22} {'base':>10} {'new':>10} {'new/base':>9}  spread of the rounds' ratios")
    for name, by in figures.items():
        base, new = by["base"], by["new"]
        scale = 3600.0 if name.startswith("whole") else 1.0
        cells = [f"{statistics.median(v) * scale:10.1f}" if v else f"{'n/a':>10}"
                 for v in (base, new)]
        if not base or not new:
            missing = "base" if not base else "new"
            print(f"{name:22} {cells[0]} {cells[1]}  "
                  f"({missing}: {failures.get((name, missing), 'no figure')})")
            continue
        ratios = [n / b for b, n in zip(base, new)]
        print(f"{name:22} {cells[0]} {cells[1]} "
              f"{statistics.median(new) / statistics.median(base):8.2f}x  "
              f"{min(ratios):.2f}-{max(ratios):.2f}")
    whole = figures.get("whole run (2 epochs)")
    if torch_runs and whole and whole["base"] and whole["new"]:
        torch_wall = 1.0 / statistics.median(torch_runs)
        print(f"\nwhole run wall time / PyTorch's ({torch_wall:.1f} s): base "
              f"{1.0 / statistics.median(whole['base']) / torch_wall:.2f}x, new "
              f"{1.0 / statistics.median(whole['new']) / torch_wall:.2f}x (below 1: faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
