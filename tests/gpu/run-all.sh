#!/usr/bin/env bash
# The GPU check: everything a first run on a real GPU must prove, in one go, with one report.
# It runs only bundles (tests/gpu/make-bundle.sh): the GPU machines it is for have the NVIDIA
# driver and CUDA's libraries but none of our build dependencies and no package registry.
#
#   tests/gpu/run-all.sh --bundle ARCHIVE [WORK_DIR]
#
# In order, each step under its own timeout cut to what is left of BUDGET_S (default 480 s, to
# fit a 9-minute remote call with the unpacking), so a hang costs its step, not the report:
#   machine   nvidia-smi -q (to nvidia-smi.txt), the driver, CUDA's libraries found, PyTorch
#   doctor    trainbench-cli doctor, and --json (doctor.json)
#   suites    the plugin's logic, device selection, op parity (f32/f16/bf16, NCCL on one rank),
#             memory (out of memory then training normally, no cudaMalloc once warm, pinned
#             copies) and the zoo's models; a skipped suite counts as a failure here
#   fallback  the convolution parity again with cuDNN's first-ranked algorithm refused
#             (TRAINBENCH_CUDNN_REFUSE_FIRST=1), so every pass runs on its fallback
#   runs      the default run (fmnist-cnn) for one epoch on the bundle's Fashion-MNIST subset,
#             batch 256 (short last batches), 4 workers, pinned memory: on the CPU, and on the
#             GPU in 32, 16-mixed, bf16-mixed and 32 with the fallback; loss curves and val/acc
#             against the CPU's (curves.py)
#   sanitizer compute-sanitizer memcheck and racecheck over three training steps (the CUDA
#             libraries' own API queries not reported)
#   bench     fmnist-cnn b256 and resnet20 b512 (32 and 16-mixed): steady samples/s, host
#             overhead, NVML utilisation, the input copy's hidden share; PyTorch 2.x on the same
#             GPU where python3 has it, for the ratio
# What only a GPU can tell comes first, the benchmarks last. Without a usable GPU (a dry run)
# every GPU step says "skipped: no GPU" and the rest runs, so the flow and the report can be
# proved anywhere (tests/gpu/bundle-test.sh does). Each section's header shows the seconds
# spent and left.
# The report is gpu-report.txt in $OUT (else WORK_DIR), with the logs beside it.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [[ "${1:-}" != --bundle || -z "${2:-}" ]]; then
    echo "usage: $0 --bundle ARCHIVE [WORK_DIR]  (make ARCHIVE with tests/gpu/make-bundle.sh)" >&2
    exit 2
fi
ARCHIVE="$(realpath "$2")"
WORK="${3:-$ROOT/build/gpu-check}"
REPORT_DIR="${OUT:-$WORK}"
REPORT="$REPORT_DIR/gpu-report.txt"
BUDGET_S="${BUDGET_S:-480}"
mkdir -p "$WORK" "$REPORT_DIR"
: > "$REPORT"
started=$(date +%s)
failures=()

say() { echo "$*" | tee -a "$REPORT"; }
section() {
    local spent=$(( $(date +%s) - started ))
    say ""; say "== $* (${spent} s spent, $(( BUDGET_S - spent )) s left)"
}
fail() { failures+=("$1"); }
# Seconds a step may take: its own cap, or what is left of the budget (0: skip the step).
step_limit() {
    local left=$(( BUDGET_S - ($(date +%s) - started) - 5 ))
    (( left < 0 )) && left=0
    echo $(( $1 < left ? $1 : left ))
}
# run_step NAME CAP LOG COMMAND...: runs under its limit; says how it ended.
run_step() {
    local name=$1 cap=$2 log=$3
    shift 3
    local limit
    limit=$(step_limit "$cap")
    if (( limit == 0 )); then say "$name: SKIPPED, out of time"; fail "$name"; return 1; fi
    timeout -k 5 "$limit" "$@" > "$log" 2>&1
    local rc=$?
    (( rc == 124 || rc == 137 )) && say "$name: TIMED OUT after $limit s"
    return $rc
}

