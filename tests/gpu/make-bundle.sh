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
# It must stay under 60 MiB, data included: the device tool carries at most 64 MiB a call.
#
# Usage: tests/gpu/make-bundle.sh [--no-build] [ARCHIVE]
#   ARCHIVE     default .gpu-bundle/trainbench-gpu.tar.xz (ignored by git)
#   --no-build  pack what the build folder holds (the test suite's bundle test does this)
# Environment: TB_BUILD_DIR (default build/ci), JOBS (default 2).
set -euo pipefail
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
LIMIT_MIB=60
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
if LD_LIBRARY_PATH="$OUT_DIR/lib" ldd "$OUT_DIR"/bin/* | grep -v -E "$skip" | grep -q "not found"; then
    echo "make-bundle: unresolved libraries:" >&2
    LD_LIBRARY_PATH="$OUT_DIR/lib" ldd "$OUT_DIR"/bin/* | grep "not found" | sort -u >&2
    exit 1
fi

# The first N items of an IDX file, with the count in its header rewritten.
idx_subset() { # FILE.gz N HEADER_BYTES ITEM_BYTES OUT.gz
    local file=$1 n=$2 header=$3 item=$4 out=$5 raw="$OUT_DIR/idx.raw"
    zcat "$file" > "$raw"
    {
        head -c 4 "$raw" # magic
        printf "$(printf '\\x%02x' $((n >> 24 & 255)) $((n >> 16 & 255)) $((n >> 8 & 255)) \
            $((n & 255)))"
        head -c "$header" "$raw" | tail -c $((header - 8)) # rows and columns of images
        head -c $((header + n * item)) "$raw" | tail -c $((n * item)) # the first n items
    } | gzip -9 > "$out"
    rm -f "$raw"
}
if [[ -d "$FMNIST" ]]; then
    d="$OUT_DIR/data/fashion-mnist"
    idx_subset "$FMNIST/train-images-idx3-ubyte.gz" $TRAIN_SAMPLES 16 784 "$d/train-images-idx3-ubyte.gz"
    idx_subset "$FMNIST/train-labels-idx1-ubyte.gz" $TRAIN_SAMPLES 8 1 "$d/train-labels-idx1-ubyte.gz"
    idx_subset "$FMNIST/t10k-images-idx3-ubyte.gz" $TEST_SAMPLES 16 784 "$d/t10k-images-idx3-ubyte.gz"
    idx_subset "$FMNIST/t10k-labels-idx1-ubyte.gz" $TEST_SAMPLES 8 1 "$d/t10k-labels-idx1-ubyte.gz"
else
    echo "make-bundle: no Fashion-MNIST at $FMNIST (dataset-fashion-mnist): the check's" \
         "default run will be skipped" >&2
fi

echo "$(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD || echo +changes)" \
    > "$OUT_DIR/COMMIT"
mkdir -p "$(dirname "$ARCHIVE")"
XZ_OPT="-6 -T0" tar -C "$OUT_DIR" -cJf "$ARCHIVE" .
bytes=$(stat -c %s "$ARCHIVE")
echo "make-bundle: $ARCHIVE, $((bytes / 1024 / 1024)) MiB ($bytes bytes)"
if ((bytes > LIMIT_MIB * 1024 * 1024)); then
    echo "make-bundle: over the ${LIMIT_MIB} MiB a device call can carry with the tree" >&2
    echo "largest files:" >&2
    (cd "$OUT_DIR" && du -ab . | sort -rn | head -8) >&2
    exit 1
fi
