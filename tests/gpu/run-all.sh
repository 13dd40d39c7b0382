#!/usr/bin/env bash
# The GPU check, in one go on a machine with an NVIDIA GPU: the GPU parity suites, the device
# tests, three GPU benchmarks and PyTorch on the same GPU where it is installed, with a short
# report (gpu-report.txt in $OUT, else the work dir).
#
#   tests/gpu/run-all.sh                       configure and build here (Release, -j$JOBS), then run
#   tests/gpu/run-all.sh --bundle FILE.tar.gz  run a bundle from tests/gpu/make-bundle.sh: for GPU
#                                              machines without our build dependencies
#
# Budget: under 8 minutes on 16 cores when building, about 3 with a bundle. Every step runs under
# a timeout cut to what is left of BUDGET_S (default 540 s, inside a 10-minute remote command), so
# a hang costs its step, not the report.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUNDLE=""
if [[ "${1:-}" == --bundle ]]; then
    BUNDLE="$(realpath "$2")"
    shift 2
fi
WORK="${1:-$ROOT/build/gpu-check}"
REPORT_DIR="${OUT:-$WORK}"
REPORT="$REPORT_DIR/gpu-report.txt"
JOBS="${JOBS:-16}"
mkdir -p "$WORK" "$REPORT_DIR"
: > "$REPORT"

say() { echo "$*" | tee -a "$REPORT"; }
section() { say ""; say "== $* ($(date +%T))"; }
started=$(date +%s)
BUDGET_S="${BUDGET_S:-540}"
# Seconds a step may take: its own cap, or what is left of the budget (0: skip the step).
step_limit() {
    local left=$(( BUDGET_S - ($(date +%s) - started) - 10 ))
    (( left < 0 )) && left=0
    echo $(( $1 < left ? $1 : left ))
}

# The CUDA libraries the plugin links, where this machine keeps them: the toolkit, the driver's
# folder, or the pip wheels next to PyTorch (nvidia-cudnn-cu13, nvidia-cublas, ...).
cuda_library_path() {
    local roots=(/usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib
                 /usr/lib/x86_64-linux-gnu /usr/local/nvidia/lib64 /usr/local/nvidia/lib)
    local py dirs=() lib found
    for py in python3 /usr/bin/python3; do
        mapfile -t -O "${#roots[@]}" roots < <("$py" -c \
            'import nvidia; print("\n".join(nvidia.__path__))' 2>/dev/null)
    done
    for lib in libcuda.so.1 libnvidia-ml.so.1 libcudart.so.13 libcublas.so.13 libcublasLt.so.13 \
               libcudnn.so.9; do
        ldconfig -p | awk '{print $1}' | grep -qxF "$lib" && continue
        found=$(find "${roots[@]}" -maxdepth 4 -name "$lib" 2>/dev/null | head -1)
        [[ -n "$found" ]] && dirs+=("$(dirname "$found")")
    done
    (IFS=:; echo "${dirs[*]}")
}

section "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$REPORT"
say "checkout $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
extra="$(cuda_library_path)"
[[ -n "$extra" ]] && say "CUDA libraries also from: $extra"

if [[ -n "$BUNDLE" ]]; then
    section "unpack bundle"
    rm -rf "$WORK/bundle" && mkdir -p "$WORK/bundle" && tar -C "$WORK/bundle" -xzf "$BUNDLE" || {
        say "cannot unpack $BUNDLE"; exit 1; }
    say "bundle built from $(cat "$WORK/bundle/COMMIT")"
    BIN="$WORK/bundle/bin"
    TESTS=("$BIN"/tst_gpu_ops "$BIN"/tst_gpu_memory "$BIN"/tst_gpu_models "$BIN"/tst_backend_devices)
    CLI="$BIN/trainbench-cli"
    export LD_LIBRARY_PATH="$WORK/bundle/lib${extra:+:$extra}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
    section "configure + build (Release, -j$JOBS)"
    BUILD="$WORK"
    if ! cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTB_CUDA=ON \
            -DTB_BUILD_BENCH=OFF > "$BUILD/configure.log" 2>&1; then
        say "configure FAILED (missing dependencies? then use --bundle)"
        tail -30 "$BUILD/configure.log" | tee -a "$REPORT"; exit 1
    fi
    if ! cmake --build "$BUILD" -j"$JOBS" --target trainbench_cuda trainbench-cli tst_gpu_ops \
            tst_gpu_memory tst_gpu_models tst_backend_devices > "$BUILD/build.log" 2>&1; then
        say "build FAILED"; grep -m20 -E "error|Error" "$BUILD/build.log" | tee -a "$REPORT"; exit 1
    fi
    say "built in $(( $(date +%s) - started )) s"
    TESTS=("$BUILD"/tests/gpu/tst_gpu_ops "$BUILD"/tests/gpu/tst_gpu_memory
           "$BUILD"/tests/gpu/tst_gpu_models "$BUILD"/tests/backend/tst_backend_devices)
    CLI="$BUILD/app/cli/trainbench-cli"
    [[ -n "$extra" ]] && export LD_LIBRARY_PATH="$extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export QT_QPA_PLATFORM=offscreen OMP_WAIT_POLICY=PASSIVE