section "unpack"
rm -rf "$WORK/bundle" && mkdir -p "$WORK/bundle" && tar -C "$WORK/bundle" -xJf "$ARCHIVE" || {
    say "cannot unpack $ARCHIVE"; exit 1; }
say "bundle built from $(cat "$WORK/bundle/COMMIT")"
# shellcheck source=tests/gpu/bundle-env.sh
source "$ROOT/tests/gpu/bundle-env.sh" "$WORK/bundle"
CLI="$BUNDLE_CLI"
FMNIST="$BUNDLE_DATA/fashion-mnist"

section "machine"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi -q > "$REPORT_DIR/nvidia-smi.txt" 2>&1
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit \
        --format=csv,noheader 2>&1 | tee -a "$REPORT"
else
    say "nvidia-smi: not on this machine"
fi
say "CUDA libraries from: ${CUDA_LIBRARY_DIRS:-the ldconfig cache}"
# The libraries the plugin links, as the loader resolves them here (NCCL is opened on demand:
# doctor names it).
ldd "$BUNDLE_DIR/lib/libtrainbench_cuda.so" 2>&1 | grep -E "libcudart|libcublas|libcudnn|not found" |
    sed 's/^[[:space:]]*/  /' | tee -a "$REPORT"
torch_versions='import sys, torch
print(sys.version.split()[0], "torch", torch.__version__, "CUDA", torch.version.cuda, "cuDNN",
      torch.backends.cudnn.version(), "GPU", torch.cuda.is_available())'
if command -v python3 >/dev/null; then
    say "python3: $(python3 -c "$torch_versions" 2>/dev/null || python3 -c 'import sys
print(sys.version.split()[0], "without PyTorch: its reference timings are skipped")')"
else
    say "python3: none (the loss-curve comparison and PyTorch's reference are skipped)"
fi
say "compute-sanitizer: $({ compute-sanitizer --version || /usr/local/cuda/bin/compute-sanitizer \
    --version; } 2>/dev/null | grep -m1 -i version || echo none)"
say "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) cores"

section "doctor"
"$CLI" doctor 2>&1 | tee -a "$REPORT"
"$CLI" doctor --json > "$REPORT_DIR/doctor.json" 2> "$WORK/doctor.stderr"
GPU=0
grep -Eq '"usable": *true' "$REPORT_DIR/doctor.json" && GPU=1
if ((GPU == 0)); then
    fail "doctor: GPU not usable"
    say "no usable GPU: every GPU step below is skipped"
fi
# needs_gpu NAME: false (and says so) on a machine without a usable GPU.
needs_gpu() {
    ((GPU == 1)) && return 0
    say "$1: skipped: no GPU"
    return 1
}

section "suites"
: > "$WORK/tests.log"
suite() { # NAME CAP [ARGS...]: one test binary; a skip is a failure on a GPU machine
    local name=$1 cap=$2
    shift 2
    [[ $name == tst_gpu_* ]] && ! needs_gpu "$name${*:+ $*}" && return
    run_step "$name" "$cap" "$WORK/$name.log" "$BUNDLE_BIN/$name" "$@"
    local rc=$?
    cat "$WORK/$name.log" >> "$WORK/tests.log"
    say "$name${*:+ $*}: rc=$rc $(grep -m1 "^Totals:" "$WORK/$name.log")"
    grep -E "^(FAIL!|SKIP)" -A1 "$WORK/$name.log" | head -12 | tee -a "$REPORT"
    if (( rc != 0 )) || grep -q "^SKIP" "$WORK/$name.log"; then fail "$name${*:+ $*}"; fi
}
suite tst_cuda_plugin 30
suite tst_backend_devices 30
suite tst_gpu_ops 90
suite tst_gpu_memory 90
suite tst_gpu_models 150
grep -E "maxdiff|worst at|FAIL!" "$WORK/tests.log" > "$REPORT_DIR/parity.txt"
say "parity lines: $(grep -cE ' (ok|FAIL)$' "$REPORT_DIR/parity.txt")," \
    "$(grep -c ' FAIL$' "$REPORT_DIR/parity.txt") failing"
grep -E " FAIL$|worst" "$REPORT_DIR/parity.txt" | head -30 | tee -a "$REPORT"

