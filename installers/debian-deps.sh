#!/usr/bin/env bash
# Installs TrainBench's build and test dependencies from Debian 12 packages. Idempotent: apt is
# only called when a package is missing. CUDA 13 + cuDNN 9 are not Debian packages; when
# /usr/local/cuda holds them the CUDA plugin is built too.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  clang libclang-rt-14-dev libomp-dev # libFuzzer targets (clang builds the engine with OpenMP)
  qt6-base-dev libqcustomplot-dev     # the window and the Qt Test suites
  qt6-svg-dev                         # SVG export of comparisons
  fonts-dejavu-core                   # text in the window and its screenshots
  libdnnl-dev ocl-icd-opencl-dev      # CPU backend: oneDNN (on OpenMP); its CMake config wants OpenCL
  libopenblas-openmp-dev              # tests/bench: the sgemm the dense layers are measured against
  libsqlite3-dev sqlite3 nlohmann-json3-dev zlib1g-dev libpng-dev libjpeg-dev
  libzip-dev                          # PyTorch checkpoints (.pth) are zip archives
  libbenchmark-dev                    # kernel benchmarks
  libdlib-dev                         # parameter importance: dlib's random forest regression
  libonnx-dev libprotobuf-dev         # ONNX export: the ONNX protobuf messages (onnx/onnx_pb.h)
  libopenmpi-dev openmpi-bin          # data-parallel training across processes (mpirun)
  dataset-fashion-mnist               # the default dataset
  fortunes                            # dataset=text's built-in corpus (2.5 MB of quotations)
  xvfb xauth                          # screenshots of the window
  desktop-file-utils appstream        # the packages' desktop entry and metadata, validated
  dpkg-dev file                       # the packages' dependencies: CPack runs dpkg-shlibdeps on
                                      # what file(1) says is a binary
  xz-utils                            # the GPU check's bundle (tests/gpu/make-bundle.sh)
)
if [[ "${TB_WITH_TORCH:-0}" == 1 ]]; then
  packages+=(python3-torch)           # the PyTorch reference: numerics tests and tests/bench
  packages+=(python3-torchvision)     # torchvision's models: pretrained weights and their numerics
  packages+=(python3-onnx)            # exported models: onnx.checker with full checking
  packages+=(python3-opencv)          # exported models: OpenCV's DNN module as a second runtime
  # exported models: ONNX Runtime (onnxruntime-node, below), unless a Node with npm is there
  command -v npm >/dev/null || packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# ONNX Runtime for the export tests: its Node package ships the CPU library. Its install script
# only fetches GPU libraries (from outside the registry), hence --ignore-scripts. Without the npm
# registry (offline, or a proxy whose certificate Node does not trust) the tests that need it
# skip, saying why; nothing else depends on it.
ort_prefix=/usr/local/lib/trainbench-tests
if [[ "${TB_WITH_TORCH:-0}" == 1 && ! -d $ort_prefix/node_modules/onnxruntime-node ]]; then
  echo "installing: onnxruntime-node 1.20.1 (npm) into $ort_prefix"
  mkdir -p "$ort_prefix"
  npm install --prefix "$ort_prefix" --ignore-scripts --no-audit --no-fund \
      onnxruntime-node@1.20.1 ||
    echo "warning: onnxruntime-node could not be installed from the npm registry;" \
      "the ONNX Runtime checks of tst_export_onnx will skip" >&2
fi
