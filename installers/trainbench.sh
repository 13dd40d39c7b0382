#!/usr/bin/env bash
# The README's quick start. `train`: install dependencies, build, and train the default run
# (fmnist-cnn on Fashion-MNIST, device auto). `test`: install, build with warnings as errors and
# run the whole test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-train}
shift || true
bash installers/debian-deps.sh

preset=release
[[ "$mode" == test ]] && preset=ci
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"

case "$mode" in
  train)
    exec "build/$preset/app/cli/trainbench-cli" train "$@"
    ;;
  test)
    ctest --preset "$preset" "$@"
    ;;
  *)
    echo "usage: $0 train|test [extra arguments]" >&2
    exit 2
    ;;
esac