section "fallback: cuDNN's first-ranked algorithm refused"
if needs_gpu "fallback"; then
    export TRAINBENCH_CUDNN_REFUSE_FIRST=1
    suite tst_gpu_ops 60 conv
    say "fallbacks taken: $(grep -c "cuDNN refused convolution" "$WORK/tst_gpu_ops.log")"
    grep -q "cuDNN refused convolution" "$WORK/tst_gpu_ops.log" || fail "fallback never taken"
    unset TRAINBENCH_CUDNN_REFUSE_FIRST
fi

section "runs: fmnist-cnn, one epoch on $(basename "$FMNIST") subset"
DB="$WORK/check.db"
rm -f "$DB"*
summary_line='import json, sys
s = json.loads(sys.stdin.read())
print("status", s["status"], "val_acc", s["best_val_acc"], "samples/s", round(s["samples_per_s"]),
      "steps", s["steps"])'
# Every step is logged, so that curves.py compares the first ten steps, not ten points spread
# over the epoch; 16-mixed starts its loss scale at 256, which this model's gradients never
# overflow, so that no early update is skipped that the other precisions make.
train_run() { # ID DEVICE PRECISION [NAME=VALUE...]: the run's own environment
    local id=$1 device=$2 precision=$3
    shift 3
    run_step "run $id" 90 "$WORK/run-$id.json" env "$@" "$CLI" train --db "$DB" --run-id "$id" \
        --json --set dataset=fashion-mnist --set data.root="$FMNIST" --set model=fmnist-cnn \
        --set max_epochs=1 --set batch_size=256 --set num_workers=4 --set pin_memory=true \
        --set device="$device" --set precision="$precision" --set log_every_n_steps=1 \
        --set amp.init_scale=256 --set checkpoint_dir="$WORK/checkpoints"
    local rc=$?
    if command -v python3 >/dev/null; then
        say "run $id: rc=$rc $(tail -1 "$WORK/run-$id.json" | python3 -c "$summary_line" 2>&1 |
            tail -1)"
    else
        say "run $id: rc=$rc $(tail -c 300 "$WORK/run-$id.json")"
    fi
    (( rc == 0 )) || { fail "run $id"; tail -5 "$WORK/run-$id.json" | tee -a "$REPORT"; }
}
if [[ -d "$FMNIST" ]]; then
    train_run cpu-32 cpu 32
fi
if [[ -d "$FMNIST" ]] && needs_gpu "runs on the GPU"; then
    train_run cuda-32 cuda:0 32
    train_run cuda-16-mixed cuda:0 16-mixed
    train_run cuda-bf16-mixed cuda:0 bf16-mixed
    train_run cuda-32-fallback cuda:0 32 TRAINBENCH_CUDNN_REFUSE_FIRST=1
    "$CLI" runs compare cpu-32 cuda-32 cuda-16-mixed cuda-bf16-mixed cuda-32-fallback \
        --db "$DB" --metric train/loss --x step 2>&1 | tee -a "$REPORT"
    if command -v python3 >/dev/null; then
        "$CLI" runs compare cpu-32 cuda-32 cuda-16-mixed cuda-bf16-mixed cuda-32-fallback \
            --db "$DB" --metric train/loss --x step --json 2>/dev/null |
            python3 "$ROOT/tests/gpu/curves.py" "$WORK"/run-*.json 2>&1 | tee -a "$REPORT"
        (( ${PIPESTATUS[1]} == 0 )) || fail "loss curves"
    else
        say "loss curves: skipped: no python3 to judge them (curves.py)"
    fi
    "$CLI" runs compare cuda-32 --db "$DB" --metric h2d_ms --x step 2>&1 | tail -4 |
        tee -a "$REPORT"
elif [[ ! -d "$FMNIST" ]]; then
    say "no Fashion-MNIST subset in the bundle: runs skipped"
    fail "runs"
fi

