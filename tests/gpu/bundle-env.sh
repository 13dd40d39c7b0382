# Sourced, not run: the environment a bundle of tests/gpu/make-bundle.sh runs in, shared by
# run-all.sh and the test suite's bundle test so both run the bundle the same way.
#
#   source tests/gpu/bundle-env.sh BUNDLE_DIR    (BUNDLE_DIR: the unpacked archive)
#
# Sets BUNDLE_BIN, BUNDLE_CLI, BUNDLE_DATA and CUDA_LIBRARY_DIRS (where this machine keeps CUDA's
# libraries when the loader's cache does not list them: the toolkit, the driver's folder, or the
# wheels next to PyTorch: nvidia-cudnn-cu13, nvidia-cublas, nvidia-nccl-cu13, ...), and exports
# LD_LIBRARY_PATH (the bundle's lib/ first), QT_QPA_PLATFORM and OMP_WAIT_POLICY.

BUNDLE_DIR="$(realpath "$1")"
BUNDLE_BIN="$BUNDLE_DIR/bin"
BUNDLE_CLI="$BUNDLE_BIN/trainbench-cli"
BUNDLE_DATA="$BUNDLE_DIR/data"

bundle_cuda_library_dirs() {
    local roots=(/usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib
                 /usr/lib/x86_64-linux-gnu /usr/local/nvidia/lib64 /usr/local/nvidia/lib)
    local py lib found dirs=()
    for py in python3 /usr/bin/python3; do
        mapfile -t -O "${#roots[@]}" roots < <("$py" -c \
            'import nvidia; print("\n".join(nvidia.__path__))' 2>/dev/null)
    done
    for lib in libcuda.so.1 libnvidia-ml.so.1 libcudart.so.13 libcublas.so.13 libcublasLt.so.13 \
               libcudnn.so.9 libnccl.so.2; do
        ldconfig -p | awk -v lib="$lib" '$1 == lib {found = 1} END {exit !found}' && continue
        found=$(find "${roots[@]}" -maxdepth 4 -name "$lib" -print -quit 2>/dev/null)
        [[ -n "$found" ]] && dirs+=("$(dirname "$found")")
    done
    # One entry per folder, in the order found.
    printf '%s\n' "${dirs[@]}" | awk 'NF && !seen[$0]++' | paste -sd: -
}

CUDA_LIBRARY_DIRS="$(bundle_cuda_library_dirs)"
export LD_LIBRARY_PATH="$BUNDLE_DIR/lib${CUDA_LIBRARY_DIRS:+:$CUDA_LIBRARY_DIRS}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export QT_QPA_PLATFORM=offscreen OMP_WAIT_POLICY=PASSIVE
