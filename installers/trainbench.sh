#!/usr/bin/env bash
# The README's quick start. `train`: install dependencies, build, and open the window ready to
# train the default run (fmnist-cnn on Fashion-MNIST, device auto); with no display, train that
# run headless with trainbench-cli. `test`: install, build with warnings as errors and run the
# whole test suite and the install test of the packages (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-train}
shift || true
# The numerics suites compare against PyTorch in float64 (python3-torch); they skip without it.
[[ "$mode" == test ]] && export TB_WITH_TORCH="${TB_WITH_TORCH:-1}"

# Where the minutes went, one line a phase, so a slow first run says which part was slow.
phase_start=$SECONDS
phase_done() {
  echo "trainbench.sh: $1 took $((SECONDS - phase_start)) s" >&2
  phase_start=$SECONDS
}

bash installers/debian-deps.sh
phase_done "installing dependencies"

preset=release
[[ "$mode" == test ]] && preset=ci
cmake --preset "$preset" >/dev/null
if [[ "$mode" == train ]]; then
  # The window and the CLI (and the GPU plugin they load, when it is built); not the tests.
  cmake --build --preset "$preset" --target trainbench trainbench-cli
else
  cmake --build --preset "$preset"
fi
phase_done "building"

case "$mode" in
  train)
    if [[ -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ]]; then
      exec "build/$preset/app/gui/trainbench" "$@"
    fi
    echo "No display (DISPLAY and WAYLAND_DISPLAY are unset): training the default run headless" \
      "with trainbench-cli train; run build/$preset/app/gui/trainbench on a desktop for the window."
    exec "build/$preset/app/cli/trainbench-cli" train "$@"
    ;;
  test)
    ctest --preset "$preset" "$@"
    phase_done "the test suites"
    # The packages, installed and removed as a user would (apt needs root).
    if [[ $(id -u) == 0 ]]; then
      bash installers/install-test.sh "build/$preset"
    else
      echo "install test skipped: installing packages needs root"
    fi
    phase_done "the install test"
    # The libFuzzer targets need clang's fuzzer runtime: the dataset readers (10 s each) and the
    # JSON a user hands us, config files, model specs and checkpoint headers, and PyTorch
    # checkpoints' pickles (6 s each), two at a time.
    if command -v clang++ >/dev/null && compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null; then
      cmake --preset fuzz >/dev/null
      cmake --build build/fuzz -j2 --target fuzz_idx fuzz_cifar fuzz_csv \
        fuzz_json_config fuzz_model_spec fuzz_checkpoint fuzz_torch_pickle
      ctest --test-dir build/fuzz -L fuzz -j2 --output-on-failure
      phase_done "the fuzz smoke (build and run)"
    fi
    ;;
  *)
    echo "usage: $0 train|test [extra arguments]" >&2
    exit 2
    ;;
esac