section "doctor"
"$CLI" doctor 2>&1 | tee -a "$REPORT"

section "GPU suites"
tests_rc=0
: > "$WORK/tests.log"
for t in "${TESTS[@]}"; do
    name=$(basename "$t")
    limit=$(step_limit 240)
    if (( limit == 0 )); then say "$name: SKIPPED, out of time"; tests_rc=1; continue; fi
    timeout "$limit" "$t" > "$WORK/$name.log" 2>&1
    rc=$?
    (( rc == 124 )) && say "$name: TIMED OUT after $limit s"
    cat "$WORK/$name.log" >> "$WORK/tests.log"
    say "$name: rc=$rc $(grep -m1 '^Totals:' "$WORK/$name.log")"
    grep -E "^(FAIL!|SKIP)" -A1 "$WORK/$name.log" | head -20 | tee -a "$REPORT"
    [[ $rc -ne 0 ]] && tests_rc=1
    # A skipped GPU suite is a failed check here: this script runs only where a GPU should be.
    grep -q "No usable GPU" "$WORK/$name.log" && tests_rc=1
done
# The per-output maxdiff / NMSE lines, and every failing one in full. A comparison line ends in
# "ok" or "FAIL"; the "FAIL!" lines (which also name a maxdiff) are Qt's, one per failed test row.
grep -E "maxdiff|worst at|FAIL!" "$WORK/tests.log" > "$WORK/parity.txt"
say "parity lines: $(grep -cE ' (ok|FAIL)$' "$WORK/parity.txt") ($(grep -c ' FAIL$' \
    "$WORK/parity.txt") failing)"
grep -E "FAIL|worst" "$WORK/parity.txt" | head -40 | tee -a "$REPORT"
grep -E "^QINFO" "$WORK/tests.log" | head -20 | tee -a "$REPORT"

bench() {
    local name=$1; shift
    section "bench $name: $*"
    local limit
    limit=$(step_limit 150)
    if (( limit == 0 )); then say "SKIPPED, out of time"; return 1; fi
    timeout "$limit" "$CLI" bench --device cuda:0 --compare-cpu "$@" > "$WORK/bench-$name.txt" 2>&1
    local rc=$?
    tee -a "$REPORT" < "$WORK/bench-$name.txt"
    say "rc=$rc"
    return $rc
}
bench_rc=0
bench resnet20 --model resnet20 --batch 512 --precision 16-mixed || bench_rc=1
bench fmnist-cnn --model fmnist-cnn --batch 256 || bench_rc=1
bench resnet20-fp32 --model resnet20 --batch 512 || bench_rc=1

# PyTorch on the same GPU, same models and batches, where the machine has it.
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
    section "PyTorch reference on the GPU"
    for args in "--model resnet20 --batch 512 --precision 16-mixed" \
                "--model fmnist-cnn --batch 256" "--model resnet20 --batch 512"; do
        limit=$(step_limit 90)
        (( limit == 0 )) && { say "SKIPPED, out of time"; break; }
        # shellcheck disable=SC2086 # word splitting of $args is intended
        timeout "$limit" python3 "$ROOT/tests/bench/torch_reference.py" --device cuda $args 2>&1 |
            tail -1 | tee -a "$REPORT"
    done
fi

section "summary"
say "tests rc=$tests_rc, bench rc=$bench_rc, total $(( $(date +%s) - started )) s"
# What comes back from a lent machine is limited to a few files: the report, the full test log
# and the parity lines.
[[ "$REPORT_DIR" != "$WORK" ]] && cp "$WORK"/tests.log "$WORK"/parity.txt "$REPORT_DIR"/
[[ $tests_rc -eq 0 && $bench_rc -eq 0 ]]
