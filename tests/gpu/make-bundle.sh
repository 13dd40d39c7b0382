#!/usr/bin/env bash
# Builds the GPU check here and packs it into a self-contained folder for a GPU machine that has
# the NVIDIA driver, CUDA and cuDNN but none of our other dependencies (Qt, oneDNN, SQLite, ...)
# and no package registry: the lent H200s are such machines. The bundle holds the CLI, the GPU
# test binaries, the engine and the plugin, and every shared library they load except the C
# runtime (glibc, libstdc++, libgcc_s) and the CUDA libraries, which run-all.sh finds there.
# Usage: tests/gpu/make-bundle.sh [archive]  (default .gpu-bundle/trainbench-gpu.tar.gz, ignored
# by git; about 33 MB). On the GPU machine: tests/gpu/run-all.sh --bundle <archive>.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ARCHIVE="$(realpath -m "${1:-$ROOT/.gpu-bundle/trainbench-gpu.tar.gz}")"
PRESET=ci
BUILD="$ROOT/build/$PRESET"
TARGETS=(trainbench_cuda trainbench-cli tst_gpu_ops tst_gpu_memory tst_gpu_models
         tst_backend_devices)

cd "$ROOT"
cmake --preset "$PRESET" -DTB_CUDA=ON >/dev/null
cmake --build "$BUILD" -j"${JOBS:-2}" --target "${TARGETS[@]}"
OUT_DIR="$BUILD/gpu-bundle"

rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR/bin" "$OUT_DIR/lib/trainbench"
cp "$BUILD/app/cli/trainbench-cli" "$BUILD"/tests/gpu/tst_gpu_{ops,memory,models} \
   "$BUILD/tests/backend/tst_backend_devices" "$OUT_DIR/bin/"
# The engine looks for the plugin in lib/trainbench next to itself, as when installed.
cp -L "$BUILD/engine/backend/cuda/libtrainbench_cuda.so" "$OUT_DIR/lib/trainbench/"

# Every library the binaries and the plugin resolve here, by soname, minus what the GPU machine
# must supply itself.
skip='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|libcuda|libcudart|libcublas|libcublasLt|libcudnn.*|libnvidia-ml)\.so'
for f in "$OUT_DIR"/bin/* "$OUT_DIR"/lib/trainbench/*.so; do
    ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r soname path; do
    [[ "$soname" =~ $skip ]] && continue
    cp -L "$path" "$OUT_DIR/lib/$soname"
done
if ldd "$OUT_DIR"/bin/* | grep -q "not found"; then
    echo "make-bundle: unresolved libraries:" >&2
    ldd "$OUT_DIR"/bin/* | grep "not found" | sort -u >&2
    exit 1
fi
echo "$(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD || echo +changes)" \
    > "$OUT_DIR/COMMIT"
mkdir -p "$(dirname "$ARCHIVE")"
tar -C "$OUT_DIR" -czf "$ARCHIVE" .
du -h "$ARCHIVE"
