#!/usr/bin/env bash
# Packs the GPU check into one archive for a GPU machine that has the NVIDIA driver and CUDA's
# libraries (runtime, cuBLAS, cuDNN, and NCCL for data-parallel jobs) but none of our other
# dependencies and no package registry: the lent H200s are such machines, with CUDA's libraries
# as the wheels next to their PyTorch. tests/gpu/run-all.sh --bundle ARCHIVE runs it there.
#
# The archive holds, laid out as an installed TrainBench is (the plugin beside the engine):
#   bin/     trainbench-cli and the GPU test binaries
#   lib/     the engine, the CUDA plugin, and every library they load except the C runtime
#            (glibc, libstdc++, libgcc_s) and CUDA's (the GPU machine has its own)
#   data/fashion-mnist/  a subset of the default dataset: 12,000 training and 2,000 test
#            images (a short last batch at batch 256 in both)
#   COMMIT   the commit it was built from
# It must stay under 54 MiB, data included: the device tool carries at most 64 MiB a call,
# the tracked tree (about 8 MB) included.
#
# Usage: tests/gpu/make-bundle.sh [--no-build] [ARCHIVE]
#   ARCHIVE     default .gpu-bundle/trainbench-gpu.tar.xz (ignored by git)
#   --no-build  pack what the build folder holds (the test suite's bundle test does this)
# Environment: TB_BUILD_DIR (default build/ci), JOBS (default 2), TB_BUNDLE_XZ_LEVEL (default
# 6; the test suite packs at 3, three times as fast and a few MiB larger).
set -Eeuo pipefail # -E: the trap below names a failure inside a function too
trap 'echo "make-bundle: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_FIRST=1
if [[ "${1:-}" == --no-build ]]; then
    BUILD_FIRST=0
    shift
fi
ARCHIVE="$(realpath -m "${1:-$ROOT/.gpu-bundle/trainbench-gpu.tar.xz}")"
BUILD="${TB_BUILD_DIR:-$ROOT/build/ci}"
FMNIST="${TB_FASHION_MNIST:-/usr/share/datasets/fashion-mnist}"
TRAIN_SAMPLES=12000
TEST_SAMPLES=2000
LIMIT_MIB=54
TESTS=(tests/gpu/tst_gpu_ops tests/gpu/tst_gpu_memory tests/gpu/tst_gpu_models
       tests/gpu/tst_cuda_plugin tests/backend/tst_backend_devices)

if ((BUILD_FIRST)); then
    cmake --preset ci -DTB_CUDA=ON -S "$ROOT" >/dev/null
    cmake --build "$BUILD" -j"${JOBS:-2}" --target trainbench_cuda trainbench-cli \
        "${TESTS[@]##*/}"
fi
for f in app/cli/trainbench-cli engine/backend/cuda/libtrainbench_cuda.so "${TESTS[@]}"; do
    [[ -e "$BUILD/$f" ]] || { echo "make-bundle: $BUILD/$f is not built" >&2; exit 1; }
done

OUT_DIR="$(mktemp -d)"
trap 'rm -rf "$OUT_DIR"' EXIT
mkdir -p "$OUT_DIR/bin" "$OUT_DIR/lib" "$OUT_DIR/data/fashion-mnist"
cp "$BUILD/app/cli/trainbench-cli" "$OUT_DIR/bin/"
for t in "${TESTS[@]}"; do cp "$BUILD/$t" "$OUT_DIR/bin/"; done
# Beside the engine, where the engine looks for it first (as in lib/trainbench when installed).
cp -L "$BUILD/engine/backend/cuda/libtrainbench_cuda.so" "$OUT_DIR/lib/"

# Every library the binaries and the plugin resolve here, by soname, minus the C runtime and
# CUDA's libraries (NCCL included: the plugin opens it only for a data-parallel job).
skip='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|libcuda|libcudart|libcublas|libcublasLt|libcudnn.*|libnccl|libnvidia-ml)\.so'
for f in "$OUT_DIR"/bin/* "$OUT_DIR"/lib/libtrainbench_cuda.so; do
    LD_LIBRARY_PATH="$OUT_DIR/lib" ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r soname path; do
    [[ "$soname" =~ $skip ]] && continue
    [[ -e "$OUT_DIR/lib/$soname" ]] || cp -L "$path" "$OUT_DIR/lib/$soname"
done
unresolved=$(LD_LIBRARY_PATH="$OUT_DIR/lib" ldd "$OUT_DIR"/bin/* |
    awk '$2 == "=>" && $3 == "not" {print $1}' | grep -v -E "$skip" | sort -u || true)
if [[ -n "$unresolved" ]]; then
    echo "make-bundle: unresolved libraries:" $unresolved >&2
    exit 1
fi

# The first N items of an IDX file, with the count in its header rewritten (in Python: a shell
# pipeline of head and tail races, since tail -c 0 may exit before head has written).
idx_subset() { # FILE.gz N OUT.gz
    python3 - "$@" <<'PY'
import gzip, struct, sys
path, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
data = gzip.open(path).read()
dims = data[3]
shape = struct.unpack(f">{dims}I", data[4:4 + 4 * dims])
item = 1
for d in shape[1:]:
    item *= d
header = 4 + 4 * dims
if n > shape[0]:
    sys.exit(f"make-bundle: {path} holds {shape[0]} items, fewer than {n}")
with gzip.open(out, "wb", compresslevel=9) as f:
    f.write(data[:4] + struct.pack(">I", n) + data[8:header] + data[header:header + n * item])
PY
}
if [[ -d "$FMNIST" ]]; then
    d="$OUT_DIR/data/fashion-mnist"
    for set in train-images-idx3 train-labels-idx1 t10k-images-idx3 t10k-labels-idx1; do
        n=$TRAIN_SAMPLES
        [[ $set == t10k-* ]] && n=$TEST_SAMPLES
        idx_subset "$FMNIST/$set-ubyte.gz" "$n" "$d/$set-ubyte.gz"
    done
else
    echo "make-bundle: no Fashion-MNIST at $FMNIST (dataset-fashion-mnist): the check's" \
         "default run will be skipped" >&2
fi

if commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null); then
    git -C "$ROOT" diff --quiet HEAD || commit+="+changes"
else
    commit="unknown (not a git checkout)"
fi
echo "$commit" > "$OUT_DIR/COMMIT"
mkdir -p "$(dirname "$ARCHIVE")"
XZ_OPT="-${TB_BUNDLE_XZ_LEVEL:-6} -T0" tar -C "$OUT_DIR" -cJf "$ARCHIVE" .
bytes=$(stat -c %s "$ARCHIVE")
echo "make-bundle: $ARCHIVE, $((bytes / 1024 / 1024)) MiB ($bytes bytes)"
if ((bytes > LIMIT_MIB * 1024 * 1024)); then
    echo "make-bundle: over the ${LIMIT_MIB} MiB a device call can carry with the tree" >&2
    echo "largest files:" >&2
    (cd "$OUT_DIR" && du -ab . | sort -rn | head -8) >&2
    exit 1
fi
