#!/usr/bin/env bash
# The GPU check's bundle, tried here as the GPU machine will run it (part of the test suite):
# make-bundle.sh packs this build (no rebuild), the archive with its data must stay under the
# 54 MiB a device call carries beside the tree, and, unpacked elsewhere in bundle-env.sh's
# environment as run-all.sh does, its trainbench-cli must find the plugin inside the bundle
# and its GPU test binaries must run: without a driver, saying that the driver is missing (and
# tst_cuda_plugin reading the plugin the loader took from the bundle); with one, on the GPU.
# Usage: tests/gpu/bundle-test.sh BUILD_DIR
set -euo pipefail
trap 'echo "bundle test: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$(realpath "$1")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Packed at xz level 3 (a third of level 6's time): under the size limit there, it is under it
# at the default level too.
TB_BUILD_DIR="$BUILD" TB_BUNDLE_XZ_LEVEL=3 bash "$ROOT/tests/gpu/make-bundle.sh" --no-build \
    "$work/bundle.tar.xz"
mkdir "$work/unpacked"
tar -C "$work/unpacked" -xJf "$work/bundle.tar.xz"
ls "$work/unpacked/data/fashion-mnist/train-images-idx3-ubyte.gz" >/dev/null

# The same environment as run-all.sh, and nothing from the build tree.
# shellcheck source=tests/gpu/bundle-env.sh
source "$ROOT/tests/gpu/bundle-env.sh" "$work/unpacked"
"$BUNDLE_CLI" doctor --json > "$work/doctor.json"
driver=0
# awk reads the whole list: grep -q would stop early and, under pipefail, fail ldconfig's write.
ldconfig -p | awk '$1 == "libcuda.so.1" {found = 1} END {exit !found}' && driver=1
python3 - "$work/doctor.json" "$work/unpacked/lib/" "$driver" <<'PY'
import json, sys
cuda = json.load(open(sys.argv[1]))["cuda"]
bundle_lib, driver = sys.argv[2], sys.argv[3] == "1"
print("doctor:", {k: cuda[k] for k in ("usable", "reason", "pluginPath")})
assert cuda["pluginPath"].startswith(bundle_lib), "the plugin was not found in the bundle"
if driver:
    assert cuda["usable"], "a driver is installed but the GPU is not usable: " + cuda["reason"]
else:
    assert not cuda["usable"] and "no NVIDIA driver" in cuda["reason"], cuda["reason"]
PY

"$BUNDLE_BIN/tst_gpu_ops" > "$work/tst_gpu_ops.log" 2>&1 || { cat "$work/tst_gpu_ops.log"; exit 1; }
grep -m1 "^Totals:" "$work/tst_gpu_ops.log"
if ((driver == 0)); then
    grep -q "SKIP   : .*No usable GPU: no NVIDIA driver" "$work/tst_gpu_ops.log" || {
        cat "$work/tst_gpu_ops.log"; exit 1; }
fi
# The plugin's own tests need no GPU: none skips, readelf reading the bundle's plugin included.
"$BUNDLE_BIN/tst_cuda_plugin" > "$work/tst_cuda_plugin.log" 2>&1 || {
    cat "$work/tst_cuda_plugin.log"; exit 1; }
grep -m1 "^Totals:" "$work/tst_cuda_plugin.log"
if grep -q "^SKIP" "$work/tst_cuda_plugin.log"; then
    cat "$work/tst_cuda_plugin.log"; exit 1
fi
# Without a GPU, the GPU check itself as a dry run: every section reports, each GPU step says
# it was skipped for want of a GPU, the CPU's run trains (its time is printed, not judged: the
# machine's speed is not the test's).
if ((driver == 0)); then
    started=$(date +%s)
    if OUT="$work/report" BUDGET_S=120 bash "$ROOT/tests/gpu/run-all.sh" \
        --bundle "$work/bundle.tar.xz" "$work/check" > "$work/run-all.log" 2>&1; then
        cat "$work/run-all.log"; echo "run-all.sh passed without a GPU" >&2; exit 1
    fi
    took=$(( $(date +%s) - started ))
    report="$work/report/gpu-report.txt"
    for expected in "^== unpack" "^== machine" "^== doctor" "^== suites" "^== fallback" \
        "^== runs" "^== compute-sanitizer" "^== bench" "^== summary" \
        "no usable GPU: every GPU step below is skipped" "^tst_gpu_ops: skipped: no GPU" \
        "^tst_gpu_models: skipped: no GPU" "^runs on the GPU: skipped: no GPU" \
        "^compute-sanitizer: skipped: no GPU" "^bench: skipped: no GPU" \
        "^tst_cuda_plugin: rc=0" "^run cpu-32: rc=0 status completed" "FAILED: doctor: GPU not usable" \
        "libcudnn"; do
        grep -Eq "$expected" "$report" || {
            cat "$report"; echo "the dry run's report lacks: $expected" >&2; exit 1; }
    done
    (( $(grep -c "  FAILED: " "$report") == 1 )) || { cat "$report"; exit 1; }
    echo "dry run of run-all.sh: $took s, every GPU step skipped and said so"
fi
echo "bundle test: ok"
