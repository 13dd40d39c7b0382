#!/usr/bin/env bash
# GPU check for a machine with an NVIDIA GPU: configure and build (Release) from a fresh checkout,
# run the GPU parity suite (ctest -L gpu), the device tests and two GPU benchmarks, and write a
# short report. Budget: under 8 minutes on 16 cores. Usage: tests/gpu/run-all.sh [build-dir]
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:-$ROOT/build/gpu-check}"
REPORT_DIR="${OUT:-$BUILD}"
REPORT="$REPORT_DIR/gpu-report.txt"
JOBS="${JOBS:-16}"
CLI="$BUILD/app/cli/trainbench-cli"
mkdir -p "$BUILD" "$REPORT_DIR"
: > "$REPORT"

say() { echo "$*" | tee -a "$REPORT"; }
section() { say ""; say "== $* ($(date +%T))"; }
started=$(date +%s)

section "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$REPORT"

section "configure + build (Release, -j$JOBS)"
if ! cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTB_CUDA=ON -DTB_BUILD_BENCH=OFF \
        > "$BUILD/configure.log" 2>&1; then
    say "configure FAILED"; tail -30 "$BUILD/configure.log" | tee -a "$REPORT"; exit 1
fi
# Only what the check runs: the plugin, the CLI and the GPU / device tests.
if ! cmake --build "$BUILD" -j"$JOBS" --target trainbench_cuda trainbench-cli tst_gpu_ops \
        tst_gpu_memory tst_gpu_models tst_backend_devices > "$BUILD/build.log" 2>&1; then
    say "build FAILED"; grep -m20 -E "error|Error" "$BUILD/build.log" | tee -a "$REPORT"; exit 1
fi
say "built in $(( $(date +%s) - started )) s"

section "doctor"
"$CLI" doctor 2>&1 | tee -a "$REPORT"

section "ctest -L gpu, then the device tests"
(cd "$BUILD" && ctest -L gpu --verbose --timeout 240 > "$BUILD/ctest.log" 2>&1)
ctest_rc=$?
(cd "$BUILD" && ctest -R backend_devices --output-on-failure >> "$BUILD/ctest.log" 2>&1) || ctest_rc=1
grep -E "Test +#|tests passed|Skipped|\*\*\*Failed" "$BUILD/ctest.log" | tee -a "$REPORT"
if grep -q "No usable GPU" "$BUILD/ctest.log"; then
    say "GPU tests were SKIPPED:"; grep -m1 "No usable GPU" "$BUILD/ctest.log" | tee -a "$REPORT"
    ctest_rc=1
fi
# The per-output maxdiff / NMSE lines, and every failing one in full.
grep -E "maxdiff|worst at|FAIL!" "$BUILD/ctest.log" | sed -E 's/^[0-9]+: //' > "$BUILD/parity.txt"
say "parity lines: $(grep -c maxdiff "$BUILD/parity.txt") ($(grep -c 'FAIL' "$BUILD/parity.txt") failing)"
grep -E "FAIL|worst" "$BUILD/parity.txt" | head -40 | tee -a "$REPORT"

section "bench resnet20 batch 512 16-mixed"
timeout 180 "$CLI" bench --device cuda:0 --model resnet20 --batch 512 --precision 16-mixed --compare-cpu \
    --json > "$BUILD/bench-resnet20.json" 2> "$BUILD/bench-resnet20.err"
bench1_rc=$?
say "rc=$bench1_rc"; head -c 2000 "$BUILD/bench-resnet20.json" | tee -a "$REPORT"
tail -5 "$BUILD/bench-resnet20.err" | tee -a "$REPORT"

section "bench fmnist-cnn batch 256"
timeout 120 "$CLI" bench --device cuda:0 --model fmnist-cnn --batch 256 --compare-cpu --json \
    > "$BUILD/bench-fmnist.json" 2> "$BUILD/bench-fmnist.err"
bench2_rc=$?
say "rc=$bench2_rc"; head -c 2000 "$BUILD/bench-fmnist.json" | tee -a "$REPORT"
tail -5 "$BUILD/bench-fmnist.err" | tee -a "$REPORT"

section "summary"
say "ctest rc=$ctest_rc, bench rc=$bench1_rc/$bench2_rc, total $(( $(date +%s) - started )) s"
cp "$BUILD"/ctest.log "$BUILD"/parity.txt "$BUILD"/bench-*.json "$REPORT_DIR"/ 2>/dev/null || true
[ $ctest_rc -eq 0 ] && [ $bench1_rc -eq 0 ] && [ $bench2_rc -eq 0 ]