section "compute-sanitizer over three training steps"
# Every kernel the default model's training runs (convolution, batch norm, pooling, the loss,
# SGD), on a small synthetic set so the instrumented run (tens of times slower) stays short:
# three steps and the validation of 26 samples at their end.
sanitize() { # TOOL
    local tool=$1
    run_step "sanitizer $tool" 90 "$WORK/sanitizer-$tool.txt" "$SANITIZER" --tool "$tool" \
        --report-api-errors no --error-exitcode 99 --print-limit 20 "$CLI" train --no-db --quiet \
        --set dataset=shapes --set data.synthetic_samples=256 --set data.image_size=28 \
        --set model=fmnist-cnn --set max_steps=3 --set batch_size=64 --set num_workers=0 \
        --set device=cuda:0 --set checkpoint_dir="$WORK/checkpoints"
    local rc=$? log="$WORK/sanitizer-$tool.txt"
    say "$tool: rc=$rc $(grep -E -m1 "ERROR SUMMARY|RACECHECK SUMMARY" "$log")"
    grep -E -m10 "^========= (Invalid|Error|Race|Program hit|  at )" "$log" | tee -a "$REPORT"
    if [[ $tool == racecheck ]] && (( rc == 99 )) && ! ours_in_report "$log"; then
        # Shared-memory hazards inside cuDNN's or cuBLAS's kernels are theirs to answer for:
        # reported above, judged only where a device frame is one of our kernels (tb::cuda).
        say "racecheck: the hazards above are all in library kernels, none in ours"
        return
    fi
    (( rc == 0 )) || fail "sanitizer $tool"
}
# Whether a sanitizer report names one of TrainBench's kernels (namespace tb::cuda, demangled
# or mangled) outside the host backtraces, where our launch functions appear for every kernel.
ours_in_report() { # LOG
    grep -v "Host Frame" "$1" | grep -q -E "tb::cuda|2tb4cuda"
}
SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if ! needs_gpu "compute-sanitizer"; then
    :
elif [[ -n "$SANITIZER" ]]; then
    sanitize memcheck
    sanitize racecheck
else
    say "compute-sanitizer not on this machine"
    fail "compute-sanitizer missing"
fi

section "bench (GPU steady state) and PyTorch on the same GPU"
bench() { # NAME ARGS...
    local name=$1
    shift
    run_step "bench $name" 60 "$WORK/bench-$name.txt" "$CLI" bench --device cuda:0 "$@"
    local rc=$?
    say "-- bench $name: $* (rc=$rc)"
    tee -a "$REPORT" < "$WORK/bench-$name.txt"
    (( rc == 0 )) || fail "bench $name"
}
torch_ref() { # ARGS...
    if ! python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
        say "-- PyTorch: skipped: no PyTorch with CUDA in python3 here"
        return 0
    fi
    run_step "torch $*" 60 "$WORK/torch.txt" python3 "$ROOT/tests/bench/torch_reference.py" \
        --device cuda "$@"
    say "-- PyTorch: $(tail -1 "$WORK/torch.txt")"
}
if needs_gpu "bench"; then
bench fmnist-cnn --model fmnist-cnn --batch 256
torch_ref --model fmnist-cnn --batch 256
bench resnet20 --model resnet20 --batch 512
torch_ref --model resnet20 --batch 512
bench resnet20-16-mixed --model resnet20 --batch 512 --precision 16-mixed
torch_ref --model resnet20 --batch 512 --precision 16-mixed
# The GPT at nanoGPT's Shakespeare size, its attention the plain path (cuBLAS + our softmax).
bench gpt-bf16 --model gpt --input 256 --n-layer 6 --n-head 6 --n-embd 384 --batch 64 \
    --precision bf16-mixed
torch_ref --model gpt --block-size 256 --n-layer 6 --n-head 6 --n-embd 384 --batch 64 \
    --precision bf16-mixed
fi

section "summary"
say "$(( $(date +%s) - started )) s; ${#failures[@]} failed step(s)"
for f in "${failures[@]}"; do say "  FAILED: $f"; done
# What comes back from a lent machine is a few files: the report and the logs that explain it.
if [[ "$REPORT_DIR" != "$WORK" ]]; then
    tar -C "$WORK" -czf "$REPORT_DIR/logs.tar.gz" --exclude bundle --exclude checkpoints \
        --exclude 'check.db*' . 2>/dev/null
    cp "$WORK/tests.log" "$REPORT_DIR/" 2>/dev/null
fi
(( ${#failures[@]} == 0 ))
